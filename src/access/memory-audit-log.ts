/**
 * The audit log kept in memory (sandbox mode and tests): the same entries, chain, checkpoints,
 * retention and filtered pages as the Redis stream (audit-log.ts), in one process's array.
 *
 * Reads and writes its own array; sets nothing else.
 */
import { auditSchema, type AuditConfig } from './audit-log.schema';
import { CHECKPOINT_ACTION, CHECKPOINT_ACTOR, GENESIS_HASH } from './audit-chain';
import { chained, checkpointEntry, idBefore, idKey, newEntry, type UnchainedEntry } from './audit-entry';
import { scanPage } from './audit-filter';
import { AuditSigner } from './audit-signer';
import type { AuditEntry, AuditEntryInput, AuditHead, AuditLog, AuditLogOptions, AuditPage, AuditQuery, AuditRangeQuery } from './audit-types';

const DEFAULT_AUDIT_RETENTION: AuditConfig = auditSchema.parse({});
const DAY_MS = 86_400_000;

export class MemoryAuditLog implements AuditLog {
  /** Oldest first; appends are cheap and the list reads it backwards. */
  private readonly entries: AuditEntry[] = [];
  private readonly retention: Pick<AuditConfig, 'retentionDays' | 'maxEntries'>;
  private last: [number, number] = [0, 0];
  private current: AuditHead = { hash: GENESIS_HASH, count: 0, checkpoint: false };
  private countAtCheckpoint = 0;
  private pending: Promise<unknown> = Promise.resolve();
  readonly signer: AuditSigner;

  constructor(private readonly options: AuditLogOptions = {}) {
    this.retention = options.retention ?? DEFAULT_AUDIT_RETENTION;
    this.signer = options.signer ?? AuditSigner.generate();
  }

  async append(input: AuditEntryInput): Promise<AuditEntry> {
    return this.write(newEntry(input), false);
  }

  async checkpoint(options: { readonly onlyIfNew?: boolean } = {}): Promise<AuditEntry | null> {
    const entry = checkpointEntry(this.signer, this.current, options.onlyIfNew === true);
    return entry ? this.write(entry, true) : null;
  }

  async head(): Promise<AuditHead> {
    return this.current;
  }

  /** Resolves once the checkpoint an append asked for is written. */
  idle(): Promise<unknown> {
    return this.pending;
  }

  async checkpointBefore(sinceMs: number): Promise<string | null> {
    const found = this.entries.filter((e) => (idKey(e.id) as [number, number])[0] <= sinceMs && e.action === CHECKPOINT_ACTION && e.actor === CHECKPOINT_ACTOR);
    return found.at(-1)?.id ?? null;
  }

  private write(unchained: UnchainedEntry, isCheckpoint: boolean): AuditEntry {
    const now = Date.now();
    // Like a stream id: the clock, with a sequence when it did not move on.
    this.last = now > this.last[0] ? [now, 0] : [this.last[0], this.last[1] + 1];
    const entry: AuditEntry = { id: `${this.last[0]}-${this.last[1]}`, ...chained(unchained, this.current.hash) };
    this.entries.push(entry);
    this.current = { hash: entry.hash as string, count: this.current.count + 1, checkpoint: isCheckpoint };
    if (isCheckpoint) this.countAtCheckpoint = this.current.count;
    this.trim(now);
    if (!isCheckpoint && this.current.count - this.countAtCheckpoint >= Math.max(1, Math.floor(this.retention.maxEntries / 10))) {
      this.pending = this.checkpoint({ onlyIfNew: true }).catch((err: unknown) => this.options.onCheckpointFailed?.(err));
    }
    return entry;
  }

  /** As the append script trims (lua/audit-append.ts): up to the newest checkpoint at or before the policy's point. */
  private trim(now: number): void {
    const aged = now - this.retention.retentionDays * DAY_MS;
    let keepFrom = this.entries.findIndex((e) => (idKey(e.id) as [number, number])[0] >= aged);
    if (keepFrom < 0) keepFrom = this.entries.length;
    keepFrom = Math.max(keepFrom, this.entries.length - this.retention.maxEntries);
    let anchor = -1;
    for (let i = 0; i < this.entries.length && i <= keepFrom; i++) {
      const e = this.entries[i] as AuditEntry;
      if (e.action === CHECKPOINT_ACTION && e.actor === CHECKPOINT_ACTOR) anchor = i;
    }
    if (anchor <= 0) return;
    const early = this.entries.slice(0, anchor).filter((e) => (idKey(e.id) as [number, number])[0] >= aged).length;
    this.entries.splice(0, anchor);
    if (early > 0) this.options.onTrimmedEarly?.(early);
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
    const until = query.until === undefined ? null : idKey(query.until);
    if ((query.after !== undefined && !after) || (query.until !== undefined && !until)) return [];
    return this.entries
      .filter((e) => {
        const key = idKey(e.id) as [number, number];
        return key[0] >= query.sinceMs && (!after || idBefore(after, key)) && (!until || !idBefore(until, key));
      })
      .slice(0, query.limit);
  }
}
