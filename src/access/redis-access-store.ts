/**
 * The Redis access store (REDIS_URL set): the access config shared by every instance, kept as
 * separate records so that a change costs what it touches, not the size of the whole config.
 *
 * Layout, all under one hash tag so that every script touches a single cluster slot:
 *   <prefix>{access}:version   the config's version, raised by every change
 *   <prefix>{access}:vendors   hash: vendor id -> vendor record (JSON, without keys)
 *   <prefix>{access}:keys      hash: key id -> key record (JSON, with its vendorId)
 *   <prefix>{access}:users     hash: user id -> user record (JSON, with permissions)
 *   <prefix>{access}:keyhash   hash: key hash -> key id (keeps hashes unique)
 *   <prefix>{access}:changes   stream of changes (version + operations), trimmed by age
 *   <prefix>{access}:audit     the audit stream (audit.ts), written by the same script
 *   <prefix>{access}:changed   the channel every change publishes its new version on
 * A change is one Lua script: it checks every guard before it writes anything, writes only the
 * records it touches, raises the version, appends the change and its audit entry, and publishes.
 * Large whole-config writes are staged in chunks under a private key and swapped in by one
 * script, which appends a "load again" marker instead of a delta. Instances replay the changes
 * they missed (`changesSince`) and load every record (chunked HSCAN) only at start or on a gap.
 * They learn of changes from the channel, from a version check every `pollIntervalMs` (heals a
 * lost message), and from a check as soon as Redis is back. A Redis found behind this instance
 * (restarted empty, or a lagging replica promoted) gets this instance's last good copy written
 * back, newest copy winning. The earlier single-document key `{access}:doc` is moved into records
 * once, at start.
 *
 * Reads and writes those keys through the two connections it is given (one is for SUBSCRIBE
 * only) and closes both on `close()`. The data-loss epoch marker is not touched here.
 */
import { randomBytes } from 'node:crypto';
import type { ZodError } from 'zod';
import type { Logger } from '../logging/logger';
import { accessDocumentSchema } from './model';
import { closeRedisClient, DEFAULT_READY_TIMEOUT_MS, whenReadyRun, type RedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../errors/error-catalogue';
import { AUDIT_APPEND_LUA, type AuditEntryInput, type AuditStreamTarget } from '../admin/audit';
import {
  canonicalJson,
  documentToRecords,
  RECORD_KINDS,
  RECORD_SCHEMAS,
  RECORDS_FIELD,
  recordJson,
  type AccessOp,
  type AccessRecords,
  type RecordKind,
  type RecordValues,
} from './access-state';
import {
  RecordConflictError,
  VersionConflictError,
  type AccessChange,
  type AccessCommit,
  type AccessReplaceAll,
  type AccessStore,
  type ChangesSince,
  type LastGoodCopy,
  type LoadedAccess,
} from './access-store';
import type { AccessDocument } from './model';

/** Redis failing to answer is an outage (503), not a fault of ours (500). */
async function unavailableOnRedisError<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof InvalidAccessDocumentError || err instanceof VersionConflictError || err instanceof RecordConflictError) throw err;
    throw new StoreUnavailableError(err);
  }
}

export interface RedisAccessStoreOptions {
  /** The connection for the store's commands; give it a command timeout fit for bulk work. */
  readonly client: RedisClient;
  /** A second connection: one that has sent SUBSCRIBE accepts no other command. */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** The declarative file's document, written as version 1 when Redis holds none. */
  readonly seed?: AccessDocument;
  /** The audit stream each change's entry goes to, in the same script. */
  readonly audit?: AuditStreamTarget;
  /** How long changes stay replayable; an instance further behind loads everything again. */
  readonly changeRetentionMs?: number;
}

export class InvalidAccessDocumentError extends Error {
  override readonly name = 'InvalidAccessDocumentError';
}

const DEFAULT_CHANGE_RETENTION_MS = 3_600_000;
/** Records per HSCAN and per staged HSET: small enough that neither Redis nor we stall. */
const BATCH = 1000;
/** Changes per XRANGE when catching up. */
const CHANGE_BATCH = 500;
/** A staged write left behind by a writer that died is removed after this. */
const STAGE_TTL_MS = 600_000;

const TIME_LUA = `
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
`;

// KEYS: version, vendors, keys, users, keyhash, changes, audit, admins, pending changes. ARGV:
// expected version ('' for any), highest version this instance has seen, channel, operations JSON, audit entry ('' for
// none), audit retention ms, audit max entries, change retention ms. Every check runs before the
// first write: a script that stopped half-way would leave half a change. The new version is
// above this instance's last one too, so that a version number instances hold is never reused.
const COMMIT_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
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
redis.call('XADD', KEYS[6], '*', 'v', version, 'ops', ARGV[4])
redis.call('XTRIM', KEYS[6], 'MINID', '~', string.format('%.0f', now_ms() - tonumber(ARGV[8])))
local audit_id, early = '', 0
if ARGV[5] ~= '' then audit_id, early = append_audit(KEYS[7], ARGV[5], ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[3], version)
return {1, version, audit_id, early}
`;

// KEYS: version, vendors, keys, users, keyhash, changes, audit, the four staged hashes in the
// same order, the earlier single document, admins, pending changes, and their two staged hashes.
// A whole-document write ('replace') leaves admins and pending changes as they are. ARGV: mode, version (expected for 'replace', '' for
// any; the copy's own for 'restore'), highest version this instance has seen, channel, audit entry
// ('' for none), audit retention ms, audit max entries, change retention ms.
//   replace: a new version made of the staged records (whole-document writes).
//   restore: write back a copy only while Redis holds an older version (healing, seeding).
//   migrate: move the earlier single document in, keeping its version, once.
const SWAP_SCRIPT = `${AUDIT_APPEND_LUA}${TIME_LUA}
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local version
if ARGV[1] == 'replace' then
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
  if redis.call('EXISTS', staged) == 1 then redis.call('RENAME', staged, live) else redis.call('DEL', live) end
end
for i = 2, 5 do swap_in(KEYS[i + 6], KEYS[i]) end
if ARGV[1] ~= 'replace' then
  swap_in(KEYS[15], KEYS[13])
  swap_in(KEYS[16], KEYS[14])
end
redis.call('DEL', KEYS[12])
redis.call('SET', KEYS[1], version)
local change_id = redis.call('XADD', KEYS[6], '*', 'v', version, 'reload', '1')
redis.call('XTRIM', KEYS[6], 'MINID', '~', string.format('%.0f', now_ms() - tonumber(ARGV[8])))
local audit_id, early = '', 0
if ARGV[5] ~= '' then audit_id, early = append_audit(KEYS[7], ARGV[5], ARGV[6], ARGV[7]) end
redis.call('PUBLISH', ARGV[4], version)
return {1, version, audit_id, early, change_id}
`;

// KEYS: version, changes, the earlier document. The version and the newest change's id, read
// together, so a load knows exactly which changes come after what it reads.
const HEAD_SCRIPT = `
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local id = '0-0'
if last[1] then id = last[1][1] end
return {tonumber(redis.call('GET', KEYS[1]) or '0'), id, redis.call('EXISTS', KEYS[3])}
`;

function describeIssues(error: ZodError): string {
  return error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('\n');
}

/** An operation as the scripts read it: values as their stored JSON, '' for none. */
interface WireOp {
  readonly k: RecordKind;
  readonly id: string;
  readonly v: string;
  readonly e?: string;
  readonly h?: string;
  readonly vid?: string;
}

function toWire(op: AccessOp): WireOp {
  const wire: { -readonly [K in keyof WireOp]: WireOp[K] } = { k: op.kind, id: op.id, v: op.value ? recordJson(op.kind, op.value) : '' };
  if (op.expect !== undefined) wire.e = op.expect === null ? '' : recordJson(op.kind, op.expect);
  if (op.kind === 'key' && op.value) {
    wire.h = op.value.hash;
    wire.vid = op.value.vendorId;
  }
  return wire;
}

type StreamEntries = Array<[string, string[]]>;

/** {1, version, audit id, early trims[, change id]} on success; {status < 1, current version, kind, id} else. */
type ScriptReply = [number, number, string?, (string | number)?, string?];

export class RedisAccessStore implements AccessStore {
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly keys: {
    readonly version: string;
    readonly records: Readonly<Record<RecordKind | 'keyhash', string>>;
    readonly changes: string;
    readonly audit: string;
    readonly legacyDocument: string;
  };
  private readonly channel: string;
  private readonly audit: AuditStreamTarget | undefined;
  private readonly changeRetentionMs: number;
  private readonly seed: AccessDocument | undefined;
  private readonly listeners = new Set<() => void>();
  /** The highest version this instance has read or written. */
  private knownVersion = 0;
  private lastGoodCopy: LastGoodCopy = () => null;
  private poller: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;

  constructor(options: RedisAccessStoreOptions) {
    this.client = options.client;
    this.subscriber = options.subscriber;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs;
    const base = `${options.keyPrefix}{access}`;
    this.keys = {
      version: `${base}:version`,
      records: {
        vendor: `${base}:vendors`,
        key: `${base}:keys`,
        user: `${base}:users`,
        keyhash: `${base}:keyhash`,
        admin: `${base}:admins`,
        change: `${base}:pending`,
      },
      changes: `${base}:changes`,
      audit: options.audit?.key ?? `${base}:audit`,
      legacyDocument: `${base}:doc`,
    };
    this.channel = `${base}:changed`;
    this.audit = options.audit;
    this.changeRetentionMs = options.changeRetentionMs ?? DEFAULT_CHANGE_RETENTION_MS;
    this.seed = options.seed;
    this.client.on('ready', this.onClientReady);
    this.subscriber.on('ready', this.onSubscriberReady);
    this.subscriber.on('message', this.onMessage);
  }

  /**
   * Waits for both connections, subscribes to the change channel, moves the earlier single
   * document in and writes the seed when Redis holds nothing. The store also recovers on its own
   * when Redis only arrives later.
   */
  async init(readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    await whenReadyRun(
      [this.client, this.subscriber],
      readyTimeoutMs,
      async () => {
        await this.subscriber.subscribe(this.channel);
        await this.migrateLegacyDocument();
        const { version } = await this.head();
        if (version === 0 && this.seed) await this.writeSeed(this.seed);
      },
      // A bad document is not tried again.
      (err) => err instanceof InvalidAccessDocumentError,
    );
  }

  /** The cache's newest copy: what this instance writes back when Redis is found behind it. */
  serveAsLastGoodCopy(source: LastGoodCopy): void {
    this.lastGoodCopy = source;
  }

  async load(onBatch: (records: Partial<AccessRecords>) => void): Promise<LoadedAccess> {
    return unavailableOnRedisError(
      (async () => {
        const { version, cursor } = await this.head();
        for (const kind of RECORD_KINDS) {
          let scan = '0';
          do {
            const [next, flat] = await this.client.hscan(this.keys.records[kind], scan, 'COUNT', BATCH);
            scan = next;
            const values = [];
            for (let i = 1; i < flat.length; i += 2) values.push(this.parseRecord(kind, flat[i] as string, flat[i - 1] as string));
            onBatch({ [RECORDS_FIELD[kind]]: values });
          } while (scan !== '0');
        }
        this.knownVersion = Math.max(this.knownVersion, version);
        return { version, cursor };
      })(),
    );
  }

  async changesSince(cursor: string, version: number): Promise<ChangesSince> {
    return unavailableOnRedisError(
      (async () => {
        const changes: AccessChange[] = [];
        let next = cursor;
        let expected = version + 1;
        for (;;) {
          const entries = (await this.client.xrange(this.keys.changes, `(${next}`, '+', 'COUNT', CHANGE_BATCH)) as StreamEntries;
          for (const [id, fields] of entries) {
            const change = this.parseChange(fields);
            next = id;
            if (change.version < expected) continue;
            if (change.version !== expected) return 'gap';
            changes.push(change);
            expected += 1;
          }
          if (entries.length < CHANGE_BATCH) break;
        }
        // Changes trimmed away (an instance long cut off) leave the version ahead of the stream.
        const current = this.parseVersion(await this.client.get(this.keys.version));
        if (current > expected - 1 && changes.length === 0) return 'gap';
        this.knownVersion = Math.max(this.knownVersion, expected - 1);
        return { changes, cursor: next };
      })(),
    );
  }

  async commit(change: AccessCommit): Promise<number> {
    const wire = JSON.stringify(change.ops.map(toWire));
    const reply = (await unavailableOnRedisError(
      this.client.eval(
        COMMIT_SCRIPT,
        9,
        ...this.scriptKeys(),
        this.keys.records.admin,
        this.keys.records.change,
        change.expectedVersion === undefined ? '' : String(change.expectedVersion),
        String(this.knownVersion),
        this.channel,
        wire,
        ...this.auditArgs(change.audit),
        String(this.changeRetentionMs),
      ),
    )) as ScriptReply;
    return this.written(reply, change.expectedVersion);
  }

  async replaceAll(records: AccessRecords, change: AccessReplaceAll): Promise<LoadedAccess> {
    const reply = await this.swap('replace', records, change.expectedVersion === undefined ? '' : String(change.expectedVersion), change.audit);
    const version = await this.written(reply, change.expectedVersion);
    return { version, cursor: String(reply[4]) };
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    this.poller ??= setInterval(() => {
      this.check().catch((err: unknown) => this.logger.debug({ err }, 'access config version check failed'));
    }, this.pollIntervalMs).unref();
    return () => {
      this.listeners.delete(onChange);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  async close(): Promise<void> {
    this.stopPolling();
    this.listeners.clear();
    this.client.off('ready', this.onClientReady);
    this.subscriber.off('ready', this.onSubscriberReady);
    this.subscriber.off('message', this.onMessage);
    await Promise.all([closeRedisClient(this.client), closeRedisClient(this.subscriber)]);
  }

  private readonly onClientReady = (): void => {
    // Back after an outage: catch up at once on changes made meanwhile, or heal an empty Redis.
    this.check().catch((err: unknown) => this.logger.warn({ err }, 'access config version check failed'));
  };

  private readonly onSubscriberReady = (): void => {
    // Messages published while the subscriber was away are lost: check the version as well.
    this.subscriber
      .subscribe(this.channel)
      .then(() => this.check())
      .catch((err: unknown) => this.logger.warn({ err }, 'could not resubscribe to access config changes and check the version'));
  };

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel === this.channel && Number(message) !== this.knownVersion) this.notify();
  };

  /** Compares the version in Redis with the last one seen; overlapping calls share one check. */
  private check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        const version = this.parseVersion(await this.client.get(this.keys.version));
        if (version < this.knownVersion) await this.heal();
        else if (version !== this.knownVersion) this.notify();
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  /**
   * Redis holds an older version than this instance: it restarted empty (it runs without
   * persistence), or failed over to a replica that lagged behind. Every instance writes its last
   * good copy back and the restore keeps the newest, so the fleet heals without an operator and a
   * freshly started instance's seed never wins over the copy the fleet was serving.
   */
  private async heal(): Promise<void> {
    const copy = this.lastGoodCopy();
    if (!copy) return;
    const [written] = await this.swap('restore', copy.records, String(copy.version), null);
    if (written === 1) this.logger.warn({ version: copy.version }, 'Redis had lost the access config; wrote back the last good copy');
    this.notify();
  }

  private async writeSeed(seed: AccessDocument): Promise<void> {
    const [written] = await this.swap('restore', documentToRecords(seed), '1', null);
    if (written === 1) this.logger.info('Redis held no access config; wrote the seed');
  }

  private async migrateLegacyDocument(): Promise<void> {
    const json = await this.client.get(this.keys.legacyDocument);
    if (json === null) return;
    const version = this.parseVersion(await this.client.get(this.keys.version));
    const document = this.parseLegacyDocument(json, version);
    const [written] = await this.swap('migrate', documentToRecords(document), String(version), null);
    if (written === 1) this.logger.info({ version }, 'moved the single-document access config into records');
  }

  /** Stages the records in chunks under private keys, then one script swaps them in. */
  private async swap(mode: 'replace' | 'restore' | 'migrate', records: AccessRecords, version: string, audit: AuditEntryInput | null): Promise<ScriptReply> {
    const stage = `${this.keys.version.slice(0, -':version'.length)}:stage:${randomBytes(8).toString('hex')}`;
    const staged = {
      vendor: `${stage}:vendors`,
      key: `${stage}:keys`,
      user: `${stage}:users`,
      keyhash: `${stage}:keyhash`,
      admin: `${stage}:admins`,
      change: `${stage}:pending`,
    };
    const write = async (key: string, entries: Iterable<[string, string]>): Promise<void> => {
      let chunk: string[] = [];
      const flush = async (): Promise<void> => {
        if (chunk.length === 0) return;
        // A pipeline answers each command's error in its results rather than failing: a chunk
        // lost to a dropped connection must stop the swap, not let it swap in a partial config.
        const results = await this.client.pipeline().hset(key, ...chunk).pexpire(key, STAGE_TTL_MS).exec();
        const failed = (results ?? []).find(([err]) => err !== null)?.[0];
        if (failed) throw failed;
        chunk = [];
      };
      for (const [field, value] of entries) {
        chunk.push(field, value);
        if (chunk.length >= BATCH * 2) await flush();
      }
      await flush();
    };
    try {
      await unavailableOnRedisError(
        (async () => {
          // Records of a validated document or of a store: schema output already. Serialised a
          // chunk at a time, so 100,000 keys never sit in memory as text all at once.
          const asJson = function* <K extends RecordKind>(kind: K, items: readonly RecordValues[K][]): Iterable<[string, string]> {
            for (const item of items) yield [item.id, canonicalJson(kind, item)];
          };
          await write(staged.vendor, asJson('vendor', records.vendors));
          await write(staged.key, asJson('key', records.keys));
          await write(staged.user, asJson('user', records.users));
          await write(
            staged.keyhash,
            (function* () {
              for (const key of records.keys) yield [key.hash, key.id] as [string, string];
            })(),
          );
          // Only a copy written back or moved in carries them; a whole-document write never does.
          if (mode !== 'replace') {
            await write(staged.admin, asJson('admin', records.admins ?? []));
            await write(staged.change, asJson('change', records.changes ?? []));
          }
        })(),
      );
      const reply = (await unavailableOnRedisError(
        this.client.eval(
          SWAP_SCRIPT,
          16,
          ...this.scriptKeys(),
          staged.vendor,
          staged.key,
          staged.user,
          staged.keyhash,
          this.keys.legacyDocument,
          this.keys.records.admin,
          this.keys.records.change,
          staged.admin,
          staged.change,
          mode,
          version,
          String(this.knownVersion),
          this.channel,
          ...this.auditArgs(audit),
          String(this.changeRetentionMs),
        ),
      )) as ScriptReply;
      // A whole-document write leaves it to its writer to serve what it wrote (see AccessCache.adopt).
      if (reply[0] === 1) {
        this.knownVersion = Math.max(this.knownVersion, reply[1]);
        if (mode !== 'replace') this.notify();
      }
      return reply;
    } finally {
      await this.client.del(...Object.values(staged)).catch(() => undefined);
    }
  }

  /** The keys both change scripts start with, in their order. */
  private scriptKeys(): string[] {
    const { version, records, changes, audit } = this.keys;
    return [version, records.vendor, records.key, records.user, records.keyhash, changes, audit];
  }

  private auditArgs(audit: AuditEntryInput | null): [string, string, string] {
    if (!audit || !this.audit) return ['', '0', '0'];
    return [this.audit.serialize(audit), String(this.audit.retentionMs), String(this.audit.maxEntries)];
  }

  /** Turns a script's reply into the new version, or the error it stands for. */
  private async written(reply: ScriptReply, expectedVersion: number | undefined): Promise<number> {
    const [status, version] = reply;
    if (status === 1) {
      const early = Number(reply[3] ?? 0);
      if (early > 0) this.audit?.onTrimmedEarly?.(early);
      this.knownVersion = Math.max(this.knownVersion, version);
      this.notify();
      return version;
    }
    if (status === -1) throw new RecordConflictError('changed', reply[2] as RecordKind, String(reply[3]));
    if (status === -2) throw new RecordConflictError('no_vendor', 'vendor', String(reply[3]));
    if (status === -3) throw new RecordConflictError('duplicate_key_hash', 'key', String(reply[3]));
    // -4: Redis is behind this instance (it lost data): heal first, then the caller retries.
    if (status === -4) await this.check();
    throw new VersionConflictError(expectedVersion ?? version, version);
  }

  private async head(): Promise<{ version: number; cursor: string }> {
    const [version, cursor] = (await this.client.eval(HEAD_SCRIPT, 3, this.keys.version, this.keys.changes, this.keys.legacyDocument)) as [number, string, number];
    return { version, cursor };
  }

  private parseVersion(text: string | null): number {
    if (text === null) return 0;
    const version = Number(text);
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new InvalidAccessDocumentError(`Redis key ${this.keys.version} holds "${text.slice(0, 40)}", not a version number`);
    }
    return version;
  }

  private parseRecord(kind: RecordKind, json: string, id: string): unknown {
    const where = `the ${kind} record "${id.slice(0, 64)}" in Redis (key ${this.keys.records[kind]})`;
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      throw new InvalidAccessDocumentError(`${where} is not valid JSON`);
    }
    const result = RECORD_SCHEMAS[kind].safeParse(raw);
    if (!result.success) throw new InvalidAccessDocumentError(`${where} is invalid:\n${describeIssues(result.error)}`);
    return result.data;
  }

  private parseChange(fields: string[]): AccessChange {
    const field = (name: string): string | undefined => {
      const at = fields.indexOf(name);
      return at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
    };
    const version = Number(field('v'));
    if (field('reload') !== undefined) return { version, ops: null };
    let wire: WireOp[];
    try {
      wire = JSON.parse(field('ops') ?? '[]') as WireOp[];
    } catch {
      throw new InvalidAccessDocumentError(`the change to version ${version} in Redis (key ${this.keys.changes}) is not valid JSON`);
    }
    const ops = wire.map((op) => ({ kind: op.k, id: op.id, value: op.v === '' ? null : this.parseRecord(op.k, op.v, op.id) }) as AccessOp);
    return { version, ops };
  }

  private parseLegacyDocument(json: string, version: number): AccessDocument {
    const where = `the access document in Redis (key ${this.keys.legacyDocument}, version ${version})`;
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      throw new InvalidAccessDocumentError(`${where} is not valid JSON`);
    }
    const result = accessDocumentSchema.safeParse(raw);
    if (!result.success) throw new InvalidAccessDocumentError(`${where} is invalid:\n${describeIssues(result.error)}`);
    return result.data;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }
}
