/**
 * The access store's head script: version, newest change and integrity read together. Its KEYS
 * are built by `headKeys` (redis-access-keys.ts).
 */
import { INTEGRITY_LUA } from './integrity';

// KEYS: version, changes, manifest, then the seven record hashes in MANIFEST_KINDS order. The
// version, the newest change's id and the records' integrity, read together, so a load knows
// exactly which changes come after what it reads and whether the records it is about to read
// are whole. Run by every load and every version check, it also takes any lifetime off the live
// keys, which an instance of an earlier release leaves on them with every whole-document write
// (its swap carried the staging lifetime over), and answers which keys had one.
export const HEAD_SCRIPT = `${INTEGRITY_LUA}
local expiring = {}
for i = 1, #KEYS do
  if redis.call('PTTL', KEYS[i]) > 0 then
    redis.call('PERSIST', KEYS[i])
    expiring[#expiring + 1] = KEYS[i]
  end
end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local id = '0-0'
if last[1] then id = last[1][1] end
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
local problem = integrity_problem(version, KEYS[3], {KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]})
local vouched = 0
if problem == '' and version > 0 and tonumber(redis.call('HGET', KEYS[3], 'version') or '-1') == version then vouched = 1 end
return {version, id, problem, vouched, expiring}
`;
