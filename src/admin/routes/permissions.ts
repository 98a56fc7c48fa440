/**
 * Users and their permissions under `/v1/users`.
 *
 * Reads route parameters, JSON bodies and the paging query (`limit`, `after`). Lists answer
 * arrays, paged with a `Link: rel="next"` header where the service pages them. Reads need any
 * role; every write checks the `write` capability before its body is read (`writeBody`), then
 * goes through `submit` (route-kit.ts), which checks it again and either applies the write (with
 * its audit entry) or files it for approval. Sets nothing itself.
 */
import type { Request, Response, Router } from 'express';
import { allowEmptyArgs, created, methodNotAllowed, noContent, pageRequest, param, sendPage, type Routes, writeBody } from './route-kit';

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
        (req) => [param(req, 'userId'), req.body, ...allowEmptyArgs(req)],
      ),
    )
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/users/:userId/permissions/:permissionId')
    .delete(submit(noContent, 'revokePermission', (req) => [param(req, 'userId'), param(req, 'permissionId')]))
    .all(methodNotAllowed('DELETE'));
}
