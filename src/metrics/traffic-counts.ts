/**
 * The gateway's own count of requests per minute by vendor, API id and status class: the source
 * of `GET /v1/traffic` when no Prometheus is configured (`source: 'gateway'`).
 *
 * The hot path (`record`, fed by the request observer) pays one map look-up and one increment;
 * a timer hands the counts to the store every few seconds: Redis when it is the access store
 * (traffic-store-redis.ts: every instance adds into the same per-minute and per-hour hashes, so
 * their counts add up), else memory (this instance only). Both keep 8 days. A flush that fails
 * (Redis down) keeps its counts for the next one, up to 15 minutes of them: after that the oldest
 * minutes are dropped and a warning says how many requests went uncounted. A request never waits.
 *
 * Reads the request observer's calls; sets the store.
 */
import { GatewayError } from '../errors/error-catalogue';
import type { Logger } from '../logging/logger';
import { SeriesBuilder, statusClassOf, windowOf, type TrafficAnswer, type TrafficQuery, type TrafficSource } from './traffic';

export const TRAFFIC_RETENTION_SECONDS = 8 * 24 * 3600;
const MINUTE_MS = 60_000;
const MAX_UNFLUSHED_MINUTES = 15;

/** One minute's counts: field `vendor api class` → requests. */
export interface MinuteCounts {
  readonly minute: number;
  readonly counts: Map<string, number>;
}

/** A bucket read back: its start (unix seconds) and its counts by field. */
export interface BucketCounts {
  readonly startSeconds: number;
  readonly counts: ReadonlyMap<string, number>;
}

export interface TrafficStore {
  /** Where the counts live, for the answer's note. */
  readonly scope: string;
  /** Whether other instances add into the same counts (then their last flush may not be in yet). */
  readonly shared: boolean;
  add(minutes: readonly MinuteCounts[]): Promise<void>;
  /** The minute (`hourly` false) or hour buckets starting in `[fromSeconds, toSeconds)`. */
  buckets(fromSeconds: number, toSeconds: number, hourly: boolean): Promise<BucketCounts[]>;
}

function addInto(target: Map<string, number>, field: string, n: number): void {
  target.set(field, (target.get(field) ?? 0) + n);
}

/** This instance's counts only, in memory, bounded by 8 days of minutes and hours. */
export class MemoryTrafficStore implements TrafficStore {
  readonly scope = 'this instance only (no Redis)';
  readonly shared = false;
  private readonly minutes = new Map<number, Map<string, number>>();
  private readonly hours = new Map<number, Map<string, number>>();

  async add(batch: readonly MinuteCounts[]): Promise<void> {
    for (const { minute, counts } of batch) {
      const m = this.minutes.get(minute) ?? new Map<string, number>();
      const hour = Math.floor(minute / 60);
      const h = this.hours.get(hour) ?? new Map<string, number>();
      for (const [field, n] of counts) {
        addInto(m, field, n);
        addInto(h, field, n);
      }
      this.minutes.set(minute, m);
      this.hours.set(hour, h);
    }
    this.prune(Date.now());
  }

  private prune(nowMs: number): void {
    const oldestMinute = Math.floor(nowMs / MINUTE_MS) - TRAFFIC_RETENTION_SECONDS / 60;
    for (const minute of this.minutes.keys()) if (minute < oldestMinute) this.minutes.delete(minute);
    for (const hour of this.hours.keys()) if (hour < Math.floor(oldestMinute / 60)) this.hours.delete(hour);
  }

  async buckets(fromSeconds: number, toSeconds: number, hourly: boolean): Promise<BucketCounts[]> {
    const size = hourly ? 3600 : 60;
    const source = hourly ? this.hours : this.minutes;
    const out: BucketCounts[] = [];
    for (let start = fromSeconds; start < toSeconds; start += size) {
      const counts = source.get(start / size);
      if (counts) out.push({ startSeconds: start, counts });
    }
    return out;
  }
}

interface Cell {
  readonly field: string;
  count: number;
}

/** A minute's cells (one per vendor, API id and exact status) as counts per class field. */
function countsOf(minute: number, cells: ReadonlyMap<string, Cell>): MinuteCounts {
  const counts = new Map<string, number>();
  for (const { field, count } of cells.values()) addInto(counts, field, count);
  return { minute, counts };
}

interface TrafficCounterOptions {
  readonly flushIntervalMs?: number;
  readonly logger: Logger;
}

export class TrafficCounter implements TrafficSource {
  private minute = -1;
  /** The current minute's cells by the observer's key (`api status vendor`), so a request builds no string. */
  private current = new Map<string, Cell>();
  /** Minutes ended since the last flush, as recorded: turned into counts by the flush, off the request path. */
  private closed: Array<{ minute: number; cells: Map<string, Cell> }> = [];
  private unflushed: MinuteCounts[] = [];
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  private readonly flushIntervalMs: number;
  private readonly logger: Logger;

  constructor(
    private readonly store: TrafficStore,
    options: TrafficCounterOptions,
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 5000;
    this.logger = options.logger;
  }

  /**
   * Hot path. `key` is any string unique to (vendor, API id, status): the observer's metric-child
   * key, which it has built already.
   */
  record(key: string, vendorId: string, apiId: string, status: number, nowMs = Date.now()): void {
    const minute = Math.floor(nowMs / MINUTE_MS);
    if (minute !== this.minute) this.closeMinute(minute);
    const cell = this.current.get(key);
    if (cell) cell.count += 1;
    else this.current.set(key, { field: `${vendorId} ${apiId} ${statusClassOf(status)}`, count: 1 });
  }

  private closeMinute(next: number): void {
    if (this.current.size > 0) {
      this.closed.push({ minute: this.minute, cells: this.current });
      this.current = new Map();
    }
    this.minute = next;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushIntervalMs).unref();
  }

  /** Hands every count so far to the store; on failure keeps them (15 minutes at most) for the next flush. */
  async flush(): Promise<void> {
    this.closeMinute(this.minute);
    this.unflushed.push(...this.closed.map(({ minute, cells }) => countsOf(minute, cells)));
    this.closed = [];
    if (this.unflushed.length === 0) return;
    const batch = this.unflushed;
    this.unflushed = [];
    try {
      await this.store.add(batch);
      if (this.failing) this.logger.info('traffic counts: saved again');
      this.failing = false;
    } catch (err) {
      this.unflushed = [...batch, ...this.unflushed];
      const oldest = Math.floor(Date.now() / MINUTE_MS) - MAX_UNFLUSHED_MINUTES;
      const dropped = this.unflushed.filter((m) => m.minute < oldest);
      this.unflushed = this.unflushed.filter((m) => m.minute >= oldest);
      const lost = dropped.reduce((sum, m) => sum + [...m.counts.values()].reduce((a, b) => a + b, 0), 0);
      if (lost > 0) this.logger.warn({ err, requests: lost }, 'traffic counts: not saved for 15 minutes; these requests are missing from GET /v1/traffic');
      else if (!this.failing) this.logger.warn({ err }, 'traffic counts: not saved; kept to retry (up to 15 minutes)');
      this.failing = true;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  async read(query: TrafficQuery): Promise<TrafficAnswer> {
    const { fromSeconds, toSeconds, ends } = windowOf(query);
    const hourly = query.stepSeconds % 3600 === 0;
    const builder = new SeriesBuilder(fromSeconds, query.stepSeconds, ends);
    // Taken before the store is asked: a flush sent after this is queued behind the read on the same
    // connection (so not in what it reads), and one sent before it is in Redis and no longer here.
    const pending = this.pendingMinutes();
    let stored: BucketCounts[];
    try {
      stored = await this.store.buckets(fromSeconds, toSeconds, hourly);
    } catch (err) {
      throw new GatewayError('store_unavailable', 'The traffic counts in Redis cannot be read; retry shortly.', {
        cause: err,
        headers: { 'Retry-After': '5' },
      });
    }
    for (const { startSeconds, counts } of stored) {
      for (const [field, n] of counts) builder.add(field, startSeconds, n);
    }
    // This instance's counts not flushed yet, so its own newest requests show at once.
    for (const { minute, counts } of pending) {
      for (const [field, n] of counts) builder.add(field, minute * 60, n);
    }
    return {
      source: 'gateway',
      note: `Requests the gateway answered, counted per minute and kept 8 days, on ${this.store.scope}${this.store.shared ? `; another instance's last ${this.flushIntervalMs / 1000} s may not be in yet` : ''}.`,
      series: builder.series(query),
    };
  }

  private pendingMinutes(): MinuteCounts[] {
    return [...this.unflushed, ...this.closed.map(({ minute, cells }) => countsOf(minute, cells)), countsOf(this.minute, this.current)];
  }
}
