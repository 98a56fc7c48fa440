/**
 * The request log without Redis: this instance's requests only, in process memory, bounded like
 * the Redis store by retention, the per-vendor cap and the total cap (log-store.ts).
 *
 * Per vendor, entries in log-id order (an array, oldest first) and by request id (a map).
 * Reads and sets nothing outside itself.
 */
import type { RequestLogEntry, RequestLogPage } from './request-log';
import { fairShare, formatLogId, matches, TOTAL_CAP_TRIM_TO, type ListQuery, type LogBounds, type LogId, type LogStore, type VendorBatch } from './log-store';

interface Stored extends LogId {
  readonly atMs: number;
  readonly entry: RequestLogEntry;
}

interface VendorLog {
  /** Oldest first; ids increase. */
  entries: Stored[];
  readonly byRequestId: Map<string, Stored>;
  last: LogId;
}

function below(a: LogId, b: LogId): boolean {
  return a.ms < b.ms || (a.ms === b.ms && a.seq < b.seq);
}

export class MemoryLogStore implements LogStore {
  private readonly vendors = new Map<string, VendorLog>();
  private total = 0;

  constructor(private readonly bounds: LogBounds) {}

  async add(batches: readonly VendorBatch[], nowMs: number): Promise<void> {
    for (const { vendorId, entries } of batches) {
      let log = this.vendors.get(vendorId);
      if (!log) this.vendors.set(vendorId, (log = { entries: [], byRequestId: new Map(), last: { ms: 0, seq: -1 } }));
      for (const entry of entries) {
        if (log.byRequestId.has(entry.requestId)) continue;
        const atMs = Date.parse(entry.at);
        const id = atMs > log.last.ms ? { ms: atMs, seq: 0 } : { ms: log.last.ms, seq: log.last.seq + 1 };
        const stored: Stored = { ...id, atMs, entry };
        log.entries.push(stored);
        log.byRequestId.set(entry.requestId, stored);
        log.last = id;
        this.total += 1;
      }
    }
    for (const [vendorId, log] of this.vendors) this.trim(vendorId, log, nowMs, this.bounds.maxEntriesPerVendor);
    if (this.total > this.bounds.maxEntriesTotal) {
      const logs = [...this.vendors.values()];
      const share = fairShare(
        logs.map((log) => log.entries.length),
        Math.floor(this.bounds.maxEntriesTotal * TOTAL_CAP_TRIM_TO),
      );
      if (share !== null) for (const [vendorId, log] of this.vendors) this.trim(vendorId, log, nowMs, share);
    }
  }

  /** Drops the entries past retention and the oldest beyond `keep`. */
  private trim(vendorId: string, log: VendorLog, nowMs: number, keep: number): void {
    const oldestMs = nowMs - this.bounds.retentionMs;
    let drop = 0;
    while (drop < log.entries.length && (log.entries[drop] as Stored).ms < oldestMs) drop++;
    drop = Math.max(drop, log.entries.length - keep);
    if (drop === 0) return;
    for (const gone of log.entries.slice(0, drop)) log.byRequestId.delete(gone.entry.requestId);
    log.entries = log.entries.slice(drop);
    this.total -= drop;
    if (log.entries.length === 0) this.vendors.delete(vendorId);
  }

  async find(vendorId: string, requestId: string, nowMs: number): Promise<RequestLogEntry | null> {
    const stored = this.vendors.get(vendorId)?.byRequestId.get(requestId);
    return stored && stored.atMs >= nowMs - this.bounds.retentionMs ? stored.entry : null;
  }

  async list(vendorId: string, query: ListQuery, nowMs: number): Promise<RequestLogPage> {
    const entries = this.vendors.get(vendorId)?.entries ?? [];
    const oldestMs = nowMs - this.bounds.retentionMs;
    const items: RequestLogEntry[] = [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const stored = entries[i] as Stored;
      if (query.after && !below(stored, query.after)) continue;
      if (!matches({ atMs: stored.atMs, apiId: stored.entry.apiId, status: stored.entry.status }, query, oldestMs)) continue;
      items.push(stored.entry);
      if (items.length === query.limit) {
        const more = entries.slice(0, i).some((older) => matches({ atMs: older.atMs, apiId: older.entry.apiId, status: older.entry.status }, query, oldestMs));
        return { items, next: more ? formatLogId(stored) : null };
      }
    }
    return { items, next: null };
  }
}
