/**
 * Send limits of the verification step: how many codes may go to one mobile number, and for
 * one customer, per window (defaults 1 per 60 s and 5 per hour, every limit applying), with
 * rate-limiter-flexible: in Redis when there is one (shared by every instance), else in memory.
 *
 * Reads the configured limits; counts in its limiters. A send takes one point from every
 * limiter at once; if any refuses, the points the others gave are handed back, so a refused
 * send costs nothing, and `refund()` hands them all back when the send did not happen (the
 * SMS provider failed). A Redis failure is a StoreUnavailableError (503): without the shared
 * count, the limit could not be kept.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../../redis/redis-client';
import { StoreUnavailableError } from '../../errors/error-catalogue';

export interface SendLimit {
  readonly points: number;
  readonly durationSeconds: number;
}

export interface SendLimitsConfig {
  readonly perNumber: readonly SendLimit[];
  readonly perCustomer: readonly SendLimit[];
}

export type SendPermit = { readonly granted: true; refund(): Promise<void> } | { readonly granted: false; readonly retryAfterMs: number };

interface Counter {
  readonly limiter: RateLimiterAbstract;
  readonly key: string;
}

export class SendLimits {
  private readonly perNumber: RateLimiterAbstract[];
  private readonly perCustomer: RateLimiterAbstract[];

  constructor(config: SendLimitsConfig, redis: RedisClient | null, keyPrefix: string) {
    const build = (scope: string) => (limit: SendLimit) => {
      const options = { keyPrefix: `${keyPrefix}2fa:sends:${scope}:${limit.points}:${limit.durationSeconds}`, points: limit.points, duration: limit.durationSeconds };
      return redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options);
    };
    this.perNumber = config.perNumber.map(build('number'));
    this.perCustomer = config.perCustomer.map(build('customer'));
  }

  /** One send to `numberKey` for `customerKey`: granted with a refund, or the wait until it would be. */
  async take(numberKey: string, customerKey: string): Promise<SendPermit> {
    const counters: Counter[] = [
      ...this.perNumber.map((limiter) => ({ limiter, key: numberKey })),
      ...this.perCustomer.map((limiter) => ({ limiter, key: customerKey })),
    ];
    const results = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key)));
    const taken = counters.filter((_, i) => results[i]?.status === 'fulfilled');
    const refund = async (): Promise<void> => {
      await Promise.allSettled(taken.map(({ limiter, key }) => limiter.reward(key, 1)));
    };
    const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (refusals.length === 0) return { granted: true, refund };
    await refund();
    const storeError = refusals.find((reason) => !(reason instanceof RateLimiterRes));
    if (storeError !== undefined) throw new StoreUnavailableError(storeError);
    const retryAfterMs = Math.max(...refusals.map((reason) => (reason as RateLimiterRes).msBeforeNext));
    return { granted: false, retryAfterMs };
  }
}
