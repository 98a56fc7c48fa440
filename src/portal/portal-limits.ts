/**
 * What one portal user may do how often, counted in Redis when there is one (so across
 * instances), else in this instance's memory: key rotations per hour (`portal.rotationsPerHour`)
 * and the reads that make the store scan (a request-log listing, a usage range). A limit spent is
 * a 429 with Retry-After; a count that cannot be kept is a 503, never a free pass.
 *
 * Reads and sets the limiter's count.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { GatewayError } from '../errors/error-catalogue';
import type { RedisClient } from '../redis/redis-client';

export interface PortalLimitDeps {
  readonly redis: RedisClient | null;
  readonly keyPrefix: string;
}

export function portalLimiter(deps: PortalLimitDeps, name: string, points: number, durationSeconds: number): RateLimiterAbstract {
  const options = { keyPrefix: `${deps.keyPrefix}portal:${name}`, points, duration: durationSeconds };
  return deps.redis ? new RateLimiterRedis({ ...options, storeClient: deps.redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options);
}

/** Spends one of the portal user's `what` (plural, "key rotations"); 429 when none is left, 503 when the count cannot be kept. */
export async function spendPortalLimit(limiter: RateLimiterAbstract, portalUserId: string, what: string): Promise<void> {
  try {
    await limiter.consume(portalUserId);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      throw new GatewayError('rate_limited', `Too many ${what} from this portal user; retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    throw new GatewayError('store_unavailable', `The count of ${what} cannot be kept right now; retry shortly.`, {
      cause: rejection,
      headers: { 'Retry-After': '1' },
    });
  }
}
