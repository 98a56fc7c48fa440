/**
 * The request log behind the vendor portal's Requests page: per vendor request, its metadata only
 * (time, request id, API id, status, duration, the core's status and time, key prefix, error code),
 * never a body, a header value or a customer identifier. Every instance records; any instance reads.
 *
 * The shape every store of it shares (memory without Redis, Redis with it); reads and sets nothing.
 */

export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx';

export interface RequestLogEntry {
  /** When the answer finished: ISO 8601 UTC with milliseconds. */
  readonly at: string;
  /** The X-Request-Id the vendor got. */
  readonly requestId: string;
  /** The catalogue API id (`GETaccounts/{accountId}`); never the path, which may hold customer identifiers. */
  readonly apiId: string;
  readonly status: number;
  readonly durationMs: number;
  /** The core's status, when the core answered. */
  readonly upstreamStatus?: number;
  /** The time the core took, when it was called. */
  readonly upstreamMs?: number;
  /** The key's prefix (`cbk_…`, 12 characters): never the key. */
  readonly keyPrefix: string;
  /** The error catalogue's code of a refusal or failure. */
  readonly code?: string;
}

export interface RequestLogQuery {
  readonly status?: StatusClass;
  readonly apiId?: string;
  /** Only entries at or after this instant (unix ms). */
  readonly fromMs?: number;
  /** Only entries before this instant (unix ms). */
  readonly toMs?: number;
  /** At most this many (1–200). */
  readonly limit: number;
  /** The previous page's `next`. */
  readonly after?: string;
}

export interface RequestLogPage {
  /** Newest first. */
  readonly items: RequestLogEntry[];
  /** Give it as `after` for the next page; null at the end. */
  readonly next: string | null;
}

export interface RequestLog {
  /** Takes the entry into this instance's batch; never waits, never throws (the request path calls it). */
  record(vendorId: string, entry: RequestLogEntry): void;
  /** The vendor's entry with this request id, or null (another vendor's request id finds nothing). */
  find(vendorId: string, requestId: string): Promise<RequestLogEntry | null>;
  /** The vendor's entries, newest first, filtered and paged. */
  list(vendorId: string, query: RequestLogQuery): Promise<RequestLogPage>;
  /** Writes the batch now (tests; and the last one at stop). */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  stop(): Promise<void>;
}
