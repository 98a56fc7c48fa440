/**
 * Config of the graceful shutdown on SIGTERM/SIGINT (config key `shutdown`).
 *
 * Reads nothing; exports the schema and its defaults, which `stop()` uses when called without
 * options (tests, and a config without this section).
 */
import { z } from 'zod';

export const shutdownSchema = z
  .object({
    lameDuckMs: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('After the signal, keep serving this long with readiness at 503 so load balancers stop sending first; 0 when a preStop hook waits instead'),
    drainTimeoutMs: z
      .number()
      .int()
      .min(1)
      .default(20_000)
      .describe('Longest wait for in-flight requests once the listeners stop accepting; connections still open then are cut'),
  })
  .strict();

export type ShutdownConfig = z.infer<typeof shutdownSchema>;
