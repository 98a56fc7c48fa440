/** Config of the idempotency step (config key `idempotency`). */
import { z } from 'zod';

export const idempotencySchema = z
  .object({
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name')
      .default('Idempotency-Key')
      .describe("Request header carrying the idempotency key of a money movement; without it the body's externalRefNo is the key"),
    retentionSeconds: z
      .number()
      .int()
      .min(60)
      .default(86_400)
      .describe('How long a key is remembered after its outcome is known: replays of the stored response, or 409 outcome_unknown'),
    inFlightTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .default(30_000)
      .describe('How long a key may stay in flight; after that (the instance died mid-request) it answers outcome_unknown. Must exceed core.timeoutMs'),
    requireKey: z
      .enum(['always', 'outside-sandbox', 'never'])
      .default('outside-sandbox')
      .describe('Refuse money movement with neither the key header nor a body externalRefNo (400): always, never, or only with a real core'),
  })
  .strict();

export type IdempotencyConfig = z.infer<typeof idempotencySchema>;
