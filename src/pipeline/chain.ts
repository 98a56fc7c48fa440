/**
 * The vendor pipeline: the one place that fixes the order of the steps (a test pins it).
 *
 * Reads nothing itself; each step gets its config and dependencies here. Steps that later
 * issues add (rate limit, body, idempotency) take their numbered place in this list.
 */
import express, { type Express, type RequestHandler } from 'express';
import type { AccessCache } from '../access/cache';
import type { KeyUsageTracker } from '../access/key-usage';
import { RouteMatcher } from '../catalogue/matcher';
import { ROUTES } from '../catalogue/catalogue';
import type { GatewayConfig } from '../config/schema';
import type { GatewayError } from '../errors/catalogue';
import type { Logger } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/metrics';
import { rateLimit } from '../policies/rate-limit/rate-limit';
import { authenticate } from '../policies/authenticate/authenticate';
import { authorize } from '../policies/authorize/authorize';
import { forward } from '../policies/forward/forward';
import { requestContext } from '../policies/request-context/request-context';
import { routeMatch } from '../policies/route-match/route-match';
import { createErrorHandler } from './error-handler';
import { createRequestObserver } from './observe';
import type http from 'node:http';
import type Redis from 'ioredis';

export interface VendorPipelineDeps {
  readonly config: Readonly<GatewayConfig>;
  readonly logger: Logger;
  readonly access: AccessCache;
  readonly coreUrl: string;
  readonly coreAgent: http.Agent;
  readonly metrics: GatewayMetrics;
  /** Null in sandbox mode: rate-limit counters live in this process. */
  readonly redis: Redis | null;
  readonly keyUsage: KeyUsageTracker;
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
  const steps: RequestHandler[] = [
    // 1. First, so every answer (errors included) carries X-Request-Id, is timed and logged.
    requestContext(config.requestContext, { onFinish: createRequestObserver(metrics, deps.logger) }),
    // 2. Before authentication, which needs the route to pick the receipt token header.
    routeMatch(new RouteMatcher(ROUTES)),
    // 3. 401 before anything reveals whether a path exists.
    authenticate(config.authentication, {
      access: deps.access,
      onFailure: (reason) => metrics.authFailuresTotal.inc({ reason }),
      onSuccess: (principal) => deps.keyUsage.record(principal.keyId),
    }),
    // 4. 404/405, then vendor status, licence and permission (403): all in-process, no I/O.
    authorize({ access: deps.access, onDenied: (reason) => metrics.accessDeniedTotal.inc({ reason }) }),
    // 5. After authorization, so refused calls spend no quota; before any body is read.
    rateLimit(config.rateLimit, { redis: deps.redis, logger: deps.logger, onLimited: (vendor) => metrics.rateLimitedTotal.inc({ vendor }) }),
    // 8. Last: only requests that passed every policy reach the core.
    forward({
      coreUrl: deps.coreUrl,
      agent: deps.coreAgent,
      timeoutMs: config.core.timeoutMs,
      credentialHeaders: [config.authentication.tokenHeader, config.authentication.receiptTokenHeader],
      onError: (error: GatewayError, req, res) => errorHandler(error, req, res, () => undefined),
    }),
  ];
  app.use(steps);
  app.use(errorHandler);
  return app;
}
