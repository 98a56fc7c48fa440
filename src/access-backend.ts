/**
 * Where access config, audit entries, key usage and rate-limit counters live for one gateway
 * instance: memory (sandbox, tests) or one shared Redis with its store epoch, and the access
 * file that seeds either. Each Redis client and store registers its close on the start's
 * disposal stack as it opens, so a failed start leaves no connection behind.
 *
 * Reads the config and the access file (warning in the log of each licence or permission pattern
 * that matches no API id) and the audit signing key file; opens Redis connections. Used by gateway.ts only.
 */
import path from 'node:path';
import { AuditSigner } from './access/audit-signer';
import { RedisAuditLog, type AuditLog, type AuditLogOptions } from './access/audit-log';
import { MemoryAuditLog } from './access/memory-audit-log';
import { MemoryKeyUsageStore, RedisKeyUsageStore, type KeyUsageStore } from './access/key-usage';
import { RedisAccessStore } from './access/redis-access-store';
import { MemoryAccessStore, readAccessFile, type AccessStore } from './access/access-store';
import type { AccessDocument } from './access/model';
import type { GatewayConfig } from './config/config.schema';
import { StartupError } from './errors/startup-error';
import { emptyPatternMessage, emptyPatternsOf, nearestApiIds } from './admin/operations/pattern-reach';
import type { DisposalStack } from './lifecycle/disposal-stack';
import type { Logger } from './logging/logger';
import { closeRedisClient, createRedisClient, describeRedisTarget, RedisHealth, type RedisClient } from './redis/redis-client';
import { redisConfigured } from './redis/redis.schema';
import { MemoryTrafficStore, type TrafficStore } from './metrics/traffic-counts';
import { RedisTrafficStore } from './metrics/traffic-store-redis';

/** Where access config, audit entries and rate-limit counters live: memory, or one shared Redis. */
interface AccessBackend {
  readonly store: AccessStore;
  readonly audit: AuditLog;
  /** The command connection, for rate limits; null in memory mode. */
  readonly redis: RedisClient | null;
  readonly health: RedisHealth | null;
  readonly keyUsage: KeyUsageStore;
  /** The gateway's own traffic counts (GET /v1/traffic without Prometheus). */
  readonly traffic: TrafficStore;
}

function shouldSeedRedis(config: Readonly<GatewayConfig>): boolean {
  const rule = config.redis.seedAccessFile;
  return rule === 'always' || (rule === 'sandbox-only' && config.core.url === null);
}

/**
 * The access file, refused when it is the published sandbox document (`sandbox: true`) and the
 * core is real: its keys are published in the docs, so with a bank's core they would open it to anyone.
 */
function accessFile(config: Readonly<GatewayConfig>, logger: Logger): AccessDocument {
  const file = path.resolve(config.access.file);
  const document = readAccessFile(file);
  // A pattern that reaches no API id is a 400 on the admin API, but here only a warning: a typo
  // in one licence must not stop a deployment (and every other vendor with it).
  for (const { holder, pattern, owner } of emptyPatternsOf(document)) {
    logger.warn(
      { accessFile: file, [holder?.kind === 'user' ? 'userId' : 'vendorId']: holder?.id, pattern, nearest: nearestApiIds(pattern) },
      `access file: ${owner}: ${emptyPatternMessage(pattern)}`,
    );
  }
  if (document.sandbox === true && config.core.url !== null && !config.sandbox.allowWithRealCore) {
    throw new StartupError(
      'access-file',
      `access.file (ACCESS_FILE) ${file} is the sandbox's access document (sandbox: true), whose keys are published; with CORE_URL set, name your own ACCESS_FILE or seed Redis from one`,
    );
  }
  return document;
}

/**
 * Opens the access store where the config says, each connection registering its close on
 * `lifecycle` as it opens (the store's close, registered last, runs first and ends its own two).
 */
export async function openAccessBackend(
  config: Readonly<GatewayConfig>,
  logger: Logger,
  lifecycle: DisposalStack,
  auditOptions: AuditLogOptions,
): Promise<AccessBackend> {
  if (!redisConfigured(config.redis)) {
    const audit = new MemoryAuditLog(auditOptions);
    return {
      store: lifecycle.adopt(new MemoryAccessStore(accessFile(config, logger), { audit }), (store) => store.close()),
      audit,
      redis: null,
      health: null,
      keyUsage: new MemoryKeyUsageStore(),
      traffic: new MemoryTrafficStore(),
    };
  }
  const health = new RedisHealth(logger);
  // The request path's connection (rate limit, idempotency, two-factor codes): one command per request.
  const client = lifecycle.adopt(createRedisClient(config.redis, { name: 'cbg-main', autoPipelining: true }), closeRedisClient);
  health.watch(client, 'main');
  // The access store's own connection: its loads and whole-document swaps are bulk work, off the
  // request path, so they get a longer command timeout than the hot path's.
  const accessClient = lifecycle.adopt(
    createRedisClient(config.redis, { name: 'cbg-access', commandTimeoutMs: config.redis.bulkCommandTimeoutMs }),
    closeRedisClient,
  );
  health.watch(accessClient, 'access');
  const subscriber = lifecycle.adopt(createRedisClient(config.redis, { name: 'cbg-subscriber' }), closeRedisClient);
  health.watch(subscriber, 'subscriber');
  const audit = new RedisAuditLog(accessClient, { keyPrefix: config.redis.keyPrefix, ...auditOptions });
  const store = new RedisAccessStore({
    client: accessClient,
    subscriber,
    keyPrefix: config.redis.keyPrefix,
    pollIntervalMs: config.redis.configPollIntervalMs,
    logger,
    seed: shouldSeedRedis(config) ? accessFile(config, logger) : undefined,
    audit,
    changeRetentionMs: config.redis.accessChangeRetentionSeconds * 1000,
    stageTtlMs: config.redis.accessStageTtlMs,
  });
  lifecycle.defer(() => store.close());
  try {
    // Without Redis at start there is no last good copy to serve: fail, and let the
    // orchestrator restart us, rather than answer every vendor with 503.
    await store.init();
    await audit.migrate();
  } catch (err) {
    throw new StartupError('redis', `Redis (${describeRedisTarget(config.redis)}) is not reachable: ${(err as Error).message}`);
  }
  return {
    store,
    audit,
    redis: client,
    health,
    keyUsage: new RedisKeyUsageStore(client, config.redis.keyPrefix),
    // Off the request path, on the bulk connection: a day's 1,440 minutes take longer than a hot-path command may.
    traffic: new RedisTrafficStore(accessClient, config.redis.keyPrefix),
  };
}

/** The audit checkpoints' signing key: the configured file, or one for this process with a warning. */
export function auditSigner(config: Readonly<GatewayConfig>, logger: Logger): AuditSigner {
  const file = config.audit.signingKeyFile;
  if (file === null) {
    const signer = AuditSigner.generate();
    // In memory the log itself ends with the process, so only a shared (Redis) log outlives the key.
    const log = redisConfigured(config.redis) ? logger.warn.bind(logger) : logger.debug.bind(logger);
    log(
      { keyId: signer.keyId },
      'audit.signingKeyFile is not set: audit checkpoints are signed with a key generated at start, so they will not verify after a restart or on another instance',
    );
    return signer;
  }
  try {
    return AuditSigner.fromFile(path.resolve(file));
  } catch (err) {
    throw new StartupError('audit-key', (err as Error).message);
  }
}
