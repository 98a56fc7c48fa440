/**
 * Builds and starts a whole gateway instance from a validated config: the access store and
 * its cache, the in-process sandbox core when no CORE_URL is set, the vendor, admin and status
 * listeners with their Node server limits, and an orderly stop: each resource registers its close
 * on one disposal stack as it opens, so stop() and a failed start close everything, in reverse.
 *
 * Reads the config and the access file; opens the listeners. Used by main.ts and by tests,
 * which pass port 0 and read the bound ports back.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Express } from 'express';
import { AccessService } from './admin/operations/access-service';
import { AdminDirectory } from './admin/operations/admin-directory';
import { Proposals } from './admin/operations/proposals';
import { PortalUsers } from './admin/operations/portal-users';
import { VendorTraffic } from './metrics/vendor-traffic';
import { TrafficCounter } from './metrics/traffic-counts';
import { PrometheusTraffic } from './metrics/prometheus-traffic';
import { AccessCache } from './access/cache';
import { openRequestLog } from './portal/request-log/create-request-log';
import { adminConfigDeps, continueFromRoutes, createAdminApp } from './admin/admin-app';
import { FailedLoginAudit } from './admin/failed-logins';
import { sessionStoresFor } from './sessions/session-stores';
import { KeyUsageTracker } from './access/key-usage';
import { StoreEpoch } from './redis/store-epoch';
import type { GatewayConfig } from './config/config.schema';
import { createCoreAgents } from './core-client/agent';
import { createListenerTls } from './server/server-tls';
import { createTracing } from './tracing/tracing';
import { bundleExpirySeconds } from './tls/pem-files';
import { CoreBreakers } from './core-client/breakers';
import { createCoreClient } from './core-client/core-client';
import { createClientAddressResolver, createForwardedResolver } from './core-client/forwarded';
import type { Logger } from './logging/logger';
import { createMetrics } from './metrics/metrics';
import { createBodyContracts } from './contracts/registry';
import { loadReceiptEnums } from './contracts/enums';
import { buildVendorApp, vendorRateLimiters } from './pipeline/chain';
import { buildPortal } from './portal/portal';
import { ROUTES } from './catalogue/api-catalogue';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/openapi';
import type { RequestExamples } from './openapi/request-examples';
import { createSmsProvider } from './sms/create-provider';
import { createSandboxApp } from './sandbox/app';
import { createSandboxData } from './sandbox/data';
import { openApiExamples as sandboxOpenApiExamples } from './sandbox/examples';
import { sandboxRequestExamples } from './sandbox/request-examples';
import { drainListener, inFlightRequests, openListener, type ListenOptions } from './server/listener';
import { DisposalStack } from './lifecycle/disposal-stack';
import type { ShutdownConfig } from './server/shutdown.schema';
import { createStatusApp } from './status/status-app';
import { listenFailure } from './errors/startup-error';
import { auditSigner, openAccessBackend } from './access-backend';
import type { AccessStore } from './access/access-store';

export interface RunningGateway {
  readonly vendorPort: number;
  /** The address the vendor port is bound to (`server.host`). */
  readonly vendorAddress: string;
  readonly adminPort: number;
  readonly statusPort: number;
  /** The address the admin port is bound to (`server.adminHost`: loopback unless told otherwise). */
  readonly adminAddress: string;
  /** The admin token generated at start in sandbox mode when ADMIN_TOKEN is unset; else null. */
  readonly generatedAdminToken: string | null;
  /** Set when the in-process sandbox core runs. */
  readonly sandboxPort: number | null;
  readonly coreUrl: string;
  readonly access: AccessCache;
  readonly store: AccessStore;
  /** The OpenAPI document the vendor port serves. */
  readonly apiDocument: OpenApiDocument;
  /**
   * Readiness turns 503 at once; after `lameDuckMs` the listeners stop accepting, responses
   * ask for `Connection: close`, idle keep-alive connections close, in-flight requests finish
   * (at most `drainTimeoutMs`, then their connections are cut), Redis disconnects.
   */
  stop(options?: Partial<ShutdownConfig>): Promise<void>;
}

type ListenerLimits = Parameters<typeof openListener>[3];

/** Opens a listener; a port it cannot have fails the start with one line naming the setting. */
async function listen(
  setting: string,
  app: Express | http.RequestListener,
  port: number,
  host: string,
  limits: ListenerLimits,
  options: ListenOptions,
): Promise<http.Server> {
  try {
    return await openListener(app, port, host, limits, options);
  } catch (err) {
    throw listenFailure(setting, host, port, err as NodeJS.ErrnoException);
  }
}

function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

/** The package version, for the OpenAPI document (package.json sits beside src/ and dist/). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/**
 * The admin token: ADMIN_TOKEN, or in sandbox mode (no Redis, no real core) a fresh random
 * one. The config schema refuses a production config without one (admin.token).
 */
function resolveAdminToken(config: Readonly<GatewayConfig>): { token: string; generated: boolean } {
  if (config.admin.token) return { token: config.admin.token, generated: false };
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

export async function startGateway(config: Readonly<GatewayConfig>, logger: Logger): Promise<RunningGateway> {
  const adminToken = resolveAdminToken(config);
  // Each resource registers its close right after it opens; stop() and a failed start unwind them, last opened first.
  const lifecycle = new DisposalStack();
  try {
    return await openGateway(config, logger, lifecycle, adminToken);
  } catch (err) {
    await lifecycle.disposeAsync().catch((failure: unknown) => logger.warn({ err: failure }, 'a failed start could not close all it had opened'));
    throw err;
  }
}

async function openGateway(
  config: Readonly<GatewayConfig>,
  logger: Logger,
  lifecycle: DisposalStack,
  adminToken: ReturnType<typeof resolveAdminToken>,
): Promise<RunningGateway> {
  // A failed start cuts its listeners' connections at once; stop() sets the drain time it is given.
  let drainTimeoutMs = 0;
  const drain = (server: http.Server): Promise<void> => drainListener(server, drainTimeoutMs, logger);
  // Readiness is 503 until the vendor and admin listeners are open, and again from the moment stop begins.
  let phase: 'starting' | 'serving' | 'stopping' = 'starting';
  const version = packageVersion();
  const metrics = lifecycle.adopt(createMetrics(undefined, { version }), (opened) => opened.registry.clear());

  let sandboxServer: http.Server | null = null;
  let coreUrl = config.core.url;
  let openApiExamples: ReadonlyMap<string, unknown> | undefined;
  let requestExamples: RequestExamples | undefined;
  if (!coreUrl) {
    const data = createSandboxData(config.sandbox.seed);
    openApiExamples = sandboxOpenApiExamples(data);
    requestExamples = sandboxRequestExamples(data, config.sandbox);
    const sandbox = createSandboxApp({
      data,
      defaultPageSize: config.sandbox.defaultPageSize,
      maxPageSize: config.sandbox.maxPageSize,
    });
    sandboxServer = lifecycle.adopt(
      await listen('sandbox.port (SANDBOX_PORT)', sandbox, config.sandbox.port, config.sandbox.host, config.server, { logger }),
      drain,
    );
    coreUrl = `http://${config.sandbox.host}:${portOf(sandboxServer)}`;
  }

  const backend = await openAccessBackend(config, logger, lifecycle, {
    retention: config.audit,
    signer: auditSigner(config, logger),
    onCheckpointFailed: (err) => logger.warn({ err }, 'audit: a checkpoint due by count could not be written; the next append asks again'),
    onTrimmedEarly: (count) => {
      metrics.auditTrimmedBeforeRetentionTotal.inc(count);
      logger.warn(
        { count, retentionDays: config.audit.retentionDays, maxEntries: config.audit.maxEntries },
        'audit.maxEntries trimmed audit entries younger than audit.retentionDays',
      );
    },
  });
  const { store, health } = backend;
  // Several instances each try; the chain serialises them and a head that is already a checkpoint is skipped.
  const checkpoints = setInterval(() => {
    backend.audit.checkpoint({ onlyIfNew: true }).catch((err: unknown) => logger.warn({ err }, 'audit: the periodic checkpoint could not be written'));
  }, config.audit.checkpointIntervalSeconds * 1000).unref();
  lifecycle.defer(() => clearInterval(checkpoints));
  const access = lifecycle.adopt(new AccessCache(store, logger), (cache) => cache.stop());
  await access.start();

  metrics.readAccessConfigFrom({ ageSeconds: () => access.status().ageSeconds, records: () => access.recordCounts() });
  access.onVersion((loaded) => metrics.accessConfigVersion.set(loaded));
  const reportProblem = (problem: string | null): void => {
    metrics.accessConfigInconsistent.set(problem === null ? 0 : 1);
    if (problem !== null) metrics.accessConfigInconsistenciesTotal.inc();
  };
  reportProblem(access.problem);
  access.onProblem(reportProblem);
  if (health) {
    metrics.redisUp.set(health.up ? 1 : 0);
    health.onChange((up) => metrics.redisUp.set(up ? 1 : 0));
  } else {
    metrics.redisUp.set(1);
  }

  // Only with Redis: the memory store cannot lose data without the process going with it.
  let storeEpoch: StoreEpoch | null = null;
  if (backend.redis) {
    storeEpoch = lifecycle.adopt(
      new StoreEpoch({
        client: backend.redis,
        keyPrefix: config.redis.keyPrefix,
        holdMs: config.redis.dataLossHoldSeconds * 1000,
        checkIntervalMs: config.redis.epochCheckIntervalMs,
        recordLifeMs: config.idempotency.inFlightTimeoutMs + config.idempotency.retentionSeconds * 1000,
        logger,
        onHoldChange: (held) => metrics.redisDataLossHold.set(held ? 1 : 0),
        onLossDetected: () => metrics.redisDataLossDetectedTotal.inc(),
        onEvictingPolicyChange: (policy) => metrics.redisEvictionHold.set(policy === null ? 0 : 1),
      }),
      (epoch) => epoch.stop(),
    );
    metrics.redisEvictionHold.set(0);
    await storeEpoch.start();
  }

  const breakers = lifecycle.adopt(new CoreBreakers(config.core.breakers, { defaultTimeoutMs: config.core.timeoutMs, metrics, logger }), (opened) =>
    opened.shutdown(),
  );
  const mode = { accessStore: backend.redis ? 'redis' : 'memory', core: config.core.url ? 'remote' : 'sandbox' } as const;
  const statusApp = createStatusApp({
    registry: metrics.registry,
    accessStatus: () => access.status(),
    redisStatus: health
      ? () => ({
          up: health.up,
          downSeconds: health.downSeconds(),
          dataLossHoldSeconds: storeEpoch?.holdSeconds() ?? 0,
          evictingPolicy: storeEpoch?.evictingPolicy ?? null,
        })
      : null,
    breakerStates: () => breakers.states(),
    isStarting: () => phase === 'starting',
    isShuttingDown: () => phase === 'stopping',
    mode,
  });
  // Opened before the vendor and admin listeners, so it closes after their drain: readiness answers
  // 503 throughout, and the last scrape sees the drain.
  const statusServer = lifecycle.adopt(
    await listen('server.statusPort (STATUS_PORT)', statusApp, config.server.statusPort, config.server.host, config.server, { logger }),
    drain,
  );

  const tracing = lifecycle.adopt(createTracing(config.tracing, logger), (opened) =>
    // The last spans, of the requests just drained, go out before the process ends.
    opened?.shutdown().catch((err: unknown) => logger.warn({ err }, 'tracing: the last spans could not be sent')),
  );
  const coreAgents = lifecycle.adopt(
    createCoreAgents(coreUrl, config.core, {
      logger,
      onCertificate: (expiresAt) => metrics.tlsCertificateExpiry.set({ use: 'core_client' }, expiresAt),
      onCaCertificate: (expiresAt) => metrics.tlsCertificateExpiry.set({ use: 'core_ca' }, expiresAt),
    }),
    (agents) => agents.destroy(),
  );
  const coreClient = createCoreClient({
    coreUrl,
    agents: coreAgents,
    breakers,
    config: config.core,
    forwarded: createForwardedResolver(config.server),
    logger,
  });
  // Stopped after the drain: the requests in flight may still count their keys' use.
  const keyUsage = lifecycle.adopt(new KeyUsageTracker(backend.keyUsage, config.access.keyUsageFlushIntervalMs, logger), (tracker) => tracker.stop());
  keyUsage.start();
  const sms = createSmsProvider(config.sms, { onSent: (outcome) => metrics.smsSentTotal.inc({ outcome }) });
  if (sms.outbox && config.core.url)
    logger.warn('sandbox.allowWithRealCore: sms.provider is outbox with a real core; codes are kept at the admin API, not sent to phones');
  if (config.core.url && config.server.publicUrl === null && config.server.trustedProxies.length === 0)
    logger.warn(
      "server.publicUrl is not set and no trusted proxy forwards the vendors' host: /openapi.json's servers, the collection's baseUrl and the core's paging links name this instance's own address, which vendors behind a load balancer cannot reach; set server.publicUrl",
    );
  const bodyContracts = createBodyContracts({
    enums: loadReceiptEnums(path.resolve(config.body.receiptEnumsFile)),
    adjustmentNotesRequired: config.body.adjustmentNotesRequired,
  });
  const vendorTraffic = new VendorTraffic();
  // Without a Prometheus to ask, the gateway counts for itself (stopped after the drain: the last requests count).
  const trafficCounts = config.admin.prometheusUrl ? null : lifecycle.adopt(new TrafficCounter(backend.traffic, { logger }), (counter) => counter.stop());
  trafficCounts?.start();
  const requestLog = openRequestLog(config, backend.redis, lifecycle, metrics, logger);
  const apiDocument = buildOpenApiDocument({
    routes: ROUTES,
    contracts: bodyContracts,
    version,
    tokenHeader: config.authentication.tokenHeader,
    receiptTokenHeader: config.authentication.receiptTokenHeader,
    examples: openApiExamples,
    requestExamples,
  });
  const accessService = new AccessService(access, store, {
    keyUsage,
    defaultRateLimit: { points: config.rateLimit.defaultPoints, durationSeconds: config.rateLimit.defaultDurationSeconds },
  });
  const traffic = trafficCounts ?? new PrometheusTraffic(config.admin.prometheusUrl as string);
  const sessionStores = sessionStoresFor(backend.redis, config.redis.keyPrefix);
  const limiters = vendorRateLimiters(config, backend.redis);
  const portal = buildPortal(config, {
    access,
    service: accessService,
    traffic,
    requestLog,
    limiters,
    audit: backend.audit,
    redis: backend.redis,
    sessionEpochs: sessionStores.sessionEpochs,
    apiDocument,
    sessionSecret: adminToken.token,
    onSignIn: (outcome) => metrics.portalSignInsTotal.inc({ outcome }),
  });
  const vendorApp = buildVendorApp({
    vendorTraffic,
    rateLimiters: limiters,
    ...(portal ? { portal } : {}),
    ...(trafficCounts ? { trafficCounts } : {}),
    ...(requestLog ? { requestLog } : {}),
    config,
    logger,
    access,
    coreClient,
    storeHeld: () => storeEpoch?.held ?? false,
    evictingPolicy: () => storeEpoch?.evictingPolicy ?? null,
    ...(storeEpoch ? { storeEpoch } : {}),
    tracing,
    apiDocument,
    metrics,
    redis: backend.redis,
    keyUsage,
    bodyContracts,
    sms: sms.provider,
  });
  // The last minute's failed admin logins go on the audit log after the drain, while Redis is still there.
  const failedLogins = lifecycle.adopt(new FailedLoginAudit({ audit: backend.audit, logger }), (audit) => audit.flush());
  const adminDirectory = new AdminDirectory(accessService.writer, { ssoIssuer: config.admin.oidc.issuer });
  // A store whose two approvers enrolled before the set-up latch existed (or raced it) gets it now.
  await adminDirectory.closeSetupAtStart().catch((err: unknown) => logger.warn({ err }, 'admin: the set-up latch could not be written at start-up'));
  const approvals = { approvals: config.admin.approvals, changeTtlHours: config.admin.changeTtlHours, singleSignOn: config.admin.oidc.issuer !== null };
  const portalUsers = new PortalUsers(accessService.writer, { tokenTtlDays: config.portal.tokenTtlDays });
  const adminApp = createAdminApp({
    ...adminConfigDeps(config.admin),
    service: accessService,
    admins: adminDirectory,
    portalUsers,
    proposals: new Proposals(accessService, approvals, adminDirectory, portalUsers),
    ...sessionStores,
    clientAddress: createClientAddressResolver(config.server.trustedProxies),
    failedLogins,
    overview: () => ({
      mode,
      approvals: config.admin.approvals,
      accessConfig: access.status(),
      redis: health ? { up: health.up, downSeconds: health.downSeconds() } : null,
      breakers: breakers.states(),
      vendorTraffic: vendorTraffic.lastQuarterHour(),
    }),
    traffic,
    audit: backend.audit,
    adminToken: adminToken.token,
    logger,
    smsOutbox: sms.outbox ?? undefined,
    onAuthFailure: () => metrics.adminAuthFailuresTotal.inc(),
    onBreakGlass: (via) => metrics.adminBreakGlassTotal.inc({ via }),
    onSsoOutcome: (outcome) => metrics.adminSsoSignInsTotal.inc({ outcome }),
  });
  const vendorTls = lifecycle.adopt(
    createListenerTls(config.server.tls, 'server', { logger, onCertificate: (at) => metrics.tlsCertificateExpiry.set({ use: 'server' }, at) }),
    (tls) => tls?.stop(),
  );
  const adminTls = lifecycle.adopt(
    createListenerTls(config.admin.tls, 'admin', { logger, onCertificate: (at) => metrics.tlsCertificateExpiry.set({ use: 'admin' }, at) }),
    (tls) => tls?.stop(),
  );
  if (config.redis.tls.caFile) metrics.tlsCertificateExpiry.set({ use: 'redis' }, bundleExpirySeconds(readFileSync(config.redis.tls.caFile)));

  // The vendor and admin listeners drain as one, so neither accepts while the other waits for its requests.
  const serving: http.Server[] = [];
  lifecycle.defer(() => Promise.all(serving.map(drain)));
  const vendorServer = await listen('server.port (PORT)', vendorApp, config.server.port, config.server.host, config.server, {
    tls: vendorTls ?? undefined,
    logger,
    onClientError: (status) => metrics.requestsTotal.inc({ api: 'unmatched', status: String(status), vendor: 'anonymous' }),
    maxConnections: config.server.maxConnections,
    onConnectionDropped: () => metrics.connectionsDroppedTotal.inc(),
  });
  serving.push(vendorServer);
  // Admins send small headers at once: a flood of slow-header sockets gets less time, and at the cap
  // makes room for a newcomer instead of locking the admins out.
  const adminServer = await listen(
    'server.adminPort (ADMIN_PORT)',
    adminApp,
    config.server.adminPort,
    config.server.adminHost,
    { ...config.server, headersTimeoutMs: adminHeadersTimeoutMs(config.server) },
    {
      logger,
      tls: adminTls ?? undefined,
      maxConnections: config.server.adminMaxConnections,
      makeRoomAtCap: true,
    },
  );
  serving.push(adminServer);
  continueFromRoutes(adminServer);
  phase = 'serving';

  return {
    vendorPort: portOf(vendorServer),
    vendorAddress: (vendorServer.address() as AddressInfo).address,
    adminPort: portOf(adminServer),
    adminAddress: (adminServer.address() as AddressInfo).address,
    statusPort: portOf(statusServer),
    generatedAdminToken: adminToken.generated ? adminToken.token : null,
    sandboxPort: sandboxServer ? portOf(sandboxServer) : null,
    coreUrl,
    access,
    store,
    apiDocument,
    async stop(overrides) {
      const options: ShutdownConfig = { ...config.shutdown, ...overrides };
      phase = 'stopping';
      // Readiness answers 503 from here on. Even without a lame-duck time this waits one turn of
      // the event loop, so requests whose bytes had already arrived are read before the close.
      await delay(options.lameDuckMs);
      const inFlight = serving.reduce((sum, server) => sum + inFlightRequests(server), 0);
      logger.info({ inFlight, drainTimeoutMs: options.drainTimeoutMs }, 'closing the listeners; draining the requests in flight');
      drainTimeoutMs = options.drainTimeoutMs;
      // The Redis connections close after the listeners: in-flight requests may still count.
      await lifecycle.disposeAsync();
    },
  };
}

/**
 * The admin port's headers timeout: its own, capped at the request timeout (Node refuses a larger
 * one), so that an operator who shortens `requestTimeoutMs` is not refused for a default they never set.
 */
function adminHeadersTimeoutMs(server: { readonly adminHeadersTimeoutMs: number; readonly requestTimeoutMs: number }): number {
  return Math.min(server.adminHeadersTimeoutMs, server.requestTimeoutMs);
}
