/**
 * The idempotency store in Redis: one record per key, shared by every gateway instance.
 *
 * Layout: `<prefix>idem:{<key>}`, a hash with `state`, `fingerprint`, `token`, `deadline`
 * and, once completed, `status`, `contentType`, `body` (the response bytes) and `location`
 * (empty when the answer had none). The key is
 * already a hex digest (the step hashes vendor, API id and the vendor's key), so its hash tag
 * holds no character that could break out of the braces; each script touches that one key,
 * so every operation runs in one cluster slot. Each operation is one Lua script, hence
 * atomic: the claim is a SET NX in spirit (HSET only when the hash does not exist) with a TTL,
 * and it reads Redis's own clock, so instances with skewed clocks agree on deadlines.
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
local function claim()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'deadline', 'status', 'contentType', 'body', 'location')
local state = record[1]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'in_flight', 'fingerprint', ARGV[1], 'token', ARGV[2], 'deadline', string.format('%.0f', now + tonumber(ARGV[3])))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
  return {'claimed'}
end
if record[2] ~= ARGV[1] then return {'mismatch'} end
if state == 'completed' then return {'completed', record[4], record[5], record[6], record[7]} end
if state == 'in_flight' then
  if now < tonumber(record[3]) then return {'in_flight'} end
  redis.call('HSET', KEYS[1], 'state', 'unknown')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return {'unknown'}
end
local result = claim()
if seq then table.insert(result, 2, seq) end
return result
`;

// KEYS: record. ARGV: token, fingerprint, status, content type, body, retention ms, location ('' for none).
// Written also when the record vanished meanwhile: the outcome is known, keeping it is safer.
const COMPLETE = `
local owner = redis.call('HGET', KEYS[1], 'token')
if owner and owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'completed', 'fingerprint', ARGV[2], 'token', ARGV[1], 'status', ARGV[3], 'contentType', ARGV[4], 'body', ARGV[5], 'location', ARGV[7])
redis.call('HDEL', KEYS[1], 'deadline')
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`;

// KEYS: record. ARGV: token.
const RELEASE = `
local record = redis.call('HMGET', KEYS[1], 'token', 'state')
if record[1] ~= ARGV[1] or record[2] == 'completed' then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

// KEYS: record. ARGV: token, fingerprint, retention ms.
const MARK_UNKNOWN = `
local record = redis.call('HMGET', KEYS[1], 'token', 'state')
if (record[1] and record[1] ~= ARGV[1]) or record[2] == 'completed' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'unknown', 'fingerprint', ARGV[2], 'token', ARGV[1])
redis.call('HDEL', KEYS[1], 'deadline')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** The scripts as ioredis defines them (EVALSHA, falling back to EVAL once per connection). */
interface ScriptCommands {
  cbgIdempotencyClaimBuffer(key: string, fingerprint: string, token: string, inFlightMs: number, retentionMs: number): Promise<Array<Buffer | null>>;
  cbgIdempotencyClaimInEpochBuffer(
    key: string,
    epochKey: string,
    seqKey: string,
    ownSeqKey: string,
    fingerprint: string,
    token: string,
    inFlightMs: number,
    retentionMs: number,
    epochId: string,
    highestSeq: number,
    ownSeqExpected: number,
    ownSeqTtlMs: number,
  ): Promise<Array<Buffer | number | null>>;
  cbgIdempotencyComplete(
    key: string,
    token: string,
    fingerprint: string,
    status: number,
    contentType: string,
    body: Buffer,
    retentionMs: number,
    location: string,
  ): Promise<number>;
  cbgIdempotencyRelease(key: string, token: string): Promise<number>;
  cbgIdempotencyMarkUnknown(key: string, token: string, fingerprint: string, retentionMs: number): Promise<number>;
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

  async claim(key: string, fingerprint: string, token: string): Promise<ClaimOutcome> {
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
      case 'completed': {
        // Records written before Location was kept have no field (null); none is ''.
        const location = reply[4]?.toString() || undefined;
        const body = reply[3];
        return {
          kind,
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

  async complete(key: string, fingerprint: string, token: string, response: StoredResponse): Promise<void> {
    const { status, contentType, body, location } = response;
    await this.commands.cbgIdempotencyComplete(
      this.recordKey(key),
      token,
      fingerprint,
      status,
      contentType,
      body,
      this.options.timings.retentionMs,
      location ?? '',
    );
  }

  async release(key: string, token: string): Promise<void> {
    await this.commands.cbgIdempotencyRelease(this.recordKey(key), token);
  }

  async markUnknown(key: string, fingerprint: string, token: string): Promise<void> {
    await this.commands.cbgIdempotencyMarkUnknown(this.recordKey(key), token, fingerprint, this.options.timings.retentionMs);
  }
}
