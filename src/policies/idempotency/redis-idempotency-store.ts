/**
 * The idempotency store in Redis: one record per key, shared by every gateway instance.
 *
 * Layout: `<prefix>idem:{<key>}`, one Redis string of bytes (fingerprints are the raw HMAC):
 *   in flight   'F', fingerprint length (1 byte), fingerprint, deadline (8-byte double, ms), token
 *   unknown     'U', fingerprint length, fingerprint, token
 *   completed   'C', fingerprint length, fingerprint, then the answer (redis-idempotency-record.ts:
 *               status, content type, Location, the body with a receipt's names coded in a byte
 *               or two); no token: a completed record is settled for good.
 * A completed deposit takes 232–344 bytes of Redis memory (MEMORY USAGE, key included, for the
 * sandbox's and the bench core's receipts in JSON and XML), where the hash this layout replaced
 * took 923–1,595: the body, a value over 64 bytes, put the hash out of Redis's compact listpack
 * encoding. Settling is one GET and one SET, where the hash took four commands.
 *
 * The key is already a hex digest (the step hashes vendor, API id and the vendor's key), so its
 * hash tag holds no character that could break out of the braces; each script touches that one key,
 * so every operation runs in one cluster slot. Each operation is one Lua script, hence
 * atomic: the claim is a SET NX in spirit (SET only when the key does not exist) with a TTL,
 * and it reads Redis's own clock, so instances with skewed clocks agree on deadlines.
 *
 * A rolling upgrade shares Redis between this layout and the one before: a hash with `state`,
 * `fingerprint` (hex), `token`, `deadline`, `status`, `contentType`, `body` and `location`. Its
 * records stay readable here for their whole retention: the claim replays a completed hash byte
 * for byte, and moves an in-flight one past its deadline to unknown as a hash, so that the older
 * instance that owns it can still settle it (this code's settling scripts never own a hash). An
 * older instance that meets a record of this layout fails on it (WRONGTYPE) and answers 503
 * `store_unavailable` with Retry-After: it never posts the key again, and the retry reaches an
 * upgraded instance.
 *
 * With an epoch watch (see redis/store-epoch.ts) the claim also reads the epoch marker and the
 * store sequence beside it, in the same script: a marker gone or changed means Redis lost its
 * data since this instance last looked (FLUSHALL on a live connection, a failover to an empty
 * replica, eviction), and a sequence lower than the highest this instance has seen, or this
 * instance's own high-water key (written by its claims alone) gone or lower than its last claim
 * wrote, means Redis came back from a stale copy (same marker, newest records gone); either way the claim answers
 * `store_lost` and writes nothing, so the loss is caught at the first keyed request instead of
 * at the next poll. Otherwise the claim counts the sequence up (INCR) and returns it, and the
 * watch keeps the highest. Not on a Cluster: the marker and the record live in different
 * slots, and a script may touch one; there the poll alone notices a loss.
 *
 * Works with clients created with `enableOfflineQueue: false` and a short `commandTimeout`:
 * with Redis gone every call rejects at once, and the step answers 503 `store_unavailable`.
 */
import type { Cluster, Redis } from 'ioredis';
import type { ClaimOutcome, IdempotencyStore, IdempotencyTimings, StoredResponse } from './idempotency-store';
import { completedRecord, responseOfRecord } from './redis-idempotency-record';

// Every script reads the record with GET: a record of this layout is a string, one of the layout
// before it a hash (GET fails on it: WRONGTYPE), which the claim still reads and keeps as it is.
// `owner` is the token of an in-flight or unknown record; a completed one has none.
const OWNER = `
local function owner(record)
  local state, n = string.sub(record, 1, 1), string.byte(record, 2)
  if state == 'F' then return string.sub(record, n + 11) end
  if state == 'U' then return string.sub(record, n + 3) end
  return nil
end
`;

// KEYS: record[, epoch marker, store sequence, this instance's own sequence key]. ARGV: fingerprint, token, in-flight ms,
// retention ms[, the marker id this instance knows, the highest sequence it has seen, the least its own key must hold,
// the own key's TTL ms]. With the marker, the reply's second element is the new sequence.
const CLAIM = `
local seq = nil
if KEYS[2] then
  local marker = redis.call('GET', KEYS[2])
  local ok, decoded = pcall(cjson.decode, marker or '')
  if not ok or type(decoded) ~= 'table' or decoded['id'] ~= ARGV[5] then return {'store_lost'} end
  if (tonumber(redis.call('GET', KEYS[3]) or '0') or 0) < tonumber(ARGV[6]) then return {'store_lost'} end
  if (tonumber(redis.call('GET', KEYS[4]) or '0') or 0) < tonumber(ARGV[7]) then return {'store_lost'} end
  seq = redis.call('INCR', KEYS[3])
  redis.call('SET', KEYS[4], seq, 'PX', ARGV[8])
end
local fingerprint = ARGV[1]
local function now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
-- A hash: written by an instance of the layout before, which may still settle it, so it stays a hash.
local function claimHash()
  local hex = string.gsub(fingerprint, '.', function(c) return string.format('%02x', string.byte(c)) end)
  local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'deadline', 'status', 'contentType', 'body', 'location')
  if record[2] ~= hex then return {'mismatch'} end
  if record[1] == 'completed' then return {'completed_hash', record[4], record[5], record[6], record[7]} end
  if record[1] == 'in_flight' then
    if now() < tonumber(record[3]) then return {'in_flight'} end
    redis.call('HSET', KEYS[1], 'state', 'unknown')
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
  end
  return {'unknown'}
end
local function claim()
  local record = redis.pcall('GET', KEYS[1])
  if type(record) == 'table' then return claimHash() end
  if not record then
    local inFlightMs = tonumber(ARGV[3])
    redis.call('SET', KEYS[1], 'F' .. string.char(#fingerprint) .. fingerprint .. struct.pack('>d', now() + inFlightMs) .. ARGV[2], 'PX', inFlightMs + tonumber(ARGV[4]))
    return {'claimed'}
  end
  local n = string.byte(record, 2)
  if string.sub(record, 3, n + 2) ~= fingerprint then return {'mismatch'} end
  local state = string.sub(record, 1, 1)
  if state == 'C' then return {'completed', record} end
  if state == 'F' then
    if now() < struct.unpack('>d', record, n + 3) then return {'in_flight'} end
    redis.call('SET', KEYS[1], 'U' .. string.sub(record, 2, n + 2) .. string.sub(record, n + 11), 'PX', ARGV[4])
  end
  return {'unknown'}
end
local result = claim()
if seq then table.insert(result, 2, seq) end
return result
`;

// KEYS: record. ARGV: token, the completed record (redis-idempotency-record.ts), retention ms.
// Written also when the record vanished meanwhile: the outcome is known, keeping it is safer.
const COMPLETE = `${OWNER}
local record = redis.pcall('GET', KEYS[1])
if type(record) == 'table' then return 0 end
if record and owner(record) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

// KEYS: record. ARGV: token.
const RELEASE = `${OWNER}
local record = redis.pcall('GET', KEYS[1])
if type(record) ~= 'string' or owner(record) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

// KEYS: record. ARGV: token, fingerprint, retention ms.
const MARK_UNKNOWN = `${OWNER}
local record = redis.pcall('GET', KEYS[1])
if type(record) == 'table' then return 0 end
if record and owner(record) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 'U' .. string.char(#ARGV[2]) .. ARGV[2] .. ARGV[1], 'PX', ARGV[3])
return 1
`;

/** The scripts as ioredis defines them (EVALSHA, falling back to EVAL once per connection). */
interface ScriptCommands {
  cbgIdempotencyClaimBuffer(key: string, fingerprint: Buffer, token: string, inFlightMs: number, retentionMs: number): Promise<Array<Buffer | null>>;
  cbgIdempotencyClaimInEpochBuffer(
    key: string,
    epochKey: string,
    seqKey: string,
    ownSeqKey: string,
    fingerprint: Buffer,
    token: string,
    inFlightMs: number,
    retentionMs: number,
    epochId: string,
    highestSeq: number,
    ownSeqExpected: number,
    ownSeqTtlMs: number,
  ): Promise<Array<Buffer | number | null>>;
  cbgIdempotencyComplete(key: string, token: string, record: Buffer, retentionMs: number): Promise<number>;
  cbgIdempotencyRelease(key: string, token: string): Promise<number>;
  cbgIdempotencyMarkUnknown(key: string, token: string, fingerprint: Buffer, retentionMs: number): Promise<number>;
}

interface RedisIdempotencyStoreOptions {
  /** The deployment's key prefix (config `redis.keyPrefix`). */
  readonly keyPrefix: string;
  readonly timings: IdempotencyTimings;
  /** The epoch marker the claim checks; none (or a Cluster client): claims do not look at it. */
  readonly epoch?: EpochWatch;
}

/** The epoch marker as this instance knows it (see redis/store-epoch.ts). */
export interface EpochWatch {
  /** The marker's Redis key. */
  readonly key: string;
  /** The store sequence's Redis key (beside the marker). */
  readonly seqKey: string;
  /** This instance's own high-water key, which only its claims write (a stale copy has it lower or gone). */
  readonly ownSeqKey: string;
  /** The own key's TTL, longer than a record lives. */
  readonly ownSeqTtlMs: number;
  /** The marker id this instance adopted; null before it has read one (claims then skip the check). */
  currentId(): string | null;
  /** The highest store sequence this instance has seen under that marker. */
  highestSeq(): number;
  /** The least this instance's own key must hold (what its last claim wrote; 0 when nothing is left to protect). */
  ownSeqExpected(): number;
  /** A claim under marker `epochId` counted the sequence up to `seq`. */
  seqSeen(epochId: string, seq: number): void;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly commands: ScriptCommands;
  private readonly epoch: EpochWatch | undefined;

  constructor(
    client: Redis | Cluster,
    private readonly options: RedisIdempotencyStoreOptions,
  ) {
    client.defineCommand('cbgIdempotencyClaim', { numberOfKeys: 1, lua: CLAIM });
    client.defineCommand('cbgIdempotencyClaimInEpoch', { numberOfKeys: 4, lua: CLAIM });
    client.defineCommand('cbgIdempotencyComplete', { numberOfKeys: 1, lua: COMPLETE });
    client.defineCommand('cbgIdempotencyRelease', { numberOfKeys: 1, lua: RELEASE });
    client.defineCommand('cbgIdempotencyMarkUnknown', { numberOfKeys: 1, lua: MARK_UNKNOWN });
    this.commands = client as unknown as ScriptCommands;
    this.epoch = client.isCluster ? undefined : options.epoch;
  }

  /** The Redis key of an idempotency key's record. */
  recordKey(key: string): string {
    return `${this.options.keyPrefix}idem:{${key}}`;
  }

  async claim(key: string, fingerprint: Buffer, token: string): Promise<ClaimOutcome> {
    const { inFlightMs, retentionMs } = this.options.timings;
    const { epoch } = this;
    const epochId = epoch?.currentId() ?? null;
    let reply: Array<Buffer | number | null>;
    if (epoch && epochId !== null) {
      const { key: epochKey, seqKey, ownSeqKey, ownSeqTtlMs } = epoch;
      const inEpoch = await this.commands.cbgIdempotencyClaimInEpochBuffer(
        this.recordKey(key),
        epochKey,
        seqKey,
        ownSeqKey,
        fingerprint,
        token,
        inFlightMs,
        retentionMs,
        epochId,
        epoch.highestSeq(),
        epoch.ownSeqExpected(),
        ownSeqTtlMs,
      );
      // Every reply but store_lost carries the new sequence second: keep it, and read the rest as without the marker.
      if (inEpoch.length > 1) {
        epoch.seqSeen(epochId, Number(inEpoch[1]));
        inEpoch.splice(1, 1);
      }
      reply = inEpoch;
    } else {
      reply = await this.commands.cbgIdempotencyClaimBuffer(this.recordKey(key), fingerprint, token, inFlightMs, retentionMs);
    }
    const kind = reply[0]?.toString();
    switch (kind) {
      case 'store_lost':
        return { kind, epochId: epochId ?? '' };
      case 'claimed':
      case 'in_flight':
      case 'unknown':
      case 'mismatch':
        return { kind };
      case 'completed':
        return { kind, response: responseOfRecord(reply[1] as Buffer) };
      case 'completed_hash': {
        // A record of the layout before (a hash). Those written before Location was kept have no field (null); none is ''.
        const location = reply[4]?.toString() || undefined;
        const body = reply[3];
        return {
          kind: 'completed',
          response: {
            status: Number(reply[1]?.toString()),
            contentType: reply[2]?.toString() ?? '',
            body: Buffer.isBuffer(body) ? body : Buffer.alloc(0),
            ...(location ? { location } : {}),
          },
        };
      }
      default:
        throw new Error(`unexpected idempotency claim reply: ${String(kind)}`);
    }
  }

  async complete(key: string, fingerprint: Buffer, token: string, response: StoredResponse): Promise<void> {
    await this.commands.cbgIdempotencyComplete(this.recordKey(key), token, completedRecord(fingerprint, response), this.options.timings.retentionMs);
  }

  async release(key: string, token: string): Promise<void> {
    await this.commands.cbgIdempotencyRelease(this.recordKey(key), token);
  }

  async markUnknown(key: string, fingerprint: Buffer, token: string): Promise<void> {
    await this.commands.cbgIdempotencyMarkUnknown(this.recordKey(key), token, fingerprint, this.options.timings.retentionMs);
  }
}
