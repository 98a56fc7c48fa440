/**
 * A vendor's licences under `/v1/vendors/{vendorId}/licences`.
 *
 * Reads route parameters and JSON bodies; the list answers an array, unpaged (a vendor holds few
 * licences). Reads need any role; every write checks the `write` capability before its body is read (`writeBody`), then
 * goes through `submit` (route-kit.ts), which checks it again and either applies the write (with
 * its audit entry) or files it for approval. Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { allowEmptyArgs, created, methodNotAllowed, noContent, param, type Routes, writeBody } from './route-kit';

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
        (req) => [param(req, 'vendorId'), req.body, ...allowEmptyArgs(req)],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId/licences/:licenceId')
    .delete(submit(noContent, 'revokeLicence', (req) => [param(req, 'vendorId'), param(req, 'licenceId')]))
    .all(methodNotAllowed('DELETE'));
}
