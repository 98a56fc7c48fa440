/**
 * The portal's Keys: `GET /portal/api/keys` (the vendor's keys, revoked ones too, with their last
 * use), `POST /portal/api/keys/{keyId}/rotate` `{overlapHours}` and `DELETE /portal/api/keys/{keyId}`.
 * Both writes keep or reduce access, so they apply at once even under four eyes, and each is
 * audited as the portal user (`portal:<vendorId>:<portalUserId>`). Another vendor's key id is a 404,
 * as a key that never was. Rotations are limited per portal user (`portal.rotationsPerHour`,
 * counted in Redis when there is one, so across instances).
 *
 * Reads the caller (portal-auth.ts) and the access config; writes through the AccessService.
 */
import type { Router } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AccessService } from '../admin/operations/access-service';
import { rotateKey, rotationOf } from '../admin/operations/key-rotation';
import { GatewayError } from '../errors/error-catalogue';
import type { RedisClient } from '../redis/redis-client';
import { portalCaller } from './portal-auth';
import { smallJsonBody } from './portal-body';
import { PORTAL_API } from './portal-session';

export interface PortalKeyDeps {
  readonly service: AccessService;
  readonly redis: RedisClient | null;
  readonly keyPrefix: string;
  readonly rotationsPerHour: number;
}

function rotationLimiter(deps: PortalKeyDeps): RateLimiterAbstract {
  const options = { keyPrefix: `${deps.keyPrefix}portal:rotations`, points: deps.rotationsPerHour, duration: 3600 };
  return deps.redis ? new RateLimiterRedis({ ...options, storeClient: deps.redis, rejectIfRedisNotReady: true }) : new RateLimiterMemory(options);
}

/** Spends one of the portal user's rotations this hour; 429 when none is left, 503 when the count cannot be kept. */
async function spendRotation(limiter: RateLimiterAbstract, portalUserId: string): Promise<void> {
  try {
    await limiter.consume(portalUserId);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      throw new GatewayError('rate_limited', `Too many key rotations from this portal user; retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    throw new GatewayError('store_unavailable', 'The rotation count cannot be kept right now; retry shortly.', {
      cause: rejection,
      headers: { 'Retry-After': '1' },
    });
  }
}

export function registerPortalKeys(api: Router, deps: PortalKeyDeps): void {
  const limiter = rotationLimiter(deps);
  api.get(`${PORTAL_API}/keys`, async function listPortalKeys(_req, res) {
    const { vendor } = portalCaller(res);
    res.json((await deps.service.listKeys(vendor.id)).items);
  });
  api.post(`${PORTAL_API}/keys/:keyId/rotate`, ...smallJsonBody, async function rotatePortalKey(req, res) {
    const { vendor, user, actor } = portalCaller(res);
    // A body that names no rotation spends none of the hour's.
    const rotation = rotationOf(req.body);
    await spendRotation(limiter, user.id);
    const outcome = await rotateKey(deps.service.writer, vendor.id, req.params.keyId as string, rotation, actor);
    res.status(201).json(outcome.result);
  });
  api.delete(`${PORTAL_API}/keys/:keyId`, async function revokePortalKey(req, res) {
    const { vendor, actor } = portalCaller(res);
    res.json((await deps.service.revokeKey(req.params.keyId as string, actor, vendor.id)).result);
  });
}
