/**
 * Builds and starts a whole gateway instance from a validated config: the access store and
 * its cache, the in-process sandbox core when no CORE_URL is set, the vendor and status
 * listeners with their Node server limits, and an orderly stop.
 *
 * Reads the config and the access file; opens the listeners. Used by main.ts and by tests,
 * which pass port 0 and read the bound ports back.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import { AccessCache } from './access/cache';
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
  readonly statusPort: number;
  /** Set when the in-process sandbox core runs. */
  readonly sandboxPort: number | null;
  readonly coreUrl: string;
  readonly access: AccessCache;
  readonly store: AccessStore;
  /** Readiness turns 503 at once; listeners stop accepting; in-flight requests finish. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** An access store to use instead of the one the config selects (tests). */
  readonly store?: AccessStore;
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

function createStore(config: Readonly<GatewayConfig>): AccessStore {
  const file = path.resolve(config.access.file);
  return new MemoryAccessStore(readAccessFile(file));
}

export async function startGateway(config: Readonly<GatewayConfig>, logger: Logger, options: StartOptions = {}): Promise<RunningGateway> {
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

  const store = options.store ?? createStore(config);
  const access = new AccessCache(store, logger);
  await access.start();

  const metrics = createMetrics();
  metrics.redisUp.set(1);
  metrics.accessConfigVersion.set(access.status().version ?? 0);
  const unfollowVersion = store.subscribe(() => metrics.accessConfigVersion.set(access.status().version ?? 0));

  let shuttingDown = false;
  const coreAgent = createCoreAgent(coreUrl, config.core);
  const vendorApp = buildVendorApp({ config, logger, access, coreUrl, coreAgent, metrics, redis: null });
  const statusApp = createStatusApp({
    registry: metrics.registry,
    accessStatus: () => access.status(),
    isShuttingDown: () => shuttingDown,
    mode: { accessStore: config.redis.url ? 'redis' : 'memory', core: config.core.url ? 'remote' : 'sandbox' },
  });
  const vendorServer = await listen(vendorApp, config.server.port, config.server.host, config);
  servers.push(vendorServer);
  const statusServer = await listen(statusApp, config.server.statusPort, config.server.host, config);

  return {
    vendorPort: portOf(vendorServer),
    statusPort: portOf(statusServer),
    sandboxPort: sandboxServer ? portOf(sandboxServer) : null,
    coreUrl,
    access,
    store,
    async stop() {
      shuttingDown = true;
      await Promise.all(servers.map(closeServer));
      access.stop();
      unfollowVersion();
      await store.close();
      coreAgent.destroy();
      if (sandboxServer) await closeServer(sandboxServer);
      await closeServer(statusServer);
    },
  };
}
