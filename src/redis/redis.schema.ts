/**
 * Config of the Redis connection that shares the access config between instances (config key
 * `redis`). One topology at a time: a single server (`url`), a Sentinel-monitored master
 * (`sentinels` + `name`) or a Redis Cluster (`nodes`). With none of them the access config
 * stays in memory (sandbox mode).
 *
 * Reads nothing; exports the schema and its type.
 */
import { z } from 'zod';
import { whenValid } from '../config/when-valid';

const ms = z.number().int().min(1);

const address = z
  .object({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
  })
  .strict();

const credential = z.string().min(1).nullable().default(null);

export const redisSchema = z
  .object({
    url: z
      .url({ protocol: /^rediss?$/ })
      .nullable()
      .default(null)
      .describe('Redis URL of a single server (env REDIS_URL); rediss:// turns TLS on'),
    sentinels: z.array(address).default([]).describe('Sentinel addresses [{host, port}]; with `name`, the master is found through them (instead of url)'),
    name: z.string().min(1).nullable().default(null).describe('Name of the master group the sentinels monitor (Sentinel mode)'),
    nodes: z.array(address).default([]).describe('Cluster seed nodes [{host, port}] (Cluster mode, instead of url)'),
    username: credential.describe('ACL user of the Redis servers; null uses the URL\'s user or "default"'),
    password: credential.meta({ secret: true }).describe('Password of that user; set it from a Secret (env GATEWAY__redis__password)'),
    sentinelUsername: credential.describe('ACL user of the sentinels, when they require one'),
    sentinelPassword: credential.meta({ secret: true }).describe('Password of the sentinels, when they require one'),
    tls: z
      .object({
        enabled: z.boolean().default(false).describe('TLS to every Redis server and sentinel (a rediss:// url turns it on too)'),
        caFile: z.string().min(1).nullable().default(null).describe("PEM file of the CA that signed the servers' certificates; null trusts the system CAs"),
        serverName: z.string().min(1).nullable().default(null).describe('Name the server certificates must carry, when it differs from the host connected to'),
      })
      .strict()
      .prefault({})
      .describe('TLS to Redis'),
    keyPrefix: z
      // Braces are left out so that the prefix never overrides the hash tags the keys carry.
      .string()
      .regex(/^[A-Za-z0-9:._-]*$/, 'letters, digits, ":", ".", "_" or "-"')
      .default('cbg:')
      .describe('Prefix of every key and channel, so that several deployments can share one Redis'),
    commandTimeoutMs: ms.default(100).describe('Longest wait for one Redis command, so that no request hangs on Redis'),
    bulkCommandTimeoutMs: ms
      .default(30_000)
      .describe('Longest wait for one command of the access store (loads, admin writes, whole-document swaps): off the request path, so sized for bulk work'),
    accessChangeRetentionSeconds: z
      .number()
      .int()
      .min(60)
      .default(3600)
      .describe('How long access config changes stay replayable; an instance cut off for longer loads the whole config again'),
    accessStageTtlMs: z
      .number()
      .int()
      .min(100)
      .default(600_000)
      .describe(
        'How long a staged whole-document write may wait for its swap before Redis drops it (a writer that died mid-write); the live records never expire',
      ),
    connectTimeoutMs: ms.default(1000).describe('Longest wait for a connection to Redis to open'),
    seedAccessFile: z
      .enum(['sandbox-only', 'always', 'never'])
      .default('sandbox-only')
      .describe(
        'When to write access.file into a Redis holding no access document: with the sandbox core only (so the published sandbox keys never reach a real core), always, or never',
      ),
    configPollIntervalMs: z
      .number()
      .int()
      .min(100)
      .default(1000)
      .describe('How often each instance checks the access config version; heals a lost change message'),
    epochCheckIntervalMs: z
      .number()
      .int()
      .min(100)
      .default(1000)
      .describe(
        'How often each instance checks the epoch marker, the store sequence and maxmemory-policy (one GET and one CONFIG GET; also on every reconnect)',
      ),
    dataLossHoldSeconds: z
      .number()
      .int()
      .min(0)
      .default(86_400)
      .describe(
        'After Redis is found to have lost its data, how long keyed money movement answers 503; at least idempotency.retentionSeconds (refused otherwise), so that no retry of a forgotten record posts again',
      ),
  })
  .strict()
  .superRefine(
    (redis, ctx) => {
      const topologies = [redis.url !== null && 'url', redis.sentinels.length > 0 && 'sentinels', redis.nodes.length > 0 && 'nodes'].filter(Boolean);
      if (topologies.length > 1) {
        ctx.addIssue({ code: 'custom', path: [topologies[1] as string], message: `set one of url, sentinels or nodes, not ${topologies.join(' and ')}` });
      }
      if (redis.sentinels.length > 0 && redis.name === null) {
        ctx.addIssue({ code: 'custom', path: ['name'], message: 'the master group name is required with sentinels' });
      }
      if (redis.name !== null && redis.sentinels.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['sentinels'], message: 'name is only used with sentinels; list them' });
      }
      if (redis.url !== null && (redis.username !== null || redis.password !== null) && /^rediss?:\/\/[^/]*@/.test(redis.url)) {
        // Which one would win is not obvious to an operator; refuse rather than guess.
        ctx.addIssue({ code: 'custom', path: ['password'], message: 'credentials are set both in url and in username/password; keep one' });
      }
    },
    whenValid('url', 'sentinels', 'nodes', 'name', 'username', 'password'),
  );

export type RedisConfig = z.infer<typeof redisSchema>;

/** True when the config names a Redis of any topology: the access config is shared there. */
export function redisConfigured(config: RedisConfig): boolean {
  return config.url !== null || config.sentinels.length > 0 || config.nodes.length > 0;
}
