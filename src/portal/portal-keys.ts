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
import type { AccessService } from '../admin/operations/access-service';
import { rotateKey, rotationOf } from '../admin/operations/key-rotation';
import { portalCaller } from './portal-auth';
import { smallJsonBody } from './portal-body';
import { portalLimiter, spendPortalLimit, type PortalLimitDeps } from './portal-limits';
import { PORTAL_API } from './portal-session';

export interface PortalKeyDeps extends PortalLimitDeps {
  readonly service: AccessService;
  readonly rotationsPerHour: number;
}

export function registerPortalKeys(api: Router, deps: PortalKeyDeps): void {
  const limiter = portalLimiter(deps, 'rotations', deps.rotationsPerHour, 3600);
  api.get(`${PORTAL_API}/keys`, async function listPortalKeys(_req, res) {
    const { vendor } = portalCaller(res);
    res.json((await deps.service.listKeys(vendor.id)).items);
  });
  api.post(`${PORTAL_API}/keys/:keyId/rotate`, ...smallJsonBody, async function rotatePortalKey(req, res) {
    const { vendor, user, actor } = portalCaller(res);
    // A body that names no rotation spends none of the hour's.
    const rotation = rotationOf(req.body);
    await spendPortalLimit(limiter, user.id, 'key rotations');
    const outcome = await rotateKey(deps.service.writer, vendor.id, req.params.keyId as string, rotation, actor);
    res.status(201).json(outcome.result);
  });
  api.delete(`${PORTAL_API}/keys/:keyId`, async function revokePortalKey(req, res) {
    const { vendor, actor } = portalCaller(res);
    res.json((await deps.service.revokeKey(req.params.keyId as string, actor, vendor.id)).result);
  });
}
