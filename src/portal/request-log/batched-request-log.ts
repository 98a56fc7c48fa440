/**
 * The request log's front: `record` (the request path) only appends to this instance's batch; a
 * timer hands the batch to the store every `flushIntervalMs`, off the request path. The batch is
 * bounded (MAX_PENDING): while the store cannot be written (Redis down) a failed batch is kept
 * for the next flush as long as it fits, and what does not fit is dropped and counted
 * (`gateway_portal_request_log_dropped_total`), so the process never grows without bound and a
 * request never waits.
 *
 * Reads the observer's calls; sets the store.
 */
import type { Logger } from '../../logging/logger';
import type { RequestLog, RequestLogEntry, RequestLogPage, RequestLogQuery } from './request-log';
import { toListQuery, type LogStore, type VendorBatch } from './log-store';

/** Entries waiting for the store, at most: a few seconds of a busy instance, a few MB. */
const MAX_PENDING = 20_000;

interface BatchedRequestLogOptions {
  readonly flushIntervalMs: number;
  readonly logger: Logger;
  /** Entries dropped because the batch was full. */
  readonly onDropped?: (count: number) => void;
  readonly maxPending?: number;
}

export class BatchedRequestLog implements RequestLog {
  private pending = new Map<string, RequestLogEntry[]>();
  private pendingCount = 0;
  private writing: Promise<void> | null = null;
  private failing = false;
  private readonly timer: NodeJS.Timeout;
  private readonly maxPending: number;

  constructor(
    private readonly store: LogStore,
    private readonly options: BatchedRequestLogOptions,
  ) {
    this.maxPending = options.maxPending ?? MAX_PENDING;
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs).unref();
  }

  record(vendorId: string, entry: RequestLogEntry): void {
    if (this.pendingCount >= this.maxPending) {
      this.options.onDropped?.(1);
      return;
    }
    const entries = this.pending.get(vendorId);
    if (entries) entries.push(entry);
    else this.pending.set(vendorId, [entry]);
    this.pendingCount += 1;
  }

  async find(vendorId: string, requestId: string): Promise<RequestLogEntry | null> {
    return this.store.find(vendorId, requestId, Date.now());
  }

  async list(vendorId: string, query: RequestLogQuery): Promise<RequestLogPage> {
    return this.store.list(vendorId, toListQuery(query), Date.now());
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.pendingCount === 0) return;
    const batch = this.pending;
    const count = this.pendingCount;
    this.pending = new Map();
    this.pendingCount = 0;
    this.writing = this.write(batch, count).finally(() => (this.writing = null));
    await this.writing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(batch: Map<string, RequestLogEntry[]>, count: number): Promise<void> {
    const batches: VendorBatch[] = [];
    for (const [vendorId, entries] of batch) batches.push({ vendorId, entries });
    try {
      await this.store.add(batches, Date.now());
      if (this.failing) this.options.logger.info('request log: written again');
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.options.logger.warn({ err }, 'request log: the batch could not be written; kept for the next flush while it fits');
      this.failing = true;
      if (this.pendingCount + count > this.maxPending) {
        this.options.onDropped?.(count);
        return;
      }
      // Back in front of what came meanwhile, so each vendor's entries stay oldest first.
      for (const [vendorId, entries] of this.pending) batch.set(vendorId, [...(batch.get(vendorId) ?? []), ...entries]);
      this.pending = batch;
      this.pendingCount += count;
    }
  }
}
