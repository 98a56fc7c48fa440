/**
 * Lua pieces the access store's scripts share: the time in ms, and the record manifest (write it,
 * and tell whether the records are the ones it counts). Each script module puts the pieces it
 * needs in front of its own text. Reads nothing; sets nothing.
 */

/**
 * The record hashes (the store's names for them), in the order the scripts' integrity helpers
 * take them, each with its field in the manifest (also its name in a problem's text).
 */
export const MANIFEST = [
  ['vendor', 'vendors'],
  ['key', 'keys'],
  ['user', 'users'],
  ['keyhash', 'keyhash'],
  ['admin', 'admins'],
  ['proposal', 'pending'],
  ['portalUser', 'portalusers'],
] as const;

export const TIME_LUA = `
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
`;

// record_hashes: the seven record hashes in MANIFEST_KINDS order. Without a manifest for the
// version (none yet, or one an instance of an earlier release left behind when it wrote since)
// the counts vouch for nothing: only an empty store at a version above zero is then known to be
// wrong. A kind the manifest does not count (one written by a release before the kind existed,
// while a rolling upgrade runs) is not checked: its records are neither vouched for nor lost.
export const INTEGRITY_LUA = `
local MANIFEST_FIELDS = {${MANIFEST.map(([, field]) => `'${field}'`).join(', ')}}
local function write_manifest(manifest_key, version, record_hashes)
  local args = {'version', version}
  for i, field in ipairs(MANIFEST_FIELDS) do
    args[#args + 1] = field
    args[#args + 1] = redis.call('HLEN', record_hashes[i])
  end
  redis.call('DEL', manifest_key)
  redis.call('HSET', manifest_key, unpack(args))
end
-- '' when the records are those the version's manifest counts; else what is wrong, for a person.
local function integrity_problem(version, manifest_key, record_hashes)
  if version == 0 then return '' end
  local flat = redis.call('HGETALL', manifest_key)
  local manifest = {}
  for i = 1, #flat, 2 do manifest[flat[i]] = tonumber(flat[i + 1]) end
  if manifest['version'] ~= version then
    local held = 0
    for i = 1, 3 do held = held + redis.call('HLEN', record_hashes[i]) end
    if held == 0 then return 'version ' .. version .. ' holds no vendor, key or user record' end
    return ''
  end
  local wrong = {}
  for i, field in ipairs(MANIFEST_FIELDS) do
    local held = redis.call('HLEN', record_hashes[i])
    local counted = manifest[field]
    if counted ~= nil and held ~= counted then wrong[#wrong + 1] = field .. ' ' .. held .. ' of ' .. counted end
  end
  if #wrong == 0 then return '' end
  return 'version ' .. version .. ' has lost records (' .. table.concat(wrong, ', ') .. ')'
end
`;
