/**
 * Types of opossum 9 (the version package.json installs), written from its lib/circuit.js and
 * lib/status.js: opossum ships no types, and @types/opossum describes opossum 8 (it lacks the
 * coalescing options, `cacheSize`, `getSignal` and the coalesce statistics of 9).
 *
 * Reads and sets nothing: declarations only. Check them again when opossum's major version moves.
 */
declare module 'opossum' {
  import { EventEmitter } from 'node:events';

  namespace CircuitBreaker {
    interface Stats {
      failures: number;
      fallbacks: number;
      successes: number;
      rejects: number;
      fires: number;
      timeouts: number;
      cacheHits: number;
      cacheMisses: number;
      coalesceCacheHits: number;
      coalesceCacheMisses: number;
      semaphoreRejections: number;
      percentiles: Record<string, number>;
      latencyTimes: number[];
      latencyMean: number;
    }

    interface Status extends EventEmitter {
      readonly stats: Stats;
      readonly window: Stats[];
    }

    interface CacheTransport {
      get(key: string): unknown;
      set(key: string, value: unknown, ttl: number): void;
      flush(): void;
    }

    interface Options {
      status?: Status;
      /** Milliseconds before a call counts as failed (ETIMEDOUT); false for none. */
      timeout?: number | false;
      /** @deprecated */
      maxFailures?: number;
      resetTimeout?: number;
      rollingCountTimeout?: number;
      rollingCountBuckets?: number;
      name?: string;
      group?: string;
      rollingPercentilesEnabled?: boolean;
      capacity?: number;
      errorThresholdPercentage?: number;
      enabled?: boolean;
      allowWarmUp?: boolean;
      volumeThreshold?: number;
      /** True: the error does not count as a failure. */
      errorFilter?: (error: unknown, ...args: unknown[]) => boolean;
      cache?: boolean;
      cacheTTL?: number;
      cacheSize?: number;
      cacheGetKey?: (...args: unknown[]) => string;
      cacheTransport?: CacheTransport;
      coalesce?: boolean;
      coalesceTTL?: number;
      coalesceSize?: number;
      coalesceResetOn?: Array<'error' | 'success' | 'timeout'>;
      abortController?: AbortController;
      enableSnapshots?: boolean;
      rotateBucketController?: EventEmitter;
      autoRenewAbortController?: boolean;
      state?: {
        state?: { closed?: boolean; open?: boolean; halfOpen?: boolean; warmUp?: boolean; shutdown?: boolean; enabled?: boolean; lastTimerAt?: number };
        status?: Status;
      };
    }
  }

  class CircuitBreaker<TI extends unknown[] = unknown[], TR = unknown> extends EventEmitter {
    /** True when the error was made by the breaker (open, timeout, shutdown, semaphore), not the action. */
    static isOurError(error: Error): boolean;
    static newStatus(options: {
      rollingCountBuckets?: number;
      rollingCountTimeout?: number;
      rollingPercentilesEnabled?: boolean;
      stats?: unknown;
    }): CircuitBreaker.Status;

    constructor(action: (...args: TI) => TR | Promise<TR>, options?: CircuitBreaker.Options);

    readonly name: string;
    readonly group: string;
    readonly pendingClose: boolean;
    readonly closed: boolean;
    readonly opened: boolean;
    readonly halfOpen: boolean;
    readonly isShutdown: boolean;
    readonly status: CircuitBreaker.Status;
    readonly stats: CircuitBreaker.Stats;
    readonly enabled: boolean;
    readonly warmUp: boolean;
    readonly volumeThreshold: number;

    close(): void;
    open(): void;
    shutdown(): void;
    toJSON(): { state: Record<string, unknown>; status: CircuitBreaker.Stats };
    fallback(func: ((...args: unknown[]) => unknown) | CircuitBreaker): this;
    fire(...args: TI): Promise<TR>;
    call(context: unknown, ...args: TI): Promise<TR>;
    clearCache(): void;
    healthCheck(func: () => Promise<unknown>, interval?: number): void;
    enable(): void;
    disable(): void;
    getSignal(): AbortSignal | undefined;
    getAbortController(): AbortController | undefined;
  }

  export = CircuitBreaker;
}
