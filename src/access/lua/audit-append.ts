/**
 * The audit stream's append in Lua: a function the access store's commit and swap scripts embed,
 * so a change and its entry are written in one step, and the audit log's own append script
 * (audit-log.ts). Reads nothing; sets nothing.
 *
 * Appends an entry to the stream, trims what is older than the retention, then applies the
 * count guard, whose trims are all younger than the retention (the older ones are gone already)
 * and are returned to be counted. Trims are exact (`=`), not `~`: appends are admin actions, rare
 * enough for the exact cost.
 */
export const AUDIT_APPEND_LUA = `
local function append_audit(key, entry, retention_ms, max_entries)
  local id = redis.call('XADD', key, '*', 'e', entry)
  local now = redis.call('TIME')
  local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('XTRIM', key, 'MINID', '=', string.format('%.0f', now_ms - tonumber(retention_ms)))
  local early = redis.call('XTRIM', key, 'MAXLEN', '=', tonumber(max_entries))
  return id, early
end
`;

// KEYS: stream. ARGV: entry JSON, retention ms, max entries.
export const AUDIT_APPEND_SCRIPT = `${AUDIT_APPEND_LUA}
local id, early = append_audit(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
return {id, early}`;
