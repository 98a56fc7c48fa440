/** What the runner asks a load worker to do, and what the worker answers. */
export interface RequestShape {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Record<string, string>;
  /** A body with `{ref}` where each request puts its own unique reference. */
  readonly body?: string;
}

export interface LoadSpec {
  readonly kind: 'throughput' | 'open-loop';
  /** Loopback only: http://127.0.0.1:<port>. */
  readonly url: string;
  readonly request: RequestShape;
  readonly seconds: number;
  /** Closed loop: concurrent connections. */
  readonly connections: number;
  /** Open loop: requests per second on the fixed timeline. */
  readonly rate: number;
  /** Open loop: seconds at the start whose samples are dropped (JIT, pool warm-up). */
  readonly warmupSeconds: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly completed: number;
  readonly failed: number;
}
