/**
 * Pipeline step: rate limit per API key, with rate-limiter-flexible.
 *
 * Each vendor's `{points, durationSeconds}` (or the configured default) is one fixed window
 * per key. With Redis the count is shared by every instance (one round trip, no per-request
 * config read); `inMemoryBlockOnConsumed` answers an exhausted key from memory without Redis.
 * If Redis fails, an in-memory insurance limiter at ceil(points / expectedInstances) takes
 * over, so a store error never becomes a 429 and the fleet total stays near the limit.
 *
 * Reads the principal and vendor from the context; sets the IETF draft headers
 * `RateLimit-Policy` and `RateLimit` on every answer, and `Retry-After` on a 429.
 */
import type { RequestHandler } from 'express';
import type { RedisClient } from '../../redis/redis-client';
import { RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimit } from '../../access/model';
import { GatewayError } from '../../errors/error-catalogue';
import type { Logger } from '../../logging/logger';
import { context } from '../../request/context';
import { memoryLimiter } from './epoch-window-limiter';
import type { RateLimitConfig } from './rate-limit.schema';

interface RateLimitDeps {
  /** The limiters the step counts in; built by `rateLimiters` and shared with whoever reads what is left (the vendor portal). */
  readonly limiters: RateLimiters;
  readonly logger: Logger;
  readonly onLimited?: (vendorId: string) => void;
}

interface PolicyLimiter {
  readonly limiter: RateLimiterAbstract;
  readonly policyHeader: string;
}

const POLICY_NAME = '"per-key"';

/** What is left of one key's window now. */
export interface KeyAllowance {
  readonly remaining: number;
  readonly resetsInSeconds: number;
}

/**
 * The limiters of one gateway, built once per distinct policy, not per request, and shared by the
 * step and the readers of what is left (the vendor portal). Null Redis: counters in this process.
 */
export class RateLimiters {
  private readonly byPolicy = new Map<string, PolicyLimiter>();
  /** Per vendor policy record, so a request finds its limiter without building the policy's key. */
  private readonly byRecord = new WeakMap<RateLimit, PolicyLimiter>();

  constructor(
    private readonly config: RateLimitConfig,
    private readonly redis: RedisClient | null,
  ) {}

  get usesRedis(): boolean {
    return this.redis !== null;
  }

  forPolicy(policy: RateLimit | undefined): PolicyLimiter {
    if (!policy) return this.forValues(undefined);
    let entry = this.byRecord.get(policy);
    if (!entry) this.byRecord.set(policy, (entry = this.forValues(policy)));
    return entry;
  }

  /** What is left of `keyId`'s window under `policy`, without spending a point (a key unused in this window has it all). */
  async allowance(policy: RateLimit | undefined, keyId: string): Promise<KeyAllowance> {
    const { limiter } = this.forPolicy(policy);
    const used = await limiter.get(keyId);
    const points = policy?.points ?? this.config.defaultPoints;
    if (!used) return { remaining: points, resetsInSeconds: 0 };
    return { remaining: Math.max(0, used.remainingPoints), resetsInSeconds: Math.ceil(used.msBeforeNext / 1000) };
  }

  private forValues(policy: RateLimit | undefined): PolicyLimiter {
    const points = policy?.points ?? this.config.defaultPoints;
    const duration = policy?.durationSeconds ?? this.config.defaultDurationSeconds;
    const id = `${points}:${duration}`;
    let entry = this.byPolicy.get(id);
    if (!entry) {
      // The policy is part of the key prefix, so a changed limit starts a fresh window.
      const keyPrefix = `${this.config.keyPrefix}:${id}`;
      const limiter = this.redis
        ? new RateLimiterRedis({
            storeClient: this.redis,
            keyPrefix,
            points,
            duration,
            inMemoryBlockOnConsumed: points,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memoryLimiter({
              keyPrefix: `${keyPrefix}:insurance`,
              points: Math.ceil(points / this.config.expectedInstances),
              duration,
            }),
          })
        : memoryLimiter({ keyPrefix, points, duration });
      entry = { limiter, policyHeader: `${POLICY_NAME};q=${points};w=${duration}` };
      this.byPolicy.set(id, entry);
    }
    return entry;
  }
}

function rateLimitHeader(res: RateLimiterRes): string {
  return `${POLICY_NAME};r=${Math.max(0, res.remainingPoints)};t=${Math.ceil(res.msBeforeNext / 1000)}`;
}

export function rateLimit(deps: RateLimitDeps): RequestHandler {
  const { limiters } = deps;
  const usesRedis = limiters.usesRedis;
  return function rateLimitStep(_req, res, next) {
    const ctx = context(res);
    const principal = ctx.principal;
    if (!principal) {
      next();
      return;
    }
    const { limiter, policyHeader } = limiters.forPolicy(ctx.vendor?.rateLimit);
    res.setHeader('RateLimit-Policy', policyHeader);
    const span = ctx.trace?.child('rate limit', { 'cbg.redis': usesRedis });
    limiter.consume(principal.keyId).then(
      (result) => {
        span?.end();
        res.setHeader('RateLimit', rateLimitHeader(result));
        next();
      },
      (rejection: unknown) => {
        span?.end({ 'cbg.limited': rejection instanceof RateLimiterRes });
        if (rejection instanceof RateLimiterRes) {
          res.setHeader('RateLimit', rateLimitHeader(rejection));
          deps.onLimited?.(principal.vendorId);
          const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
          next(new GatewayError('rate_limited', `Rate limit exceeded for this key; retry in ${retryAfter} s.`, { headers: { 'Retry-After': retryAfter } }));
          return;
        }
        // Both Redis and the insurance limiter failed: let the call through rather than refuse
        // a vendor for our own fault; the error is logged for the operator.
        deps.logger.warn({ err: rejection }, 'rate limiter unavailable; request let through');
        next();
      },
    );
  };
}
