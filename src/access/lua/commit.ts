/**
 * The access store's commit script: one change (operations on records) with its audit entry, as
 * one atomic step on the `{access}` slot. Its KEYS are built by `commitKeys` (redis-access-keys.ts).
 */
import { AUDIT_APPEND_LUA } from './audit-append';
import { INTEGRITY_LUA, TIME_LUA } from './integrity';

// KEYS: version, vendors, keys, users, keyhash, changes, audit, admins, proposals (the pending
// hash), manifest, audit head, audit checkpoint ids, portal users.
// ARGV: expected version ('' for any), highest version this instance has seen, channel,
// operations JSON, audit entry ('' for none), audit retention ms, audit max entries, change
// retention ms, the audit entry's prevHash and hash (-7 with the audit head when it moved). Every check runs before the first write: a script that stopped half-way would
// leave half a change. The new version is above this instance's last one too, so that a version
// number instances hold is never reused. A store that has lost records takes no change: a change
// computed against records that are not there would be written on top of the loss.
export const COMMIT_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}${INTEGRITY_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local record_hashes = {KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[8], KEYS[9], KEYS[13]}
local problem = integrity_problem(current, KEYS[10], record_hashes)
if problem ~= '' then return {-5, current, problem} end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then return {0, current} end
if current < tonumber(ARGV[2]) then return {-4, current} end
local ops = cjson.decode(ARGV[4])
local hashes = {vendor = KEYS[2], key = KEYS[3], user = KEYS[4], admin = KEYS[8], change = KEYS[9], portalUser = KEYS[13]}
local touched_keys, vendor_after = {}, {}
for _, op in ipairs(ops) do
  if op.k == 'key' then touched_keys[op.id] = true end
  if op.k == 'vendor' then vendor_after[op.id] = (op.v ~= '') end
end
for _, op in ipairs(ops) do
  if op.e ~= nil then
    local stored = redis.call('HGET', hashes[op.k], op.id) or ''
    if stored ~= op.e then return {-1, current, op.k, op.id} end
  end
  if (op.k == 'key' or op.k == 'portalUser') and op.v ~= '' then
    local exists = vendor_after[op.vid]
    if exists == nil then exists = redis.call('HEXISTS', KEYS[2], op.vid) == 1 end
    if not exists then return {-2, current, 'vendor', op.vid} end
  end
  if op.k == 'key' and op.v ~= '' then
    local owner = redis.call('HGET', KEYS[5], op.h)
    if owner and owner ~= op.id and not touched_keys[owner] then return {-3, current, 'key', op.id} end
  end
end
if ARGV[5] ~= '' then
  local moved = audit_moved(KEYS[11], ARGV[9])
  if moved then return {-7, current, moved[1], moved[2], moved[3]} end
end
for _, op in ipairs(ops) do
  local hash = hashes[op.k]
  if op.k == 'key' then
    local old = redis.call('HGET', hash, op.id)
    if old then
      local old_hash = cjson.decode(old).hash
      if redis.call('HGET', KEYS[5], old_hash) == op.id then redis.call('HDEL', KEYS[5], old_hash) end
    end
    if op.v ~= '' then redis.call('HSET', KEYS[5], op.h, op.id) end
  end
  if op.v == '' then redis.call('HDEL', hash, op.id) else redis.call('HSET', hash, op.id, op.v) end
end
local version = math.max(current, tonumber(ARGV[2])) + 1
redis.call('SET', KEYS[1], version)
write_manifest(KEYS[10], version, record_hashes)
redis.call('XADD', KEYS[6], '*', 'v', version, 'ops', ARGV[4])
redis.call('XTRIM', KEYS[6], 'MINID', '~', string.format('%.0f', now_ms() - tonumber(ARGV[8])))
local audit_id, early, need_cp = '', 0, 0
if ARGV[5] ~= '' then audit_id, early, need_cp = append_audit(KEYS[7], KEYS[11], KEYS[12], ARGV[5], ARGV[10], '0', ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[3], version)
return {1, version, audit_id, early, need_cp}
`;
