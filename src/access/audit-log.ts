/**
 * The admin audit log: who changed what, when, with the state before and after. Two stores
 * behind one interface: in memory (sandbox mode) and a Redis Stream (shared by every instance).
 *
 * Retention (config `audit`): every entry is kept at least `retentionDays`; entries older than
 * that are trimmed when a new one is written. `maxEntries` is a second guard on the size: when
 * it has to trim entries younger than `retentionDays`, `onTrimmedEarly` is told how many (the
 * metric gateway_audit_trimmed_before_retention_total and its alert), so no entry is lost
 * silently. `range` reads oldest first from a date on, for `gatewayctl audit export`; `page` reads
 * newest first, filtered by vendor, actor, action and time (audit-filter.ts: batches of XREVRANGE
 * whose id bounds are the time range, up to a scan budget).
 *
 * Why a stream: its ids are times, so trimming by age (XTRIM MINID) and reading from a date
 * (XRANGE) cost O(log n) plus what they touch, and a page cursor is the id itself, where a list
 * had to be scanned. Entry ids are the stream ids (`<ms>-<seq>`); the memory store makes the
 * same shape. The stream lives in the access config's slot (`{access}:audit`), so an access
 * change and its entry are written by one script. Entries of the earlier keys (the list
 * `{audit}:log`, the stream `{audit}:stream`) are moved in, oldest first, at start and by each
 * append, so an upgrade (old pods still writing them) loses none.
 *
 * Reads and writes its own store; sets nothing else. Entries are scrubbed before they are
 * kept: properties named like secrets are dropped and anything shaped like a vendor API key
 * is masked, a second line of defence behind callers that never pass a secret in.
 */
import type { RedisClient } from '../redis/redis-client';
import { auditSchema, type AuditConfig } from './audit-log.schema';
import { AUDIT_APPEND_SCRIPT } from './lua/audit-append';
import { scanPage, storedTextMayMatch, withVendorIds, type StoredAuditEntry } from './audit-filter';

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
  /**
   * The vendors the change concerns, sorted, each once: a key's vendor, the vendors whose keys
   * act as a user whose permissions changed, every vendor a whole-document change touched; []
   * for admin accounts and sign-ins. Entries written before the field existed read as [].
   */
  readonly vendorIds: readonly string[];
  readonly before: unknown;
  readonly after: unknown;
  /**
   * Four eyes: who made the change and when, who approved it and when; or, for a change that
   * only reduces access, that it applied without approval.
   */
  readonly approval?: unknown;
}

/** What a writer hands in; `vendorIds` left out means none (sign-ins, admin accounts). */
export type AuditEntryInput = Omit<AuditEntry, 'id' | 'at' | 'vendorIds'> & { readonly vendorIds?: readonly string[] };

/** What `GET /v1/audit` filters by; each one left out matches every entry. */
export interface AuditFilter {
  /** A vendor id the entry names in `vendorIds` (older entries: their target is `vendors/<id>` or below). */
  readonly vendor?: string;
  /** `admin:otto`, or `otto` for any actor of that id. */
  readonly actor?: string;
  /** `key.revoke`, or `key` for every action of that family. */
  readonly action?: string;
  /** Written at or after this time (ms since the epoch). */
  readonly sinceMs?: number;
  /** Written at or before this time (ms since the epoch). */
  readonly untilMs?: number;
}

export interface AuditQuery extends AuditFilter {
  readonly limit: number;
  /** An entry id: list the entries older than it (the next page). Not an entry id: nothing. */
  readonly before?: string;
}

/** A page of the log, newest first; `next` is the `before` cursor of the next page, null at the end. */
export interface AuditPage {
  readonly items: AuditEntry[];
  readonly next: string | null;
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
  /** Newest first: the entries of `page`. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Newest first, filtered, scanning at most AUDIT_SCAN_BUDGET entries: a page may hold fewer
   * than `limit` entries and still have a `next` (the scan stopped, not the log).
   */
  page(query: AuditQuery): Promise<AuditPage>;
  /** Oldest first, for the archive export. */
  range(query: AuditRangeQuery): Promise<AuditEntry[]>;
}

export interface AuditLogOptions {
  readonly retention?: AuditConfig;
  /** Told how many entries younger than retentionDays the maxEntries guard trimmed. */
  readonly onTrimmedEarly?: (count: number) => void;
}

const DEFAULT_AUDIT_RETENTION: AuditConfig = auditSchema.parse({});
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
    vendorIds: [...new Set(input.vendorIds ?? [])].sort(),
    before: scrub(input.before) ?? null,
    after: scrub(input.after) ?? null,
    ...(input.approval === undefined ? {} : { approval: scrub(input.approval) }),
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
    return (await this.page(query)).items;
  }

  async page(query: AuditQuery): Promise<AuditPage> {
    if (query.before !== undefined && !idKey(query.before)) return { items: [], next: null };
    const { sinceMs = 0, untilMs = Infinity } = query;
    return scanPage(query, async (before, count) => {
      const cursor = before === undefined ? null : (idKey(before) as [number, number]);
      let end = this.entries.length;
      if (cursor) {
        end = this.entries.findIndex((e) => !idBefore(idKey(e.id) as [number, number], cursor));
        if (end < 0) end = this.entries.length;
      }
      const out: AuditEntry[] = [];
      for (let i = end - 1; i >= 0 && out.length < count; i--) {
        const entry = this.entries[i] as AuditEntry;
        const ms = (idKey(entry.id) as [number, number])[0];
        if (ms < sinceMs) break;
        if (ms <= untilMs) out.push(entry);
      }
      return out;
    });
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

interface RedisAuditLogOptions extends AuditLogOptions {
  /** Prepended to the hash-tagged keys: `cbg:` gives `cbg:{access}:audit`. */
  readonly keyPrefix: string;
}

/** How many entries of the earlier keys one migration step moves. */
const MIGRATION_BATCH = 500;

type StreamEntries = Array<[string, string[]]>;

/** What the Redis audit stream needs to write an entry, for a script that writes one too. */
export interface AuditStreamTarget {
  readonly key: string;
  readonly retentionMs: number;
  readonly maxEntries: number;
  /** Told how many entries younger than the retention the count guard trimmed. */
  readonly onTrimmedEarly?: (count: number) => void;
  /** Serialises an entry as the stream stores it (scrubbed, timestamped). */
  serialize(input: AuditEntryInput): string;
}

export class RedisAuditLog implements AuditLog, AuditStreamTarget {
  /** In the access config's slot, so the access store writes a change and its entry atomically. */
  readonly key: string;
  /** Where entries were kept before (a list, then a stream of its own slot); moved in by `migrate`. */
  readonly legacyListKey: string;
  readonly legacyStreamKey: string;
  readonly retentionMs: number;
  readonly maxEntries: number;
  readonly onTrimmedEarly: ((count: number) => void) | undefined;

  constructor(
    private readonly redis: RedisClient,
    options: RedisAuditLogOptions,
  ) {
    this.key = `${options.keyPrefix}{access}:audit`;
    this.legacyListKey = `${options.keyPrefix}{audit}:log`;
    this.legacyStreamKey = `${options.keyPrefix}{audit}:stream`;
    const retention = options.retention ?? DEFAULT_AUDIT_RETENTION;
    this.retentionMs = retention.retentionDays * DAY_MS;
    this.maxEntries = retention.maxEntries;
    this.onTrimmedEarly = options.onTrimmedEarly;
  }

  serialize(input: AuditEntryInput): string {
    return JSON.stringify(newEntry(input));
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    await this.migrate();
    const stored = newEntry(input);
    const [id, early] = (await this.redis.eval(
      AUDIT_APPEND_SCRIPT,
      1,
      this.key,
      JSON.stringify(stored),
      String(this.retentionMs),
      String(this.maxEntries),
    )) as [string, number];
    if (early > 0) this.onTrimmedEarly?.(early);
    return { id, ...stored };
  }

  /**
   * Moves entries of the earlier keys in, oldest first, keeping their stream ids where they still
   * sort last. The earlier keys sit in another cluster slot, so this runs as separate commands;
   * each entry is deleted only after it is copied, so an upgrade (old pods still writing) loses
   * none. Called at start and before each append.
   */
  async migrate(): Promise<number> {
    let moved = 0;
    for (;;) {
      const old = (await this.redis.xrange(this.legacyStreamKey, '-', '+', 'COUNT', MIGRATION_BATCH)) as StreamEntries;
      if (old.length === 0) break;
      for (const [id, fields] of old) {
        await this.redis.xadd(this.key, (await this.sortsLast(id)) ? id : '*', 'e', fields[1] ?? '{}');
        await this.redis.xdel(this.legacyStreamKey, id);
        moved += 1;
      }
    }
    for (;;) {
      const entry = await this.redis.rpop(this.legacyListKey);
      if (entry === null) break;
      await this.redis.xadd(this.key, '*', 'e', entry);
      moved += 1;
    }
    return moved;
  }

  private async sortsLast(id: string): Promise<boolean> {
    const [last] = (await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1)) as StreamEntries;
    const lastKey = last ? idKey(last[0]) : null;
    const key = idKey(id);
    return key !== null && (lastKey === null || idBefore(lastKey, key));
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    return (await this.page(query)).items;
  }

  /** Filtered pages read the stream in batches of XREVRANGE from the cursor; the time range is the id range. */
  async page(query: AuditQuery): Promise<AuditPage> {
    if (query.before !== undefined && !idKey(query.before)) return { items: [], next: null };
    // An id of whole milliseconds: `<ms>` as an end takes every sequence of that millisecond.
    const start = query.sinceMs === undefined ? '-' : String(Math.max(0, Math.ceil(query.sinceMs)));
    const until = query.untilMs === undefined ? null : Math.floor(query.untilMs);
    if (until !== null && until < 0) return { items: [], next: null };
    const mayMatch = storedTextMayMatch(query);
    return scanPage(query, async (before, count) => {
      const cursor = before === undefined ? null : (idKey(before) as [number, number]);
      const end = cursor && (until === null || cursor[0] <= until) ? `(${before}` : until === null ? '+' : String(until);
      const raw = (await this.redis.xrevrange(this.key, end, start, 'COUNT', count)) as StreamEntries;
      // Entries that cannot match are passed on as their ids: counted as scanned, never parsed.
      return raw.map((one) => (mayMatch(one[1][1] ?? '') ? (this.parseStored([one])[0] as StoredAuditEntry) : one[0]));
    });
  }

  async range(query: AuditRangeQuery): Promise<AuditEntry[]> {
    if (query.after !== undefined && !idKey(query.after)) return [];
    const start = query.after === undefined ? `${Math.max(0, Math.floor(query.sinceMs))}-0` : `(${query.after}`;
    const entries = this.parse((await this.redis.xrange(this.key, start, '+', 'COUNT', query.limit)) as StreamEntries);
    // An `after` cursor from before `since` must not widen the export.
    return entries.filter((e) => (idKey(e.id) as [number, number])[0] >= query.sinceMs);
  }

  private parse(raw: StreamEntries): AuditEntry[] {
    return this.parseStored(raw).map(withVendorIds);
  }

  private parseStored(raw: StreamEntries): StoredAuditEntry[] {
    return raw.map(([id, fields]) => {
      // Entries moved from the list still carry their old UUID; the stream id replaces it.
      const { id: _old, ...stored } = JSON.parse(fields[1] ?? '{}') as StoredAuditEntry;
      return { id, ...stored };
    });
  }
}
