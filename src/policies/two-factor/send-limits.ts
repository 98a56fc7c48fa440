/**
 * Send limits of the verification step: how many codes may go to one mobile number and for
 * one customer, whichever vendor asks (defaults 1 per 60 s and 5 per hour, every limit
 * applying), and how many one vendor may have sent at all (its SMS budget, default 100 an
 * hour), with rate-limiter-flexible: in Redis when there is one (shared by every instance),
 * else in memory.
 *
 * Reads the configured limits; counts in its limiters. A send takes one point from every
 * limiter at once; if any refuses, the points the others gave are handed back, so a refused
 * send costs nothing, and `refund()` hands them all back when the send did not happen (the
 * SMS provider failed). A miss (no such customer, or a number the bank does not hold for it)
 * keeps its customer and vendor points: `refund(['number'])` hands back only the number's, so
 * probing customers for their numbers spends the prober's budget and the customer's limit, while
 * a stranger's wrong guesses cannot block the texts of the number's real owner. A Redis failure is a StoreUnavailableError (503): without the shared
 * count, the limit could not be kept.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from '../../redis/redis-client';
import { StoreUnavailableError } from '../../errors/error-catalogue';

interface SendLimit {
  readonly points: number;
  readonly durationSeconds: number;
}

interface SendLimitsConfig {
  readonly perNumber: readonly SendLimit[];
  readonly perCustomer: readonly SendLimit[];
  readonly perVendor: readonly SendLimit[];
}

/** What a send is counted against. */
type SendScope = 'number' | 'customer' | 'vendor';

type SendPermit =
  | { readonly granted: true; refund(scopes?: readonly SendScope[]): Promise<void> }
  /** `refusedBy`: every scope whose limit was reached. */
  | { readonly granted: false; readonly retryAfterMs: number; readonly refusedBy: readonly SendScope[] };

interface Counter {
  readonly limiter: RateLimiterAbstract;
  readonly key: string;
  readonly scope: SendScope;
}

export class SendLimits {
  private readonly perNumber: RateLimiterAbstract[];
  private readonly perCustomer: RateLimiterAbstract[];
  private readonly perVendor: RateLimiterAbstract[];

  constructor(config: SendLimitsConfig, redis: RedisClient | null, keyPrefix: string) {
    const build = (scope: string) => (limit: SendLimit) => {
      const options = {
        keyPrefix: `${keyPrefix}2fa:sends:${scope}:${limit.points}:${limit.durationSeconds}`,
        points: limit.points,
        duration: limit.durationSeconds,
      };
      return redis ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options);
    };
    this.perNumber = config.perNumber.map(build('number'));
    this.perCustomer = config.perCustomer.map(build('customer'));
    this.perVendor = config.perVendor.map(build('vendor'));
  }

  /** One send to `numberKey` for `customerKey` on `vendorKey`'s budget: granted with a refund, or the wait until it would be. */
  async take(numberKey: string, customerKey: string, vendorKey: string): Promise<SendPermit> {
    const counters: Counter[] = [
      ...this.perNumber.map((limiter) => ({ limiter, key: numberKey, scope: 'number' as const })),
      ...this.perCustomer.map((limiter) => ({ limiter, key: customerKey, scope: 'customer' as const })),
      ...this.perVendor.map((limiter) => ({ limiter, key: vendorKey, scope: 'vendor' as const })),
    ];
    const results = await Promise.allSettled(counters.map(({ limiter, key }) => limiter.consume(key)));
    const taken = counters.filter((_, i) => results[i]?.status === 'fulfilled');
    const refund = async (scopes?: readonly SendScope[]): Promise<void> => {
      const handedBack = scopes ? taken.filter(({ scope }) => scopes.includes(scope)) : taken;
      await Promise.allSettled(handedBack.map(({ limiter, key }) => limiter.reward(key, 1)));
    };
    const refusals = results.flatMap((r, i) => (r.status === 'rejected' ? [{ reason: r.reason as unknown, scope: (counters[i] as Counter).scope }] : []));
    if (refusals.length === 0) return { granted: true, refund };
    await refund();
    const storeError = refusals.find(({ reason }) => !(reason instanceof RateLimiterRes));
    if (storeError !== undefined) throw new StoreUnavailableError(storeError.reason);
    const retryAfterMs = Math.max(...refusals.map(({ reason }) => (reason as RateLimiterRes).msBeforeNext));
    return { granted: false, retryAfterMs, refusedBy: [...new Set(refusals.map(({ scope }) => scope))] };
  }
}
