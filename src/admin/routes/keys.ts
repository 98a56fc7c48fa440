/**
 * A vendor's keys under `/v1/vendors/{vendorId}/keys`, and each key under `/v1/keys/{keyId}`
 * (a key's id is unique across vendors).
 *
 * Reads route parameters, JSON bodies and the paging query (`limit`, `after`). Lists answer
 * arrays, paged with a `Link: rel="next"` header where the service pages them. Reads need any
 * role; every write checks the `write` capability before its body is read (`writeBody`), then
 * goes through `submit` (route-kit.ts), which checks it again and either applies the write (with
 * its audit entry) or files it for approval. Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { created, methodNotAllowed, noContent, ok, pageRequest, param, sendPage, type Routes, writeBody } from './route-kit';

export function registerKeys(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors/:vendorId/keys')
    .get(async function listKeys(req: Request, res: Response) {
      sendPage(req, res, await service.listKeys(param(req, 'vendorId'), pageRequest(req)));
    })
    .post(
      writeBody,
      submit(
        created((_req, id) => `keys/${id}`),
        'issueKey',
        (req) => [param(req, 'vendorId'), req.body],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  // A key's id is unique across vendors, so its own routes need no vendor.
  router
    .route('/keys/:keyId')
    .patch(
      writeBody,
      submit(ok, 'patchKey', (req) => [param(req, 'keyId'), req.body]),
    )
    .delete(submit(noContent, 'revokeKey', (req) => [param(req, 'keyId')]))
    .all(methodNotAllowed('PATCH, DELETE'));
}
