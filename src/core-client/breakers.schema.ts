/**
 * Config of the circuit breakers to the core, one per breaker group (config key `core.breakers`).
 *
 * Defaults follow Envoy's outlier detection: a clear burst of failures opens the breaker, it
 * stays open about 30 s, then lets one probe through. Reads nothing; exports the schema.
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
      .default(30_000)
      .describe('How long an open breaker answers 503 before it lets one probe call through (half-open)'),
  })
  .strict();

export const breakersSchema = z
  .object({
    resources: groupSchema.prefault({}).describe('Reads and writes of the resources (accounts, customers, ...)'),
    bankaccounts: groupSchema.prefault({}).describe('Bank account operations'),
    receipts: groupSchema.prefault({}).describe('Receipt postings (money movement)'),
  })
  .strict();

export type BreakerGroupConfig = z.infer<typeof groupSchema>;
export type BreakersConfig = z.infer<typeof breakersSchema>;
