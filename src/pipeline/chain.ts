/**
 * The vendor pipeline: the one place that fixes the order of the steps (a test pins it).
 *
 * Reads nothing itself; each step gets its config and dependencies here. A new step takes its
 * place in the list below with a line on why it sits there.
 */
import type { VendorTraffic } from '../metrics/vendor-traffic';
import type { TrafficCounter } from '../metrics/traffic-counts';
import { createHmac, randomBytes } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import type { AccessCache } from '../access/cache';
import type { KeyUsageTracker } from '../access/key-usage';
import { RouteMatcher } from '../catalogue/matcher';
import { ROUTES } from '../catalogue/api-catalogue';
import type { GatewayConfig } from '../config/config.schema';
import type { CoreClient } from '../core-client/core-client';
import type { Logger } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/metrics';
import type { BodyContracts } from '../contracts/body-contract';
import type { OpenApiDocument } from '../openapi/openapi';
import { docsPageFiles } from '../openapi/docs-page';
import { collectionFile } from '../openapi/collection';
import { publicFileRoutes } from '../openapi/public-file';
import { servedOpenApiDocument } from '../openapi/served-document';
import { publicFileLimit } from '../openapi/public-file-limit';
import { createClientAddressResolver, createForwardedResolver } from '../core-client/forwarded';
import { SANDBOX_DEMO_KEY } from '../sandbox/demo-key';
import { body } from '../policies/body/body';
import { compressAnswers } from '../policies/compression/compression';
import { corsPolicy } from '../policies/cors/cors';
import { exchange } from '../policies/exchange/exchange';
import { createIdempotencyStore, idempotency } from '../policies/idempotency/idempotency';
import type { EpochWatch } from '../policies/idempotency/redis-idempotency-store';
import { rateLimit, RateLimiters } from '../policies/rate-limit/rate-limit';
import { twoFactor } from '../policies/two-factor/two-factor';
import type { SmsProvider } from '../sms/provider';
import { authenticate } from '../policies/authenticate/authenticate';
import { authorize } from '../policies/authorize/authorize';
import { forward } from '../policies/forward/forward';
import { framing } from '../policies/framing/framing';
import { requestTarget } from '../policies/request-target/request-target';
import { requestContext } from '../policies/request-context/request-context';
import { traceRequest } from '../policies/trace/trace';
import type { Tracing } from '../tracing/tracing';
import { createClientCertificateReader } from '../tls/client-certificate';
import { routeMatch } from '../policies/route-match/route-match';
import { createErrorHandler } from '../request/error-handler';
import { createRequestObserver } from './observe';
import type { RequestLog } from '../portal/request-log/request-log';
import { inSequence } from './sequence';
import type { RedisClient } from '../redis/redis-client';

interface VendorPipelineDeps {
  readonly config: Readonly<GatewayConfig>;
  readonly logger: Logger;
  readonly access: AccessCache;
  /** The one road to the core: every request the core receives is built and sent by it. */
  readonly coreClient: CoreClient;
  /** Spans by OTLP when tracing is configured; null: off. */
  readonly tracing: Tracing | null;
  /** True while Redis is held after a data loss (see redis/store-epoch.ts): keyed money movement waits. */
  readonly storeHeld: () => boolean;
  /** The evicting Redis `maxmemory-policy` in force (see redis/eviction-policy.ts); keyed money movement waits meanwhile. */
  readonly evictingPolicy?: () => string | null;
  /** The epoch marker the idempotency claim checks, and whom it tells of a loss it finds; none without Redis. */
  readonly storeEpoch?: EpochWatch & { lossSeen(epochId: string): Promise<void> };
  readonly metrics: GatewayMetrics;
  /** The vendor API's OpenAPI document, served keyless at /openapi.json (and rendered at /docs). */
  readonly apiDocument: OpenApiDocument;
  /** Null in sandbox mode: rate-limit counters live in this process. */
  readonly redis: RedisClient | null;
  readonly keyUsage: KeyUsageTracker;
  /** Body schemas of receipts and bank-account operations (validation, formats, responses). */
  readonly bodyContracts: BodyContracts;
  readonly sms: SmsProvider;
  /** Per-vendor answers of the last 15 minutes, for the admin UI's overview. */
  readonly vendorTraffic?: VendorTraffic;
  /** Requests per minute by vendor, API id and status class (GET /v1/traffic without Prometheus). */
  readonly trafficCounts?: TrafficCounter;
  /** The vendor portal's request log (portal.requestLog); absent when it is off. */
  readonly requestLog?: RequestLog;
  /** The rate limiters the step counts in, shared with the vendor portal's "what is left"; built here when not given. */
  readonly rateLimiters?: RateLimiters;
  /**
   * The vendor portal (`/portal/` and `/portal/api/`): a step of its own right after the public
   * files, so it answers before CORS (none on the portal) and before any key is asked for.
   */
  readonly portal?: RequestHandler;
}

/**
 * A key for one use, derived from the deployment's shared secret (every instance derives the
 * same); without one (sandbox, one instance) a random key per process.
 */
function derivedSecret(sharedSecret: string | null, use: string): string {
  return sharedSecret ? createHmac('sha256', sharedSecret).update(use).digest('hex') : randomBytes(32).toString('hex');
}

/** The vendors' rate limiters, counting under the configured Redis key prefix (or in memory without Redis). */
export function vendorRateLimiters(config: Readonly<GatewayConfig>, redis: RedisClient | null): RateLimiters {
  return new RateLimiters({ ...config.rateLimit, keyPrefix: `${config.redis.keyPrefix}${config.rateLimit.keyPrefix}` }, redis);
}

export function buildVendorApp(deps: VendorPipelineDeps): Express {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Express 5 parses the query lazily on first read of req.query; only SEARCH routes read it.
  app.set('query parser', 'simple');

  const { metrics } = deps;
  const errorHandler = createErrorHandler(deps.logger);
  const twoFactorSteps = twoFactor(config.twoFactor, {
    redis: deps.redis,
    keyPrefix: config.redis.keyPrefix,
    sms: deps.sms,
    logger: deps.logger,
    coreClient: deps.coreClient,
    access: deps.access,
    sandboxMode: config.core.url === null,
    onBudgetExhausted: (vendor) => metrics.smsBudgetExhaustedTotal.inc({ vendor }),
  });
  const corsStep = corsPolicy(config.cors, { tokenHeaders: [config.authentication.tokenHeader, config.authentication.receiptTokenHeader] });
  const compressionStep = compressAnswers(config.compression);
  // The public origin the document's servers and the collection's baseUrl name, as paging links do.
  const publicOrigin = createForwardedResolver(config.server);
  const steps: RequestHandler[] = [
    // First, so every answer (errors included) carries X-Request-Id, is timed and logged.
    requestContext(config.requestContext, {
      onFinish: createRequestObserver(
        metrics,
        deps.logger,
        deps.vendorTraffic,
        deps.trafficCounts,
        deps.requestLog ? { log: deps.requestLog, keyPrefix: (keyId) => deps.access.index?.key(keyId)?.prefix } : undefined,
      ),
      cacheControl: 'no-store',
    }),
    // Right after the context, so its server span covers every later step (a no-op without tracing).
    traceRequest(deps.tracing),
    // Before any key is asked for: vendors read the API description and its page before they hold one (limited per client address).
    publicFileRoutes(
      [
        ['/openapi.json', servedOpenApiDocument(deps.apiDocument, publicOrigin)],
        ...docsPageFiles(),
        [
          '/docs/collection.json',
          collectionFile({
            document: deps.apiDocument,
            origin: publicOrigin,
            // The published demo key only with the in-process sandbox core: with a real core the collection carries no key.
            sandboxKey: config.core.url === null ? SANDBOX_DEMO_KEY : null,
            access: () => deps.access.index,
          }),
        ],
      ],
      publicFileLimit(config.rateLimit.publicFiles, { clientAddress: createClientAddressResolver(config.server.trustedProxies) }),
    ),
    // After the public files, before compression and CORS: the portal's pages and JSON are same-origin only.
    ...(deps.portal ? [deps.portal] : []),
    // Before any step can write an answer (errors included), so every JSON or XML answer may be compressed.
    ...(compressionStep ? [compressionStep] : []),
    // Only with cors.allowedOrigins; before framing and authentication: a browser's preflight carries no key.
    ...(corsStep ? [corsStep] : []),
    // Before any step reads the request: framing the gateway will not vouch for is refused outright.
    framing(),
    // Before authentication, which needs the route to pick the receipt token header.
    routeMatch(new RouteMatcher(ROUTES)),
    // 401 before anything reveals whether a path exists.
    authenticate(config.authentication, {
      access: deps.access,
      onFailure: (reason) => metrics.authFailuresTotal.inc({ reason }),
      onSuccess: (principal) => deps.keyUsage.record(principal.keyId),
      presentedCertificate: createClientCertificateReader(config.server),
    }),
    // 404/405, then vendor status, licence and permission (403): all in-process, no I/O.
    authorize({ access: deps.access, onDenied: (reason) => metrics.accessDeniedTotal.inc({ reason }) }),
    // After authorization, so refused calls spend no quota; before any body is read.
    rateLimit({
      limiters: deps.rateLimiters ?? vendorRateLimiters(config, deps.redis),
      logger: deps.logger,
      onLimited: (vendor) => metrics.rateLimitedTotal.inc({ vendor }),
    }),
    // Before the body: a bad path or query costs no upload, and the target is fixed before idempotency fingerprints the call.
    requestTarget(),
    // Before idempotency, which fingerprints ctx.body.coreJson; the core client sends ctx.rawBody.
    body(config.body, { contracts: deps.bodyContracts, opaqueMaxBytes: config.core.maxStreamedBodyBytes, defaultXmlNamespace: config.xml.responseNamespace }),
    // After the body step (it reads the normalised number): answers verification itself; the core never sees it.
    twoFactorSteps.verification,
    // Right before the core call: a keyed money movement reaches the core at most once.
    idempotency(config.idempotency, {
      store: createIdempotencyStore(config.idempotency, deps.redis, config.redis.keyPrefix, deps.storeEpoch),
      logger: deps.logger,
      onReplay: () => metrics.idempotencyReplaysTotal.inc(),
      fingerprintKey: derivedSecret(config.twoFactor.pepper, 'idempotency-fingerprint'),
      sandboxMode: config.core.url === null,
      storeHeld: deps.storeHeld,
      ...(deps.evictingPolicy ? { evictingPolicy: deps.evictingPolicy } : {}),
      ...(deps.storeEpoch ? { onStoreLost: (epochId: string) => deps.storeEpoch?.lossSeen(epochId) ?? Promise.resolve() } : {}),
    }),
    // After idempotency, so a retried add that succeeded is replayed instead of meeting its used code.
    twoFactorSteps.check,
    // Parsed bodies (receipts, bank-account writes) go to the core whole and come back translated.
    exchange({ coreClient: deps.coreClient, contracts: deps.bodyContracts }),
    // Everything else: the core's answer streams back. Only requests that passed every step get here.
    forward({ coreClient: deps.coreClient }),
  ];
  // One router layer for the whole sequence (see sequence.ts); the order is the list above.
  app.use(inSequence(steps));
  app.use(errorHandler);
  return app;
}
