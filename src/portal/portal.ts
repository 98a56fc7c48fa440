/**
 * Builds the vendor portal of one gateway instance from its config and the parts the instance
 * already holds (the access config and service, the traffic source, the request log, the vendor
 * rate limiters, the audit log, the session store): sessions in the `portal` namespace, the
 * sign-in throttle, and the `/portal/` handler the vendor chain mounts.
 *
 * Reads the config; opens nothing (the stores it is given are already open).
 */
import type { RequestHandler } from 'express';
import type { AccessCache } from '../access/cache';
import type { AuditLog } from '../access/audit-log';
import { AuthThrottle } from '../admin/auth-throttle';
import type { AccessService } from '../admin/operations/access-service';
import type { GatewayConfig } from '../config/config.schema';
import { createClientAddressResolver, createForwardedResolver } from '../core-client/forwarded';
import type { TrafficSource } from '../metrics/traffic';
import type { OpenApiDocument } from '../openapi/openapi';
import type { RateLimiters } from '../policies/rate-limit/rate-limit';
import type { RedisClient } from '../redis/redis-client';
import type { SessionEpochs } from '../sessions/session-epochs';
import { createPortal } from './portal-app';
import { PortalAuth, type PortalSignInOutcome } from './portal-auth';
import { portalSessions } from './portal-session';
import type { RequestLog } from './request-log/request-log';

interface PortalParts {
  readonly access: AccessCache;
  readonly service: AccessService;
  readonly traffic: TrafficSource;
  readonly requestLog: RequestLog | null;
  readonly limiters: RateLimiters;
  readonly audit: AuditLog;
  readonly redis: RedisClient | null;
  readonly sessionEpochs: SessionEpochs;
  readonly apiDocument: OpenApiDocument;
  /** The secret every instance shares (the bootstrap admin token): the `portal` namespace's signing key is derived from it. */
  readonly sessionSecret: string;
  readonly onSignIn: (outcome: PortalSignInOutcome) => void;
}

/** The portal's handler, or undefined when `portal.enabled` is false. */
export function buildPortal(config: Readonly<GatewayConfig>, parts: PortalParts): RequestHandler | undefined {
  if (!config.portal.enabled) return undefined;
  const auth = new PortalAuth({
    access: parts.access,
    sessions: portalSessions({
      secret: parts.sessionSecret,
      idleMinutes: config.portal.sessionIdleMinutes,
      maxHours: config.portal.sessionMaxHours,
      epochs: parts.sessionEpochs,
    }),
    // Wrong portal tokens back off as wrong admin tokens do.
    throttle: new AuthThrottle({ freeFailures: config.admin.authFailuresBeforeBackoff, maxBackoffMs: config.admin.maxBackoffSeconds * 1000 }),
    audit: parts.audit,
    clientAddress: createClientAddressResolver(config.server.trustedProxies),
    // Behind a proxy that ends TLS the vendor port speaks HTTP, yet the browser is on HTTPS: an https public URL says so.
    secureCookie: config.server.tls.certFile !== null || config.server.publicUrl?.startsWith('https:') === true,
    onSignIn: parts.onSignIn,
  });
  const forwarded = createForwardedResolver(config.server);
  return createPortal({
    auth,
    service: parts.service,
    redis: parts.redis,
    keyPrefix: config.redis.keyPrefix,
    rotationsPerHour: config.portal.rotationsPerHour,
    traffic: parts.traffic,
    requestLog: parts.requestLog,
    allowance: (policy, keyId) => parts.limiters.allowance(policy, keyId),
    apiDocument: parts.apiDocument,
    origin: (req) => {
      const { proto, host } = forwarded(req);
      return `${proto}://${host}`;
    },
  });
}
