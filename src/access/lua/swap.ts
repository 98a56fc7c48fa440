/**
 * The access store's swap script: staged records swapped in whole (a whole-document write, a
 * mend, a restore, the one-time migration). Its KEYS are built by `swapKeys` (redis-access-keys.ts).
 */
import { AUDIT_APPEND_LUA } from './audit-append';
import { INTEGRITY_LUA, TIME_LUA } from './integrity';

// KEYS: version, vendors, keys, users, keyhash, changes, audit, the four staged hashes in the
// same order, the earlier single document, admins, proposals, their two staged hashes, and
// the manifest, the audit head and the audit checkpoint ids, then portal users and their staged
// hash. ARGV: mode, version (expected for 'replace' and 'mend', '' for any; the copy's own
// for 'restore'), highest version this instance has seen, channel, audit entry ('' for none),
// audit retention ms, audit max entries, change retention ms, then how many records were staged
// in each of the seven staged hashes (vendors, keys, users, keyhash, admins, pending,
// portalusers), then the
// audit entry's prevHash and hash (-7 with the audit head when it moved, before any write).
//   replace: a new version made of the staged records (whole-document writes); admins,
//            proposals and portal users stay as they are.
//   mend:    the same, with admins, proposals and portal users staged too (from the copy the writer
//            serves): the whole-document write that mends a store that lost records.
//   restore: write back a copy only while Redis holds an older version (healing, seeding).
//   migrate: move the earlier single document in, keeping its version, once.
// Staged hashes carry a lifetime (a writer that dies mid-write leaves nothing for ever). A staged
// hash that holds fewer records than were staged lost them to that lifetime during a long write:
// the swap refuses rather than swap in the loss. RENAME moves a key's lifetime with it: PERSIST
// takes it off, or the live records would vanish when the staging lifetime ends.
export const SWAP_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}${INTEGRITY_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local whole = ARGV[1] == 'replace' or ARGV[1] == 'mend'
local staged = {KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[15], KEYS[16], KEYS[21]}
for i, key in ipairs(staged) do
  if redis.call('HLEN', key) ~= tonumber(ARGV[8 + i]) then return {-6, current, key} end
end
local version
if whole then
  if ARGV[2] ~= '' and tonumber(ARGV[2]) ~= current then return {0, current} end
  if current < tonumber(ARGV[3]) then return {-4, current} end
  version = math.max(current, tonumber(ARGV[3])) + 1
elseif ARGV[1] == 'restore' then
  if current >= tonumber(ARGV[2]) then return {0, current} end
  version = tonumber(ARGV[2])
else
  if redis.call('EXISTS', KEYS[12]) == 0 then return {0, current} end
  version = math.max(current, tonumber(ARGV[2]))
end
if ARGV[5] ~= '' then
  local moved = audit_moved(KEYS[18], ARGV[16])
  if moved then return {-7, current, moved[1], moved[2], moved[3]} end
end
local function swap_in(staged, live)
  if redis.call('EXISTS', staged) == 1 then
    redis.call('RENAME', staged, live)
    redis.call('PERSIST', live)
  else
    redis.call('DEL', live)
  end
end
for i = 2, 5 do swap_in(KEYS[i + 6], KEYS[i]) end
if ARGV[1] ~= 'replace' then
  swap_in(KEYS[15], KEYS[13])
  swap_in(KEYS[16], KEYS[14])
  swap_in(KEYS[21], KEYS[20])
end
redis.call('DEL', KEYS[12])
redis.call('SET', KEYS[1], version)
write_manifest(KEYS[17], version, {KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[13], KEYS[14], KEYS[20]})
local change_id = redis.call('XADD', KEYS[6], '*', 'v', version, 'reload', '1')
redis.call('XTRIM', KEYS[6], 'MINID', '~', string.format('%.0f', now_ms() - tonumber(ARGV[8])))
local audit_id, early, need_cp = '', 0, 0
if ARGV[5] ~= '' then audit_id, early, need_cp = append_audit(KEYS[7], KEYS[18], KEYS[19], ARGV[5], ARGV[17], '0', ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[4], version)
return {1, version, audit_id, early, change_id, need_cp}
`;
