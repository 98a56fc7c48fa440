/** Config of the connection to the core (config key `core`). */
import { z } from 'zod';

export const coreClientSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe('Base URL of the real core (env CORE_URL); null runs the in-process sandbox core'),
    maxSockets: z.number().int().min(1).default(256).describe('Keep-alive sockets to the core per gateway instance'),
    maxFreeSockets: z.number().int().min(0).default(64).describe('Idle keep-alive sockets kept open to the core'),
    timeoutMs: z.number().int().min(1).default(10_000).describe('Longest wait for the core to start answering'),
  })
  .strict();

export type CoreClientConfig = z.infer<typeof coreClientSchema>;
