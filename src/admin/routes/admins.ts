/**
 * Who is signed in and who may sign in: `GET /v1/me` (the signed-in admin and whether writes
 * need approval) and, when the app has an admin directory, the named admins under
 * `/v1/admins` (list, create, remove, rotate a token), for the `manage-admins` capability only.
 *
 * Reads the signed-in admin from the request context and JSON bodies. Sets the admin records
 * through the AdminDirectory, which writes each change with its audit entry; a new or rotated
 * token is in that one answer and stored only as a hash. These writes never wait for approval.
 */
import type { Request, Response, Router } from 'express';
import { authenticatedAdmin, signedInAdmin } from '../../request/context';
import { can, jsonBody, methodNotAllowed, param, type Routes } from './route-kit';

export function registerAdmins(router: Router, { admins }: Routes): void {
  router
    .route('/me')
    .get(function whoAmI(_req, res) {
      const { identity } = signedInAdmin(res);
      // `approvals` ("required" or "off") tells the web UI's approvals page whether four eyes are on.
      res.json({ ...identity, approvals: res.app.locals.approvals as string });
    })
    .all(methodNotAllowed('GET'));
  // Without a directory only the bootstrap token signs in, and these paths are an ordinary 404.
  if (!admins) return;
  router
    .route('/admins')
    .get(can('manage-admins'), async function listAdmins(_req: Request, res: Response) {
      res.json(await admins.list());
    })
    .post(can('manage-admins'), jsonBody, async function createAdmin(req: Request, res: Response) {
      const { result } = await admins.create(req.body, authenticatedAdmin(res));
      res.status(201).location(`/v1/admins/${result.id}`).json(result);
    })
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/admins/:adminId')
    .delete(can('manage-admins'), async function deleteAdmin(req: Request, res: Response) {
      await admins.remove(param(req, 'adminId'), authenticatedAdmin(res));
      res.status(204).end();
    })
    .all(methodNotAllowed('DELETE'));
  router
    .route('/admins/:adminId/token')
    .post(can('manage-admins'), async function rotateAdminToken(req: Request, res: Response) {
      const { result } = await admins.rotate(param(req, 'adminId'), authenticatedAdmin(res));
      res.json(result);
    })
    .all(methodNotAllowed('POST'));
}
