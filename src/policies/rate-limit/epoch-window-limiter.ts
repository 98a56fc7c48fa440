/**
 * An in-memory limiter for windows longer than a Node timer can wait (about 24.8 days):
 * rate-limiter-flexible's RateLimiterMemory expires each counter with setTimeout, which fires at
 * once past 2^31-1 ms, so a 30-day quota would forget every request.
 *
 * Here the counters never expire by timer: each window is a fixed slice of time counted from
 * the epoch (`floor(now / window)`), its number part of the counter's key; the counter of the
 * window before is deleted on the next use. The window a request falls into therefore starts
 * on the slice boundary, not at the key's first request. Only the library's public API is used
 * (consume, delete), so the Redis limiter can still take it as its insurance limiter.
 *
 * Reads the clock; keeps two counters per key at most.
 */
import { RateLimiterMemory, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';

/** The longest delay setTimeout keeps (2^31 - 1 ms). */
const LONGEST_TIMER_MS = 2_147_483_647;

class EpochWindowLimiter extends RateLimiterMemory {
  private readonly windowMs: number;

  constructor(options: IRateLimiterOptions & { readonly duration: number }) {
    // Duration 0: the library never expires these counters; the window number in the key does.
    super({ ...options, duration: 0 });
    this.windowMs = options.duration * 1000;
  }

  override consume(key: string | number, pointsToConsume = 1, options: { [key: string]: unknown } = {}): Promise<RateLimiterRes> {
    const now = Date.now();
    const window = Math.floor(now / this.windowMs);
    const msBeforeNext = (window + 1) * this.windowMs - now;
    void super.delete(`${key}@${window - 1}`);
    const withWindowEnd = (res: RateLimiterRes): RateLimiterRes =>
      new RateLimiterRes(res.remainingPoints, msBeforeNext, res.consumedPoints, res.isFirstInDuration);
    return super.consume(`${key}@${window}`, pointsToConsume, options).then(withWindowEnd, (rejection: unknown) => {
      throw rejection instanceof RateLimiterRes ? withWindowEnd(rejection) : rejection;
    });
  }
}

/** A memory limiter that keeps its window whatever its length. */
export function memoryLimiter(options: IRateLimiterOptions & { readonly duration: number }): RateLimiterMemory {
  return options.duration * 1000 > LONGEST_TIMER_MS ? new EpochWindowLimiter(options) : new RateLimiterMemory(options);
}
