/**
 * Config of the circuit breakers to the core, one per breaker group (config key `core.breakers`).
 *
 * Defaults follow Envoy's outlier detection and resilience4j's backed-off wait: a clear burst of
 * failures opens the breaker; its first probe goes after 2 s, each failed probe doubles the wait
 * up to 4 s, so an outage of any length ends for the vendors within about 4 s of the core's
 * return, and a long one costs one failed vendor call per probe (one every 4 s per instance and
 * group). Reads nothing; exports the schema.
 */
import { z } from 'zod';

const groupSchema = z
  .object({
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe("Longest wait for the core's response headers on this group's routes (then 504); null uses core.timeoutMs"),
    errorThresholdPercentage: z
      .number()
      .min(1)
      .max(100)
      .default(50)
      .describe('Share of failed calls (5xx, timeouts, connection errors) in the window above which the breaker opens'),
    volumeThreshold: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Calls the window must hold before the breaker may open, so a single early failure never opens it'),
    rollingCountTimeoutMs: z.number().int().min(100).default(10_000).describe('Length of the rolling window the failure share is measured over'),
    resetTimeoutMs: z
      .number()
      .int()
      .min(1)
      .default(4000)
      .describe(
        'Longest time an open breaker answers 503 before it lets one probe call through (half-open): the wait after firstProbeDelayMs doubles up to this',
      ),
    firstProbeDelayMs: z
      .number()
      .int()
      .min(1)
      .default(2000)
      .describe(
        'How long a breaker that opened from closed waits before its first probe; doubled after each failed probe up to resetTimeoutMs, back to this once the breaker closes; above resetTimeoutMs it is resetTimeoutMs',
      ),
  })
  .strict();

export const breakersSchema = z
  .object({
    resources: groupSchema.prefault({}).describe('Reads and writes of the resources (accounts, customers, ...)'),
    bankaccounts: groupSchema.prefault({}).describe('Bank account operations'),
    receipts: groupSchema.prefault({}).describe('Receipt postings (money movement)'),
    customers: groupSchema
      .prefault({})
      .describe(
        "The two-factor step's customer lookup (GET /customers/{id} before a code is sent), apart so failing lookups never open the group that guards adds",
      ),
  })
  .strict();

export type BreakerGroupConfig = z.infer<typeof groupSchema>;
export type BreakersConfig = z.infer<typeof breakersSchema>;
