/**
 * Vendors and their rate limit under `/v1/vendors`.
 *
 * Reads route parameters, JSON bodies and the paging query (`limit`, `after`). Lists answer
 * arrays, paged with a `Link: rel="next"` header where the service pages them. Reads need any
 * role; every write checks the `write` capability before its body is read (`writeBody`), then
 * goes through `submit` (route-kit.ts), which checks it again and either applies the write (with
 * its audit entry) or files it for approval. Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { allowEmptyArgs, created, methodNotAllowed, noContent, ok, pageRequest, param, sendPage, type Routes, writeBody } from './route-kit';

export function registerVendors(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors')
    .get(async function listVendors(req: Request, res: Response) {
      sendPage(req, res, await service.listVendors(pageRequest(req)));
    })
    .post(
      writeBody,
      submit(
        created((_req, id) => `vendors/${id}`),
        'createVendor',
        (req) => [req.body, ...allowEmptyArgs(req)],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId')
    .get(async function getVendor(req: Request, res: Response) {
      res.json(await service.getVendor(param(req, 'vendorId')));
    })
    .patch(
      writeBody,
      submit(ok, 'patchVendor', (req) => [param(req, 'vendorId'), req.body]),
    )
    .delete(submit(noContent, 'deleteVendor', (req) => [param(req, 'vendorId')]))
    .all(methodNotAllowed('GET, PATCH, DELETE'));
  router
    .route('/vendors/:vendorId/rate-limit')
    .put(
      writeBody,
      submit(ok, 'setRateLimit', (req) => [param(req, 'vendorId'), req.body]),
    )
    .all(methodNotAllowed('PUT'));
}
