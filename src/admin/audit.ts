/**
 * The admin audit log: who changed what, when, with the state before and after. Two stores
 * behind one interface: in memory (sandbox mode) and a Redis Stream (shared by every instance).
 *
 * Retention (config `audit`): every entry is kept at least `retentionDays`; entries older than
 * that are trimmed when a new one is written. `maxEntries` is a second guard on the size: when
 * it has to trim entries younger than `retentionDays`, `onTrimmedEarly` is told how many (the
 * metric gateway_audit_trimmed_before_retention_total and its alert), so no entry is lost
 * silently. `range` reads oldest first from a date on, for `gatewayctl audit export`.
 *
 * Why a stream: its ids are times, so trimming by age (XTRIM MINID) and reading from a date
 * (XRANGE) cost O(log n) plus what they touch, and a page cursor is the id itself, where a list
 * had to be scanned. Entry ids are the stream ids (`<ms>-<seq>`); the memory store makes the
 * same shape. Entries of the earlier Redis list (`{audit}:log`) are moved into the stream, oldest
 * first, by the next append, so an upgrade (old pods still writing the list) loses none.
 *
 * Reads and writes its own store; sets nothing else. Entries are scrubbed before they are
 * kept: properties named like secrets are dropped and anything shaped like a vendor API key
 * is masked, a second line of defence behind callers that never pass a secret in.
 */
import type { RedisClient } from '../redis/redis-client';
import { auditSchema, type AuditConfig } from './audit.schema';

export interface AuditEntry {
  /** `<ms since the epoch>-<sequence>`: ordered as the entries were written. */
  readonly id: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly actor: string;
  /** `vendor.create`, `key.issue`, `access.replace`, ... */
  readonly action: string;
  /** The admin API path of what changed: `vendors/acme`, `keys/key-1`, `access`. */
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
}

export type AuditEntryInput = Omit<AuditEntry, 'id' | 'at'>;

export interface AuditQuery {
  readonly limit: number;
  /** An entry id: list the entries older than it (the next page). Not an entry id: nothing. */
  readonly before?: string;
}

export interface AuditRangeQuery {
  /** Entries written at or after this time (ms since the epoch). */
  readonly sinceMs: number;
  /** An entry id: continue after it (the next page of an export). */
  readonly after?: string;
  readonly limit: number;
}

export interface AuditLog {
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Newest first. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** Oldest first, for the archive export. */
  range(query: AuditRangeQuery): Promise<AuditEntry[]>;
}

export interface AuditLogOptions {
  readonly retention?: AuditConfig;
  /** Told how many entries younger than retentionDays the maxEntries guard trimmed. */
  readonly onTrimmedEarly?: (count: number) => void;
}

export const DEFAULT_AUDIT_RETENTION: AuditConfig = auditSchema.parse({});
const DAY_MS = 86_400_000;
const ENTRY_ID = /^(\d{1,15})-(\d{1,15})$/;

const SECRET_PROPERTIES = new Set(['secret', 'token', 'adminToken', 'password', 'authorization']);
const API_KEY_SHAPE = /cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g;

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(API_KEY_SHAPE, '[redacted]');
  if (Array.isArray(value)) return value.map(scrub);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      if (!SECRET_PROPERTIES.has(name) && inner !== undefined) out[name] = scrub(inner);
    }
    return out;
  }
  return value;
}

type StoredEntry = Omit<AuditEntry, 'id'>;

function newEntry(input: AuditEntryInput): StoredEntry {
  return {
    at: new Date().toISOString(),
    actor: input.actor,
    action: input.action,
    target: input.target,
    before: scrub(input.before) ?? null,
    after: scrub(input.after) ?? null,
  };
}

/** Orders entry ids as the stream does; null for anything that is not one. */
function idKey(id: string): [number, number] | null {
  const m = ENTRY_ID.exec(id);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const idBefore = (a: [number, number], b: [number, number]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class MemoryAuditLog implements AuditLog {
  /** Oldest first; appends are cheap and the list reads it backwards. */
  private readonly entries: AuditEntry[] = [];
  private readonly retention: AuditConfig;
  private last: [number, number] = [0, 0];

  constructor(private readonly options: AuditLogOptions = {}) {
    this.retention = options.retention ?? DEFAULT_AUDIT_RETENTION;
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    const now = Date.now();
    // Like a stream id: the clock, with a sequence when it did not move on.
    this.last = now > this.last[0] ? [now, 0] : [this.last[0], this.last[1] + 1];
    const entry: AuditEntry = { id: `${this.last[0]}-${this.last[1]}`, ...newEntry(input) };
    this.entries.push(entry);
    const oldestKept = now - this.retention.retentionDays * DAY_MS;
    const aged = this.entries.findIndex((e) => (idKey(e.id) as [number, number])[0] >= oldestKept);
    this.entries.splice(0, aged < 0 ? this.entries.length : aged);
    const early = this.entries.length - this.retention.maxEntries;
    if (early > 0) {
      this.entries.splice(0, early);
      this.options.onTrimmedEarly?.(early);
    }
    return entry;
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    let end = this.entries.length;
    if (query.before !== undefined) {
      const before = idKey(query.before);
      if (!before) return [];
      end = this.entries.findIndex((e) => !idBefore(idKey(e.id) as [number, number], before));
      if (end < 0) end = this.entries.length;
    }
    return this.entries.slice(Math.max(0, end - query.limit), end).reverse();
  }

  async range(query: AuditRangeQuery): Promise<AuditEntry[]> {
    const after = query.after === undefined ? null : idKey(query.after);
    if (query.after !== undefined && !after) return [];
    return this.entries
      .filter((e) => {
        const key = idKey(e.id) as [number, number];
        return key[0] >= query.sinceMs && (!after || idBefore(after, key));
      })
      .slice(0, query.limit);
  }
}

export interface RedisAuditLogOptions extends AuditLogOptions {
  /** Prepended to the hash-tagged keys: `cbg:` gives `cbg:{audit}:stream`. */
  readonly keyPrefix: string;
}

/**
 * One atomic append: move the earlier list's entries in (oldest first), add the entry, trim
 * what is older than the retention, then apply the count guard, whose trims are all younger
 * than the retention (the older ones are gone already) and are returned to be counted. Trims
 * are exact (`=`), not `~`: appends are admin actions, rare enough for the exact cost.
 * KEYS: stream, legacy list. ARGV: entry JSON, retention ms, max entries.
 */
const APPEND = `
local moved = 0
while true do
  local old = redis.call('RPOP', KEYS[2])
  if not old then break end
  redis.call('XADD', KEYS[1], '*', 'e', old)
  moved = moved + 1
end
local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('XTRIM', KEYS[1], 'MINID', '=', string.format('%.0f', nowMs - tonumber(ARGV[2])))
local early = redis.call('XTRIM', KEYS[1], 'MAXLEN', '=', tonumber(ARGV[3]))
return {id, early, moved}`;

type StreamEntries = Array<[string, string[]]>;

export class RedisAuditLog implements AuditLog {
  readonly key: string;
  /** The list that held entries before the stream; drained by the next append. */
  readonly legacyKey: string;
  private readonly retention: AuditConfig;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisAuditLogOptions,
  ) {
    this.key = `${options.keyPrefix}{audit}:stream`;
    this.legacyKey = `${options.keyPrefix}{audit}:log`;
    this.retention = options.retention ?? DEFAULT_AUDIT_RETENTION;
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    const stored = newEntry(input);
    const [id, early] = (await this.redis.eval(
      APPEND,
      2,
      this.key,
      this.legacyKey,
      JSON.stringify(stored),
      String(this.retention.retentionDays * DAY_MS),
      String(this.retention.maxEntries),
    )) as [string, number, number];
    if (early > 0) this.options.onTrimmedEarly?.(early);
    return { id, ...stored };
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    if (query.before !== undefined && !idKey(query.before)) return [];
    const end = query.before === undefined ? '+' : `(${query.before}`;
    return this.parse((await this.redis.xrevrange(this.key, end, '-', 'COUNT', query.limit)) as StreamEntries);
  }

  async range(query: AuditRangeQuery): Promise<AuditEntry[]> {
    if (query.after !== undefined && !idKey(query.after)) return [];
    const start = query.after === undefined ? `${Math.max(0, Math.floor(query.sinceMs))}-0` : `(${query.after}`;
    const entries = this.parse((await this.redis.xrange(this.key, start, '+', 'COUNT', query.limit)) as StreamEntries);
    // An `after` cursor from before `since` must not widen the export.
    return entries.filter((e) => (idKey(e.id) as [number, number])[0] >= query.sinceMs);
  }

  private parse(raw: StreamEntries): AuditEntry[] {
    return raw.map(([id, fields]) => {
      // Entries moved from the list still carry their old UUID; the stream id replaces it.
      const { id: _old, ...stored } = JSON.parse(fields[1] ?? '{}') as AuditEntry;
      return { id, ...stored };
    });
  }
}
