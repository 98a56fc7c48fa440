/** Config of the connection to the core (config key `core`), its breakers included. */
import { z } from 'zod';
import { breakersSchema } from './breakers.schema';

export const coreClientSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe('Base URL of the real core (env CORE_URL); null runs the in-process sandbox core'),
    maxSockets: z.number().int().min(1).default(256).describe('Keep-alive sockets to the core per gateway instance'),
    maxFreeSockets: z.number().int().min(0).default(64).describe('Idle keep-alive sockets kept open to the core'),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe("Longest wait for the core's response headers, for every breaker group that sets no timeoutMs of its own"),
    maxStreamedBodyBytes: z
      .number()
      .int()
      .min(1)
      .default(1_048_576)
      .describe('Largest request body streamed to the core on pass-through routes (413 above); parsed bodies have their own limits'),
    breakers: breakersSchema.prefault({}).describe('Circuit breaker per breaker group'),
  })
  .strict();

export type CoreClientConfig = z.infer<typeof coreClientSchema>;
