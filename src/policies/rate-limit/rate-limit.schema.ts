/** Config of the rate-limit step (config key `rateLimit`). */
import { z } from 'zod';
import { MAX_WINDOW_SECONDS } from '../../access/model';

export const rateLimitConfigSchema = z
  .object({
    defaultPoints: z.number().int().min(1).default(600).describe('Requests per window for a vendor with no rateLimit of its own'),
    defaultDurationSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_WINDOW_SECONDS)
      .default(60)
      .describe('Window length for a vendor with no rateLimit of its own (at most 31 days)'),
    expectedInstances: z.number().int().min(1).default(1).describe('Gateway instances sharing the limit; with Redis down each allows ceil(points / this)'),
    keyPrefix: z.string().default('rl').describe('Prefix of the rate-limit counters in Redis, after redis.keyPrefix'),
    publicFiles: z
      .object({
        points: z
          .number()
          .int()
          .min(1)
          .default(120)
          .describe('Keyless public-file requests (/openapi.json, /docs and its assets) one client address may make per window, per instance'),
        durationSeconds: z.number().int().min(1).max(3600).default(60).describe('Window of publicFiles.points, in seconds (at most an hour)'),
      })
      .strict()
      .prefault({})
      .describe(
        'Limit per client address (as server.trustedProxies give it; IPv6 by /64) on the keyless public files; past it: 429 rate_limited with Retry-After',
      ),
  })
  .strict();

export type RateLimitConfig = z.infer<typeof rateLimitConfigSchema>;
