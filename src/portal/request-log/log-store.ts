/**
 * What the request log's two stores (memory, Redis) share: the store interface the batching
 * front (batched-request-log.ts) writes through, the compact stored form of an entry, the page
 * cursor, and how the total cap is shared out between vendors.
 *
 * Each entry has a log id `<ms>-<seq>`, increasing in the order the store took the entries (ms
 * is the entry's time, raised to the previous id's when an entry arrives late): the cursor of a
 * page.
 *
 * Reads and sets nothing.
 */
import { GatewayError } from '../../errors/error-catalogue';
import type { RequestLogEntry, RequestLogPage, RequestLogQuery, StatusClass } from './request-log';

/** One vendor's entries of a batch, oldest first. */
export interface VendorBatch {
  readonly vendorId: string;
  readonly entries: readonly RequestLogEntry[];
}

export interface LogStore {
  /** Adds the batches, then applies retention and the per-vendor and total caps. */
  add(batches: readonly VendorBatch[], nowMs: number): Promise<void>;
  find(vendorId: string, requestId: string, nowMs: number): Promise<RequestLogEntry | null>;
  list(vendorId: string, query: ListQuery, nowMs: number): Promise<RequestLogPage>;
}

/** A query checked and clamped: what the stores run. */
export interface ListQuery {
  readonly statusDigit: number | null;
  readonly apiId: string | null;
  readonly fromMs: number | null;
  readonly toMs: number | null;
  readonly limit: number;
  /** The log id the page starts below. */
  readonly after: LogId | null;
}

export interface LogId {
  readonly ms: number;
  readonly seq: number;
}

export interface LogBounds {
  readonly retentionMs: number;
  readonly maxEntriesPerVendor: number;
  readonly maxEntriesTotal: number;
}

const MAX_PAGE = 200;

/**
 * When the total cap is met, the biggest vendors are cut to this share of it, so that the trim
 * runs now and then rather than on every batch; small vendors keep everything.
 */
export const TOTAL_CAP_TRIM_TO = 0.9;

export function formatLogId(id: LogId): string {
  return `${id.ms}-${id.seq}`;
}

const LOG_ID = /^(\d{1,15})-(\d{1,15})$/;

const STATUS_DIGIT: Readonly<Record<StatusClass, number>> = { '1xx': 1, '2xx': 2, '3xx': 3, '4xx': 4, '5xx': 5 };

function invalid(field: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
}

/** The stores' form of a query; a cursor that no page gave, or a limit out of range, is a 400 naming it. */
export function toListQuery(query: RequestLogQuery): ListQuery {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_PAGE) throw invalid('limit', `an integer from 1 to ${MAX_PAGE}`);
  let after: LogId | null = null;
  if (query.after !== undefined) {
    const match = LOG_ID.exec(query.after);
    if (!match) throw invalid('after', "the previous page's next");
    after = { ms: Number(match[1]), seq: Number(match[2]) };
  }
  return {
    statusDigit: query.status ? STATUS_DIGIT[query.status] : null,
    apiId: query.apiId ?? null,
    fromMs: query.fromMs ?? null,
    toMs: query.toMs ?? null,
    limit: query.limit,
    after,
  };
}

/** Whether a stored entry passes the query's filters (the cursor aside). */
export function matches(entry: { atMs: number; apiId: string; status: number }, query: ListQuery, oldestMs: number): boolean {
  if (entry.atMs < oldestMs || (query.fromMs !== null && entry.atMs < query.fromMs)) return false;
  if (query.toMs !== null && entry.atMs >= query.toMs) return false;
  if (query.statusDigit !== null && Math.floor(entry.status / 100) !== query.statusDigit) return false;
  return query.apiId === null || entry.apiId === query.apiId;
}

/**
 * The most entries each vendor may keep so that all of them together keep at most `total`: the
 * vendors under it keep all they have, those over it are cut to it (max-min fairness: one busy
 * vendor cannot push a quiet one's requests out). Null when the counts already fit.
 */
export function fairShare(counts: readonly number[], total: number): number | null {
  let sum = 0;
  for (const n of counts) sum += n;
  if (sum <= total) return null;
  const sorted = [...counts].sort((a, b) => a - b);
  let left = total;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    const n = sorted[i] as number;
    if (n > share) return share;
    left -= n;
  }
  return null;
}
