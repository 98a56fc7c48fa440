/**
 * The access store's manifest backfill script, for a store an earlier release wrote. Its KEYS are
 * built by `backfillKeys` (redis-access-keys.ts).
 */
import { INTEGRITY_LUA } from './integrity';

// KEYS: version, manifest, then the seven record hashes in MANIFEST_KINDS order. Writes the
// manifest of a store last written by an earlier release (none, or one for another version) when
// its records are there to count; an empty store at a version above zero is left for the
// integrity check to report.
export const BACKFILL_MANIFEST_SCRIPT = `${INTEGRITY_LUA}
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
if version == 0 or tonumber(redis.call('HGET', KEYS[2], 'version') or '-1') == version then return 0 end
local record_hashes = {KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]}
if integrity_problem(version, KEYS[2], record_hashes) ~= '' then return 0 end
write_manifest(KEYS[2], version, record_hashes)
return 1
`;
