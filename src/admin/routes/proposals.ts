/**
 * Four eyes: the proposals under `/v1/changes`. `GET` lists proposals or shows one;
 * `POST /v1/changes` files a write by name, `{"operation": "grantLicence", "args": ["acme",
 * {"api": "GET*"}]}`; `POST .../approve` applies a proposal, `POST .../reject` drops it.
 *
 * Reads JSON bodies, route parameters and the signed-in admin. Filing needs `write`, deciding
 * needs `approve`; the proposals refuses a checker who counts as the maker's person (four-eyes.ts). Admin writes are filed only by their own routes (admins.ts). Sets the queue
 * and, on approval, the access config (with its audit entry), through the Proposals.
 * A write that needs no approval (approvals off, or one that only reduces access) applies at
 * once and answers 200 with its result; one that does answers 202 with the proposal.
 */
import type { Request, Response, Router } from 'express';
import { isFileableOperation } from '../operations/proposals';
import { GatewayError } from '../../errors/error-catalogue';
import { signedInAdmin } from '../admin-context';
import { can, jsonBody, methodNotAllowed, param, type Routes } from './route-kit';

export function registerProposals(router: Router, { proposals }: Routes): void {
  const actorOf = (res: Response): { actor: string; adminId: string } => {
    const { actor, identity } = signedInAdmin(res);
    return { actor, adminId: identity.id };
  };
  router
    .route('/changes')
    .get(async function listChanges(_req: Request, res: Response) {
      res.json(await proposals.list());
    })
    .post(can('write'), jsonBody, async function proposeChange(req: Request, res: Response) {
      const { operation, args } = (req.body ?? {}) as { operation?: unknown; args?: unknown };
      const errors = [
        ...(isFileableOperation(operation) ? [] : [{ field: 'operation', message: 'the name of an admin write, e.g. grantLicence' }]),
        ...(Array.isArray(args) && args.length <= 4 ? [] : [{ field: 'args', message: "the write's arguments, as a list" }]),
      ];
      if (errors.length > 0 || !isFileableOperation(operation) || !Array.isArray(args))
        throw new GatewayError('invalid_request', 'The change is not valid; see errors.', { errors });
      const submitted = await proposals.submit(operation, args, actorOf(res));
      if ('pending' in submitted) res.status(202).location(`/v1/changes/${submitted.pending.id}`).json(submitted.pending);
      else res.status(200).json(submitted.applied.result);
    })
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/changes/:changeId')
    .get(async function getChange(req: Request, res: Response) {
      res.json(await proposals.get(param(req, 'changeId')));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/changes/:changeId/approve')
    .post(can('approve'), async function approveChange(req: Request, res: Response) {
      const { result } = await proposals.approve(param(req, 'changeId'), actorOf(res));
      res.status(200).json(result);
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/changes/:changeId/reject')
    .post(can('approve'), async function rejectChange(req: Request, res: Response) {
      await proposals.reject(param(req, 'changeId'), actorOf(res));
      res.status(204).end();
    })
    .all(methodNotAllowed('POST'));
}
