/**
 * The audit stream's append in Lua: functions the access store's commit and swap scripts embed,
 * so a change and its entry are written in one step, and the audit log's own append script
 * (audit-log.ts). Reads and sets the stream, its head hash and its list of checkpoint ids.
 *
 * The entries form a hash chain (audit-chain.ts). The gateway computes an entry's hash from the
 * head it last saw; `audit_moved` refuses the append when the head has moved since (another
 * instance wrote), answering the current head so the caller recomputes and retries. Scripts
 * call it before their first write, so a refused entry leaves its change unwritten too.
 *
 * The head hash (`h`: the last entry's hash, `n`: entries appended since the chain began, `c`:
 * whether the last one is a checkpoint, `m`: `n` at the last checkpoint) sits in the same slot.
 *
 * Retention: the policy's trim point is the later of "older than the retention" and "beyond
 * maxEntries". The stream is trimmed to the newest checkpoint at or before that point, never
 * past it, so the oldest kept entry is always a signed checkpoint (or the chain's first entry)
 * and verification can tell trimming from removal. The count guard may so keep up to one
 * checkpoint interval more than maxEntries; `need_cp` asks the gateway for a checkpoint once
 * maxEntries/10 entries were written since the last, which bounds that to a tenth. Entries
 * younger than the retention that are trimmed are returned to be counted. Trims are exact (`=`):
 * appends are admin actions, rare enough for the exact cost.
 */
const GENESIS = '0'.repeat(64);

export const AUDIT_APPEND_LUA = `
local function audit_head(head_key)
  local h = redis.call('HMGET', head_key, 'h', 'n', 'c', 'm')
  return h[1] or '${GENESIS}', tonumber(h[2] or '0'), h[3] or '0', tonumber(h[4] or '0')
end
local function audit_moved(head_key, prev)
  local h, n, c = audit_head(head_key)
  if h == prev then return nil end
  return {h, n, c}
end
local function audit_id(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function audit_at_or_before(a, b)
  local am, as = audit_id(a)
  local bm, bs = audit_id(b)
  return am < bm or (am == bm and as <= bs)
end
local function append_audit(key, head_key, cps_key, entry, hash, is_cp, retention_ms, max_entries)
  local id = redis.call('XADD', key, '*', 'e', entry)
  local _, n, _, m = audit_head(head_key)
  n = n + 1
  if is_cp == '1' then
    m = n
    redis.call('RPUSH', cps_key, id)
  end
  redis.call('HSET', head_key, 'h', hash, 'n', n, 'c', is_cp, 'm', m)
  local now = redis.call('TIME')
  local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local max = tonumber(max_entries)
  local aged = string.format('%.0f', now_ms - tonumber(retention_ms)) .. '-0'
  local keep_from = aged
  local excess = redis.call('XLEN', key) - max
  if excess > 0 then
    local oldest = redis.call('XRANGE', key, '-', '+', 'COUNT', excess + 1)
    local by_count = oldest[#oldest][1]
    if audit_at_or_before(keep_from, by_count) then keep_from = by_count end
  end
  local anchor, at = nil, -1
  while true do
    local cp = redis.call('LINDEX', cps_key, at + 1)
    if not cp or not audit_at_or_before(cp, keep_from) then break end
    anchor, at = cp, at + 1
  end
  local early = 0
  if anchor then
    redis.call('XTRIM', key, 'MINID', '=', audit_at_or_before(anchor, aged) and anchor or aged)
    early = redis.call('XTRIM', key, 'MINID', '=', anchor)
    if at > 0 then redis.call('LTRIM', cps_key, at, -1) end
  end
  local need_cp = 0
  if is_cp ~= '1' and n - m >= math.max(1, math.floor(max / 10)) then need_cp = 1 end
  return id, early, need_cp
end
`;

// KEYS: stream, head hash, checkpoint ids. ARGV: entry JSON, its prevHash, its hash, '1' for a
// checkpoint, retention ms, max entries. Answers {0, head, count, checkpoint} when the head moved.
export const AUDIT_APPEND_SCRIPT = `${AUDIT_APPEND_LUA}
local moved = audit_moved(KEYS[2], ARGV[2])
if moved then return {0, moved[1], moved[2], moved[3]} end
local id, early, need_cp = append_audit(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return {1, id, early, need_cp}`;
