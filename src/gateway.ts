/**
 * Builds and starts a whole gateway instance from a validated config: the access store and
 * its cache, the in-process sandbox core when no CORE_URL is set, the vendor, admin and status
 * listeners with their Node server limits, and an orderly stop.
 *
 * Reads the config and the access file; opens the listeners. Used by main.ts and by tests,
 * which pass port 0 and read the bound ports back.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import { AccessService } from './access/access-service';
import { AccessCache } from './access/cache';
import { createAdminApp } from './admin/admin-app';
import { MemoryAuditLog, RedisAuditLog, type AuditLog } from './admin/audit';
import type { Redis } from 'ioredis';
import { KeyUsageTracker, MemoryKeyUsageStore, RedisKeyUsageStore, type KeyUsageStore } from './access/key-usage';
import { createRedisClient, RedisHealth } from './access/redis-client';
import { RedisAccessStore } from './access/redis-store';
import { MemoryAccessStore, readAccessFile, type AccessStore } from './access/store';
import type { GatewayConfig } from './config/schema';
import { createCoreAgent } from './core-client/agent';
import type { Logger } from './logging/logger';
import { createMetrics } from './metrics/metrics';
import { buildVendorApp } from './pipeline/chain';
import { createSandboxApp } from './sandbox/app';
import { createSandboxData } from './sandbox/data';
import { createStatusApp } from './status/status-app';

export interface RunningGateway {
  readonly vendorPort: number;
  readonly adminPort: number;
  readonly statusPort: number;
  /** The admin token generated at start in sandbox mode when ADMIN_TOKEN is unset; else null. */
  readonly generatedAdminToken: string | null;
  /** Set when the in-process sandbox core runs. */
  readonly sandboxPort: number | null;
  readonly coreUrl: string;
  readonly access: AccessCache;
  readonly store: AccessStore;
  /** Readiness turns 503 at once; listeners stop accepting; in-flight requests finish. */
  stop(): Promise<void>;
}

function listen(app: Express | http.RequestListener, port: number, host: string, config: Readonly<GatewayConfig>): Promise<http.Server> {
  const server = http.createServer(
    { maxHeaderSize: config.server.maxHeaderSize, requestTimeout: config.server.requestTimeoutMs, headersTimeout: config.server.headersTimeoutMs },
    app,
  );
  server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/** Where access config, audit entries and rate-limit counters live: memory, or one shared Redis. */
interface AccessBackend {
  readonly store: AccessStore;
  readonly audit: AuditLog;
  /** The command connection, for rate limits; null in memory mode. */
  readonly redis: Redis | null;
  readonly health: RedisHealth | null;
  readonly keyUsage: KeyUsageStore;
}

function shouldSeedRedis(config: Readonly<GatewayConfig>): boolean {
  const rule = config.redis.seedAccessFile;
  return rule === 'always' || (rule === 'sandbox-only' && config.core.url === null);
}

async function createAccessBackend(config: Readonly<GatewayConfig>, logger: Logger): Promise<AccessBackend> {
  if (!config.redis.url) {
    return {
      store: new MemoryAccessStore(readAccessFile(path.resolve(config.access.file))),
      audit: new MemoryAuditLog(),
      redis: null,
      health: null,
      keyUsage: new MemoryKeyUsageStore(),
    };
  }
  const health = new RedisHealth(logger);
  const client = createRedisClient(config.redis, { name: 'cbg-main' });
  health.watch(client, 'main');
  const subscriber = createRedisClient(config.redis, { name: 'cbg-subscriber' });
  health.watch(subscriber, 'subscriber');
  const store = new RedisAccessStore({
    client,
    subscriber,
    keyPrefix: config.redis.keyPrefix,
    pollIntervalMs: config.redis.configPollIntervalMs,
    logger,
    seed: shouldSeedRedis(config) ? readAccessFile(path.resolve(config.access.file)) : undefined,
  });
  try {
    // Without Redis at start there is no last good copy to serve: fail, and let the
    // orchestrator restart us, rather than answer every vendor with 503.
    await store.init();
  } catch (err) {
    await store.close();
    throw new StartupError(`Redis at ${redactUrl(config.redis.url)} is not reachable: ${(err as Error).message}`);
  }
  return {
    store,
    audit: new RedisAuditLog(client, { keyPrefix: config.redis.keyPrefix }),
    redis: client,
    health,
    keyUsage: new RedisKeyUsageStore(client, config.redis.keyPrefix),
  };
}

/** A Redis URL without its password, for messages. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * The admin token: ADMIN_TOKEN, or in sandbox mode (no Redis, no real core) a fresh random
 * one. A production gateway without one refuses to start rather than run an open admin API.
 */
function resolveAdminToken(config: Readonly<GatewayConfig>): { token: string; generated: boolean } {
  if (config.admin.token) return { token: config.admin.token, generated: false };
  if (config.redis.url || config.core.url) {
    throw new StartupError('admin.token (ADMIN_TOKEN) is required when REDIS_URL or CORE_URL is set');
  }
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

export async function startGateway(config: Readonly<GatewayConfig>, logger: Logger): Promise<RunningGateway> {
  const adminToken = resolveAdminToken(config);
  const servers: http.Server[] = [];
  let sandboxServer: http.Server | null = null;
  let coreUrl = config.core.url;
  if (!coreUrl) {
    const sandbox = createSandboxApp({
      data: createSandboxData(config.sandbox.seed),
      defaultPageSize: config.sandbox.defaultPageSize,
      maxPageSize: config.sandbox.maxPageSize,
    });
    sandboxServer = await listen(sandbox, config.sandbox.port, config.sandbox.host, config);
    coreUrl = `http://${config.sandbox.host}:${portOf(sandboxServer)}`;
  }

  const backend = await createAccessBackend(config, logger);
  const { store, health } = backend;
  const access = new AccessCache(store, logger);
  await access.start();

  const metrics = createMetrics();
  access.onSnapshot((snapshot) => metrics.accessConfigVersion.set(snapshot.version));
  if (health) {
    metrics.redisUp.set(health.up ? 1 : 0);
    health.onChange((up) => metrics.redisUp.set(up ? 1 : 0));
  }

  let shuttingDown = false;
  const coreAgent = createCoreAgent(coreUrl, config.core);
  const keyUsage = new KeyUsageTracker(backend.keyUsage, config.access.keyUsageFlushIntervalMs, logger);
  keyUsage.start();
  const vendorApp = buildVendorApp({ config, logger, access, coreUrl, coreAgent, metrics, redis: backend.redis, keyUsage });
  const statusApp = createStatusApp({
    registry: metrics.registry,
    accessStatus: () => access.status(),
    redisStatus: health ? () => ({ up: health.up, downSeconds: health.downSeconds() }) : null,
    isShuttingDown: () => shuttingDown,
    mode: { accessStore: config.redis.url ? 'redis' : 'memory', core: config.core.url ? 'remote' : 'sandbox' },
  });
  const adminApp = createAdminApp({ service: new AccessService(store, { keyUsage }), audit: backend.audit, adminToken: adminToken.token, logger });
  const vendorServer = await listen(vendorApp, config.server.port, config.server.host, config);
  const adminServer = await listen(adminApp, config.server.adminPort, config.server.host, config);
  servers.push(vendorServer, adminServer);
  const statusServer = await listen(statusApp, config.server.statusPort, config.server.host, config);

  return {
    vendorPort: portOf(vendorServer),
    adminPort: portOf(adminServer),
    statusPort: portOf(statusServer),
    generatedAdminToken: adminToken.generated ? adminToken.token : null,
    sandboxPort: sandboxServer ? portOf(sandboxServer) : null,
    coreUrl,
    access,
    store,
    async stop() {
      shuttingDown = true;
      await Promise.all(servers.map(closeServer));
      access.stop();
      await keyUsage.stop();
      // Closes the Redis connections too, after the listeners: in-flight requests may still count.
      await store.close();
      coreAgent.destroy();
      if (sandboxServer) await closeServer(sandboxServer);
      await closeServer(statusServer);
    },
  };
}
