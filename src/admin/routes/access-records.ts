/**
 * The access records one at a time, under `/v1`: the API catalogue (`/apis`), vendors and
 * their rate limit, keys, licences, users and their permissions.
 *
 * Reads route parameters, JSON bodies and the paging query (`limit`, `after`). Lists answer
 * arrays, paged with a `Link: rel="next"` header where the service pages them. Reads need any
 * role; every write checks the `write` capability before its body is read (`writeBody`), then
 * goes through `submit` (route-kit.ts), which checks it again and either applies the write (with
 * its audit entry) or files it for approval. Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { ROUTES } from '../../catalogue/api-catalogue';
import { created, methodNotAllowed, noContent, ok, pageRequest, param, sendPage, type Routes, writeBody } from './route-kit';

/** The API ids a licence or permission may name, as the catalogue defines them. */
export function registerCatalogue(router: Router): void {
  // Fixed at start: the catalogue is code, not config.
  const apis = ROUTES.map((route) => ({ apiId: route.apiId, method: route.method, path: route.path, group: route.group }));
  router
    .route('/apis')
    .get(function listApis(_req, res) {
      res.json(apis);
    })
    .all(methodNotAllowed('GET'));
}

export function registerVendors(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors')
    .get(async function listVendors(req: Request, res: Response) {
      sendPage(req, res, await service.listVendors(pageRequest(req)));
    })
    .post(writeBody, submit(created((_req, id) => `vendors/${id}`), 'createVendor', (req) => [req.body]))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId')
    .get(async function getVendor(req: Request, res: Response) {
      res.json(await service.getVendor(param(req, 'vendorId')));
    })
    .patch(writeBody, submit(ok, 'patchVendor', (req) => [param(req, 'vendorId'), req.body]))
    .delete(submit(noContent, 'deleteVendor', (req) => [param(req, 'vendorId')]))
    .all(methodNotAllowed('GET, PATCH, DELETE'));
  router
    .route('/vendors/:vendorId/rate-limit')
    .put(writeBody, submit(ok, 'setRateLimit', (req) => [param(req, 'vendorId'), req.body]))
    .all(methodNotAllowed('PUT'));
}

export function registerKeys(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors/:vendorId/keys')
    .get(async function listKeys(req: Request, res: Response) {
      sendPage(req, res, await service.listKeys(param(req, 'vendorId'), pageRequest(req)));
    })
    .post(writeBody, submit(created((_req, id) => `keys/${id}`), 'issueKey', (req) => [param(req, 'vendorId'), req.body]))
    .all(methodNotAllowed('GET, POST'));
  // A key's id is unique across vendors, so its own routes need no vendor.
  router
    .route('/keys/:keyId')
    .patch(writeBody, submit(ok, 'patchKey', (req) => [param(req, 'keyId'), req.body]))
    .delete(submit(noContent, 'revokeKey', (req) => [param(req, 'keyId')]))
    .all(methodNotAllowed('PATCH, DELETE'));
}

export function registerLicences(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors/:vendorId/licences')
    .get(async function listLicences(req: Request, res: Response) {
      res.json(await service.listLicences(param(req, 'vendorId')));
    })
    .post(
      writeBody,
      submit(
        created((req, id) => `vendors/${param(req, 'vendorId')}/licences/${id}`),
        'grantLicence',
        (req) => [param(req, 'vendorId'), req.body],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId/licences/:licenceId')
    .delete(submit(noContent, 'revokeLicence', (req) => [param(req, 'vendorId'), param(req, 'licenceId')]))
    .all(methodNotAllowed('DELETE'));
}

/** A user comes into being with their first permission grant, so listing users sits here, with the grants. */
export function registerPermissions(router: Router, { service, submit }: Routes): void {
  router
    .route('/users')
    .get(async function listUsers(req: Request, res: Response) {
      sendPage(req, res, await service.listUsers(pageRequest(req)));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/users/:userId/permissions')
    .get(async function listPermissions(req: Request, res: Response) {
      sendPage(req, res, await service.listPermissions(param(req, 'userId'), pageRequest(req)));
    })
    .post(
      writeBody,
      submit(
        created((req, id) => `users/${param(req, 'userId')}/permissions/${id}`),
        'grantPermission',
        (req) => [param(req, 'userId'), req.body],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/users/:userId/permissions/:permissionId')
    .delete(submit(noContent, 'revokePermission', (req) => [param(req, 'userId'), param(req, 'permissionId')]))
    .all(methodNotAllowed('DELETE'));
}
