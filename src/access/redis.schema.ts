/**
 * Config of the Redis connection that shares the access config between instances (config key
 * `redis`). Without a URL the access config stays in memory (sandbox mode).
 *
 * Reads nothing; exports the schema and its type.
 */
import { z } from 'zod';

const ms = z.number().int().min(1);

export const redisSchema = z
  .object({
    url: z
      .url({ protocol: /^rediss?$/ })
      .nullable()
      .default(null)
      .describe('Redis URL (env REDIS_URL); null keeps access config in memory'),
    keyPrefix: z
      // Braces are left out so that the prefix never overrides the hash tags the keys carry.
      .string()
      .regex(/^[A-Za-z0-9:._-]*$/, 'letters, digits, ":", ".", "_" or "-"')
      .default('cbg:')
      .describe('Prefix of every key and channel, so that several deployments can share one Redis'),
    commandTimeoutMs: ms.default(100).describe('Longest wait for one Redis command, so that no request hangs on Redis'),
    connectTimeoutMs: ms.default(1000).describe('Longest wait for a connection to Redis to open'),
    seedAccessFile: z
      .enum(['sandbox-only', 'always', 'never'])
      .default('sandbox-only')
      .describe('When to write access.file into a Redis holding no access document: with the sandbox core only (so the published sandbox keys never reach a real core), always, or never'),
    configPollIntervalMs: z
      .number()
      .int()
      .min(100)
      .default(2000)
      .describe('How often each instance checks the access config version; heals a lost change message'),
  })
  .strict();

export type RedisConfig = z.infer<typeof redisSchema>;
