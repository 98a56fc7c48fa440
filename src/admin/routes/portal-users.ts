/**
 * A vendor's portal users under `/v1/vendors/{vendorId}/portal-users` (README "Vendor portal"):
 * list and read them, invite one (the answer holds its portal token, once), re-issue its token
 * (`…/{portalUserId}/token`, the new token once, the old one stops working) and remove one.
 *
 * Reads route parameters, the JSON body of an invitation and the paging query (`limit`,
 * `after`); the list answers an array, paged with a `Link: rel="next"` header. Reads need any
 * role; every write goes through `submit` (route-kit.ts): the `write` capability, then applied
 * with its audit entry or, with approvals required, filed like issuing a key (an invitation, a
 * re-issue) or applied at once like revoking one (a removal). Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import type { PortalUsers } from '../operations/portal-users';
import { created, methodNotAllowed, noContent, ok, pageRequest, param, sendPage, type Routes, writeBody } from './route-kit';

export function registerPortalUsers(router: Router, { portalUsers, submit }: Routes): void {
  const users = (): PortalUsers => {
    if (!portalUsers) throw new GatewayError('not_found', 'This gateway has no vendor portal users.');
    return portalUsers;
  };
  router
    .route('/vendors/:vendorId/portal-users')
    .get(async function listPortalUsers(req: Request, res: Response) {
      sendPage(req, res, await users().list(param(req, 'vendorId'), pageRequest(req)));
    })
    .post(
      writeBody,
      submit(
        created((req, id) => `vendors/${param(req, 'vendorId')}/portal-users/${id}`),
        'invitePortalUser',
        (req) => [param(req, 'vendorId'), req.body],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId/portal-users/:portalUserId')
    .get(async function getPortalUser(req: Request, res: Response) {
      res.json(await users().get(param(req, 'vendorId'), param(req, 'portalUserId')));
    })
    .delete(submit(noContent, 'removePortalUser', (req) => [param(req, 'vendorId'), param(req, 'portalUserId')]))
    .all(methodNotAllowed('GET, DELETE'));
  router
    .route('/vendors/:vendorId/portal-users/:portalUserId/token')
    .post(submit(ok, 'reissuePortalToken', (req) => [param(req, 'vendorId'), param(req, 'portalUserId')]))
    .all(methodNotAllowed('POST'));
}
