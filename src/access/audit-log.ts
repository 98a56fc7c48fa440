/**
 * The admin audit log: who changed what, when, with the state before and after. Two stores
 * behind one interface: in memory (sandbox mode, memory-audit-log.ts) and a Redis Stream (here,
 * shared by every instance).
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
 * The entries form a hash chain with signed checkpoints (audit-chain.ts): each entry carries
 * `prevHash` and `hash`, computed here from the head this instance last saw; the append script
 * (lua/audit-append.ts) writes it only while that is still the head, else it answers the head
 * and the append is computed again (at most APPEND_ATTEMPTS times, then a 503). `checkpoint`
 * writes a signed checkpoint; retention trims only up to one, so trimming never breaks
 * verification.
 *
 * Reads and writes its own store; sets nothing else. Entries are scrubbed before they are
 * kept: properties named like secrets are dropped and anything shaped like a vendor API key
 * is masked, a second line of defence behind callers that never pass a secret in.
 */
import type { RedisClient } from '../redis/redis-client';
import { auditSchema, type AuditConfig } from './audit-log.schema';
import { GENESIS_HASH } from './audit-chain';
import { APPEND_ATTEMPTS, atOrBefore, chained, checkpointEntry, headMovedTooOften, idKey, newEntry, type UnchainedEntry } from './audit-entry';
import { AuditSigner } from './audit-signer';
import { AUDIT_APPEND_SCRIPT } from './lua/audit-append';
import { scanPage, storedTextMayMatch, withVendorIds, type StoredAuditEntry } from './audit-filter';
import type { AuditEntry, AuditEntryInput, AuditHead, AuditLog, AuditLogOptions, AuditPage, AuditQuery, AuditRangeQuery } from './audit-types';

export type { AuditEntry, AuditEntryInput, AuditQuery, AuditLog, AuditLogOptions } from './audit-types';

const DEFAULT_AUDIT_RETENTION: AuditConfig = auditSchema.parse({});
const DAY_MS = 86_400_000;

interface RedisAuditLogOptions extends AuditLogOptions {
  /** Prepended to the hash-tagged keys: `cbg:` gives `cbg:{access}:audit`. */
  readonly keyPrefix: string;
}

/** How many entries of the earlier keys one migration step moves. */
const MIGRATION_BATCH = 500;

type StreamEntries = Array<[string, string[]]>;

/** An entry ready for a script to append: its JSON, and the prevHash the script checks against the head. */
export interface PreparedAuditEntry {
  readonly json: string;
  readonly prevHash: string;
  readonly hash: string;
}

/** What the Redis audit stream needs to write an entry, for a script that writes one too. */
export interface AuditStreamTarget {
  readonly key: string;
  readonly retentionMs: number;
  readonly maxEntries: number;
  /** The entry as the stream stores it (scrubbed, timestamped), chained to the head this instance knows. */
  prepare(input: AuditEntryInput): Promise<PreparedAuditEntry>;
  /** The script found another head (reply fields: hash, count, checkpoint flag): the next prepare chains to it. */
  moved(hash: unknown, count: unknown, checkpoint: unknown): void;
  /** The script wrote the prepared entry: how many it trimmed early, and whether a checkpoint is due. */
  written(entry: PreparedAuditEntry, early: number, needCheckpoint: boolean): void;
  readonly attempts: number;
  headMovedTooOften(): Error;
}

export class RedisAuditLog implements AuditLog, AuditStreamTarget {
  /** In the access config's slot, so the access store writes a change and its entry atomically. */
  readonly key: string;
  readonly headKey: string;
  readonly checkpointsKey: string;
  /** Where entries were kept before (a list, then a stream of its own slot); moved in by `migrate`. */
  readonly legacyListKey: string;
  readonly legacyStreamKey: string;
  readonly retentionMs: number;
  readonly maxEntries: number;
  readonly signer: AuditSigner;
  readonly attempts = APPEND_ATTEMPTS;
  /** The head as this instance last saw it; null until read. A stale one costs one refused append. */
  private known: AuditHead | null = null;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisAuditLogOptions,
  ) {
    this.key = `${options.keyPrefix}{access}:audit`;
    this.headKey = `${this.key}:head`;
    this.checkpointsKey = `${this.key}:checkpoints`;
    this.legacyListKey = `${options.keyPrefix}{audit}:log`;
    this.legacyStreamKey = `${options.keyPrefix}{audit}:stream`;
    const retention = options.retention ?? DEFAULT_AUDIT_RETENTION;
    this.retentionMs = retention.retentionDays * DAY_MS;
    this.maxEntries = retention.maxEntries;
    this.signer = options.signer ?? AuditSigner.generate();
  }

  headMovedTooOften(): Error {
    return headMovedTooOften();
  }

  async prepare(input: AuditEntryInput): Promise<PreparedAuditEntry> {
    const head = this.known ?? (await this.head());
    const entry = chained(newEntry(input), head.hash);
    return { json: JSON.stringify(entry), prevHash: head.hash, hash: entry.hash as string };
  }

  moved(hash: unknown, count: unknown, checkpoint: unknown): void {
    this.known = { hash: String(hash), count: Number(count), checkpoint: String(checkpoint) === '1' };
  }

  written(entry: PreparedAuditEntry, early: number, needCheckpoint: boolean, isCheckpoint = false): void {
    this.known = { hash: entry.hash, count: (this.known?.count ?? 0) + 1, checkpoint: isCheckpoint };
    if (early > 0) this.options.onTrimmedEarly?.(early);
    if (needCheckpoint) this.pending = this.checkpoint({ onlyIfNew: true }).catch((err: unknown) => this.options.onCheckpointFailed?.(err));
  }

  /** Resolves once the checkpoint an append asked for is written. */
  idle(): Promise<unknown> {
    return this.pending;
  }

  async head(): Promise<AuditHead> {
    const [hash, count, checkpoint] = await this.redis.hmget(this.headKey, 'h', 'n', 'c');
    this.known = { hash: hash ?? GENESIS_HASH, count: Number(count ?? 0), checkpoint: checkpoint === '1' };
    return this.known;
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    await this.migrate();
    return (await this.appendChained(() => newEntry(input), false)) as AuditEntry;
  }

  async checkpoint(options: { readonly onlyIfNew?: boolean } = {}): Promise<AuditEntry | null> {
    return this.appendChained((head) => checkpointEntry(this.signer, head, options.onlyIfNew === true), true);
  }

  /** Appends what `build` makes of the current head, again whenever the head moved meanwhile. */
  private async appendChained(build: (head: AuditHead) => UnchainedEntry | null, isCheckpoint: boolean): Promise<AuditEntry | null> {
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const head = this.known ?? (await this.head());
      const unchained = build(head);
      if (!unchained) return null;
      const stored = chained(unchained, head.hash);
      const json = JSON.stringify(stored);
      const reply = (await this.redis.eval(
        AUDIT_APPEND_SCRIPT,
        3,
        this.key,
        this.headKey,
        this.checkpointsKey,
        json,
        head.hash,
        stored.hash as string,
        isCheckpoint ? '1' : '0',
        String(this.retentionMs),
        String(this.maxEntries),
      )) as [number, string, number | string, number | string];
      if (reply[0] === 0) {
        this.moved(reply[1], reply[2], reply[3]);
        continue;
      }
      this.written({ json, prevHash: head.hash, hash: stored.hash as string }, Number(reply[2]), Number(reply[3]) === 1, isCheckpoint);
      return { id: reply[1], ...stored };
    }
    throw headMovedTooOften();
  }

  /** Binary search of the checkpoint ids (oldest first) for the newest at or before `sinceMs`. */
  async checkpointBefore(sinceMs: number): Promise<string | null> {
    const bound = `${Math.max(0, Math.floor(sinceMs))}-99999999999`;
    let low = 0;
    let high = (await this.redis.llen(this.checkpointsKey)) - 1;
    let found: string | null = null;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const id = await this.redis.lindex(this.checkpointsKey, middle);
      if (id !== null && idKey(id) && atOrBefore(id, bound)) {
        found = id;
        low = middle + 1;
      } else high = middle - 1;
    }
    return found;
  }

  /**
   * Moves entries of the earlier keys in, oldest first, chained like any new entry (they were
   * written before the chain). The earlier keys sit in another cluster slot, so this runs as
   * separate commands; each entry is deleted only after it is copied, so an upgrade (old pods
   * still writing) loses none. Called at start and before each append.
   */
  async migrate(): Promise<number> {
    let moved = 0;
    for (;;) {
      const old = (await this.redis.xrange(this.legacyStreamKey, '-', '+', 'COUNT', MIGRATION_BATCH)) as StreamEntries;
      if (old.length === 0) break;
      for (const [id, fields] of old) {
        await this.appendChained(() => this.legacyEntry(fields[1] ?? '{}'), false);
        await this.redis.xdel(this.legacyStreamKey, id);
        moved += 1;
      }
    }
    for (;;) {
      const entry = await this.redis.rpop(this.legacyListKey);
      if (entry === null) break;
      await this.appendChained(() => this.legacyEntry(entry), false);
      moved += 1;
    }
    return moved;
  }

  private legacyEntry(json: string): UnchainedEntry {
    // Entries of the list still carry their old UUID; the stream id replaces it.
    const { id: _old, prevHash: _prev, hash: _hash, ...stored } = JSON.parse(json) as AuditEntry;
    return stored;
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
    if ((query.after !== undefined && !idKey(query.after)) || (query.until !== undefined && !idKey(query.until))) return [];
    const start = query.after === undefined ? `${Math.max(0, Math.floor(query.sinceMs))}-0` : `(${query.after}`;
    // As stored, with no field filled in: the export and verification hash exactly what was written.
    const entries = this.parseStored((await this.redis.xrange(this.key, start, query.until ?? '+', 'COUNT', query.limit)) as StreamEntries) as AuditEntry[];
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
