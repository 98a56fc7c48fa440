/**
 * The Redis access store's key layout and its Lua scripts (redis-access-store.ts), each script
 * one atomic step on the keys of the `{access}` slot, with the list of KEYS it takes built here
 * beside it, so that the store reads as TypeScript and no KEYS order is written twice.
 *
 * Layout, all under one hash tag so that every script touches a single cluster slot:
 *   <prefix>{access}:version   the config's version, raised by every change
 *   <prefix>{access}:vendors   hash: vendor id -> vendor record (JSON, without keys)
 *   <prefix>{access}:keys      hash: key id -> key record (JSON, with its vendorId)
 *   <prefix>{access}:users     hash: user id -> user record (JSON, with permissions)
 *   <prefix>{access}:keyhash   hash: key hash -> key id (keeps hashes unique)
 *   <prefix>{access}:admins    hash: admin id -> admin account (JSON)
 *   <prefix>{access}:pending   hash: change id -> change waiting for a second admin (JSON)
 *   <prefix>{access}:manifest  hash: the version and how many records of each kind it holds
 *   <prefix>{access}:changes   stream of changes (version + operations), trimmed by age
 *   <prefix>{access}:audit     the audit stream (audit.ts), written by the same script
 *   <prefix>{access}:doc       the earlier single-document layout, moved into records once
 *   <prefix>{access}:stage:*   a whole-config write being staged (redis-access-staging.ts)
 *   <prefix>{access}:changed   the channel every change publishes its new version on
 *
 * Every script that raises the version also writes the record manifest (`{access}:manifest`:
 * the version and the number of records of each kind it holds), so that a load, and every
 * version check, can tell a store whose records vanished (expired, evicted, deleted by hand)
 * from a store that was emptied on purpose. Reads nothing; sets nothing.
 */
import { AUDIT_APPEND_LUA } from './audit-log';
import type { StagedKeys, StagedKind } from './redis-access-staging';

export interface AccessKeys {
  /** `<prefix>{access}`: what the staged keys are named under. */
  readonly base: string;
  readonly version: string;
  readonly records: Readonly<Record<StagedKind, string>>;
  readonly changes: string;
  readonly audit: string;
  readonly legacyDocument: string;
  readonly manifest: string;
  readonly channel: string;
}

/** The layout above; the audit stream is the audit log's own key when it has one. */
export function accessKeys(keyPrefix: string, auditKey?: string): AccessKeys {
  const base = `${keyPrefix}{access}`;
  return {
    base,
    version: `${base}:version`,
    records: {
      vendor: `${base}:vendors`,
      key: `${base}:keys`,
      user: `${base}:users`,
      keyhash: `${base}:keyhash`,
      admin: `${base}:admins`,
      proposal: `${base}:pending`,
    },
    changes: `${base}:changes`,
    audit: auditKey ?? `${base}:audit`,
    legacyDocument: `${base}:doc`,
    manifest: `${base}:manifest`,
    channel: `${base}:changed`,
  };
}

/**
 * The record hashes (the store's names for them), in the order the scripts' integrity helpers
 * take them, each with its field in the manifest (also its name in a problem's text).
 */
const MANIFEST = [
  ['vendor', 'vendors'],
  ['key', 'keys'],
  ['user', 'users'],
  ['keyhash', 'keyhash'],
  ['admin', 'admins'],
  ['proposal', 'pending'],
] as const;
export const MANIFEST_KINDS = MANIFEST.map(([kind]) => kind);
const recordHashes = (keys: AccessKeys): string[] => MANIFEST_KINDS.map((kind) => keys.records[kind]);

const TIME_LUA = `
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
`;

// record_hashes: the six record hashes in MANIFEST_KINDS order. Without a manifest for the
// version (none yet, or one an instance of an earlier release left behind when it wrote since)
// the counts vouch for nothing: only an empty store at a version above zero is then known to be
// wrong.
const INTEGRITY_LUA = `
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
    local counted = manifest[field] or 0
    if held ~= counted then wrong[#wrong + 1] = field .. ' ' .. held .. ' of ' .. counted end
  end
  if #wrong == 0 then return '' end
  return 'version ' .. version .. ' has lost records (' .. table.concat(wrong, ', ') .. ')'
end
`;

// KEYS: version, vendors, keys, users, keyhash, changes, audit, admins, proposals, manifest.
// ARGV: expected version ('' for any), highest version this instance has seen, channel,
// operations JSON, audit entry ('' for none), audit retention ms, audit max entries, change
// retention ms. Every check runs before the first write: a script that stopped half-way would
// leave half a change. The new version is above this instance's last one too, so that a version
// number instances hold is never reused. A store that has lost records takes no change: a change
// computed against records that are not there would be written on top of the loss.
export const commitKeys = ({ version, records, changes, audit, manifest }: AccessKeys): string[] => [
  version,
  records.vendor,
  records.key,
  records.user,
  records.keyhash,
  changes,
  audit,
  records.admin,
  records.proposal,
  manifest,
];
export const COMMIT_KEY_COUNT = 10;
export const COMMIT_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}${INTEGRITY_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local record_hashes = {KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[8], KEYS[9]}
local problem = integrity_problem(current, KEYS[10], record_hashes)
if problem ~= '' then return {-5, current, problem} end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then return {0, current} end
if current < tonumber(ARGV[2]) then return {-4, current} end
local ops = cjson.decode(ARGV[4])
local hashes = {vendor = KEYS[2], key = KEYS[3], user = KEYS[4], admin = KEYS[8], change = KEYS[9]}
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
  if op.k == 'key' and op.v ~= '' then
    local exists = vendor_after[op.vid]
    if exists == nil then exists = redis.call('HEXISTS', KEYS[2], op.vid) == 1 end
    if not exists then return {-2, current, 'vendor', op.vid} end
    local owner = redis.call('HGET', KEYS[5], op.h)
    if owner and owner ~= op.id and not touched_keys[owner] then return {-3, current, 'key', op.id} end
  end
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
local audit_id, early = '', 0
if ARGV[5] ~= '' then audit_id, early = append_audit(KEYS[7], ARGV[5], ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[3], version)
return {1, version, audit_id, early}
`;

// KEYS: version, vendors, keys, users, keyhash, changes, audit, the four staged hashes in the
// same order, the earlier single document, admins, proposals, their two staged hashes, and
// the manifest. ARGV: mode, version (expected for 'replace' and 'mend', '' for any; the copy's own
// for 'restore'), highest version this instance has seen, channel, audit entry ('' for none),
// audit retention ms, audit max entries, change retention ms, then how many records were staged
// in each of the six staged hashes (vendors, keys, users, keyhash, admins, pending).
//   replace: a new version made of the staged records (whole-document writes); admins and
//            proposals stay as they are.
//   mend:    the same, with admins and proposals staged too (from the copy the writer
//            serves): the whole-document write that mends a store that lost records.
//   restore: write back a copy only while Redis holds an older version (healing, seeding).
//   migrate: move the earlier single document in, keeping its version, once.
// Staged hashes carry a lifetime (a writer that dies mid-write leaves nothing for ever). A staged
// hash that holds fewer records than were staged lost them to that lifetime during a long write:
// the swap refuses rather than swap in the loss. RENAME moves a key's lifetime with it: PERSIST
// takes it off, or the live records would vanish when the staging lifetime ends.
export const swapKeys = (keys: AccessKeys, staged: StagedKeys): string[] => {
  const { version, records, changes, audit, legacyDocument, manifest } = keys;
  return [
    ...[version, records.vendor, records.key, records.user, records.keyhash, changes, audit],
    ...[staged.vendor, staged.key, staged.user, staged.keyhash],
    ...[legacyDocument, records.admin, records.proposal, staged.admin, staged.proposal, manifest],
  ];
};
export const SWAP_KEY_COUNT = 17;
export const SWAP_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}${INTEGRITY_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local whole = ARGV[1] == 'replace' or ARGV[1] == 'mend'
local staged = {KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[15], KEYS[16]}
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
end
redis.call('DEL', KEYS[12])
redis.call('SET', KEYS[1], version)
write_manifest(KEYS[17], version, {KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[13], KEYS[14]})
local change_id = redis.call('XADD', KEYS[6], '*', 'v', version, 'reload', '1')
redis.call('XTRIM', KEYS[6], 'MINID', '~', string.format('%.0f', now_ms() - tonumber(ARGV[8])))
local audit_id, early = '', 0
if ARGV[5] ~= '' then audit_id, early = append_audit(KEYS[7], ARGV[5], ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[4], version)
return {1, version, audit_id, early, change_id}
`;

// KEYS: version, changes, manifest, then the six record hashes in MANIFEST_KINDS order. The
// version, the newest change's id and the records' integrity, read together, so a load knows
// exactly which changes come after what it reads and whether the records it is about to read
// are whole. Run by every load and every version check, it also takes any lifetime off the live
// keys, which an instance of an earlier release leaves on them with every whole-document write
// (its swap carried the staging lifetime over), and answers which keys had one.
export const headKeys = (keys: AccessKeys): string[] => [keys.version, keys.changes, keys.manifest, ...recordHashes(keys)];
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
local problem = integrity_problem(version, KEYS[3], {KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]})
local vouched = 0
if problem == '' and version > 0 and tonumber(redis.call('HGET', KEYS[3], 'version') or '-1') == version then vouched = 1 end
return {version, id, problem, vouched, expiring}
`;

// KEYS: version, manifest, then the six record hashes in MANIFEST_KINDS order. Writes the
// manifest of a store last written by an earlier release (none, or one for another version) when
// its records are there to count; an empty store at a version above zero is left for the
// integrity check to report.
export const backfillKeys = (keys: AccessKeys): string[] => [keys.version, keys.manifest, ...recordHashes(keys)];
export const BACKFILL_MANIFEST_SCRIPT = `${INTEGRITY_LUA}
local version = tonumber(redis.call('GET', KEYS[1]) or '0')
if version == 0 or tonumber(redis.call('HGET', KEYS[2], 'version') or '-1') == version then return 0 end
local record_hashes = {KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]}
if integrity_problem(version, KEYS[2], record_hashes) ~= '' then return 0 end
write_manifest(KEYS[2], version, record_hashes)
return 1
`;
