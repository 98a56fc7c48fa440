/**
 * Who is signed in and who may sign in: `GET /v1/me` (the signed-in admin and whether writes
 * need approval), `POST /v1/me/token` (a named admin rotates their own token) and, when the app
 * has an admin directory, the named admins under `/v1/admins` for the `manage-admins`
 * capability: list, create, change a role (`PATCH {role}`), delete, revoke another admin's
 * token, re-enrol an admin, block or unblock a single-sign-on admin; and
 * `POST /v1/admins/enrol`, which takes an enrolment code and no other credential.
 *
 * A token reaches only the admin it belongs to: creating or re-enrolling an admin answers a
 * one-time `enrolmentCode` (the maker hands it over; the admin redeems it for a token shown
 * once), and `POST /v1/admins/{other}/token` only revokes. With approvals required, creating,
 * re-enrolling and changing a role are filed for approval like any granting write (202; the code
 * in the answer already, usable once the change is approved); deleting, revoking and lowering a
 * role to viewer apply at once.
 *
 * Reads the signed-in admin from the request context and JSON bodies. Sets the admin records
 * through the AdminDirectory and the Proposals, which write each change with its audit entry;
 * codes and tokens are stored only as hashes.
 */
import type { Request, Response, Router } from 'express';
import { AdminDirectory, newEnrolmentCode } from '../operations/admin-directory';
import { BOOTSTRAP_ID } from '../operations/four-eyes';
import { GatewayError } from '../../errors/error-catalogue';
import { authenticatedAdmin, signedInAdmin } from '../admin-context';
import type { AuthThrottle } from '../auth-throttle';
import type { FailedLoginAudit } from '../failed-logins';
import { can, jsonBody, jsonBodyOf, methodNotAllowed, param, type Routes } from './route-kit';

/** `{"enrolmentCode": "cbe_…"}` is under 100 bytes; anyone may send it, so it may cost little. */
const ENROL_BODY_BYTES = 1024;

interface EnrolmentDeps {
  readonly admins: AdminDirectory | undefined;
  readonly throttle: AuthThrottle;
  readonly onFailure: () => void;
  /** Wrong codes are audited with wrong tokens, per address and minute (never the code). */
  readonly failedLogins: FailedLoginAudit;
  /** The client address by the `server.trustedProxies` rule, as the token throttle keys on it. */
  readonly clientAddress: (req: Request) => string;
}

/**
 * `POST /v1/admins/enrol` `{enrolmentCode}`: mounted before authentication, since the new admin
 * has no token yet. Wrong, used and expired codes answer alike (401) and count towards the
 * address's back-off and gateway_admin_auth_failures_total, as wrong tokens do.
 */
export function registerEnrolment(open: Router, { admins, throttle, onFailure, failedLogins, clientAddress }: EnrolmentDeps): void {
  if (!admins) return;
  open.post('/admins/enrol', ...jsonBodyOf(ENROL_BODY_BYTES), async function enrol(req: Request, res: Response) {
    // The token rule (auth.ts): a right code always passes; only wrong ones count and wait.
    const address = clientAddress(req);
    const code = (req.body as { enrolmentCode?: unknown } | undefined)?.enrolmentCode;
    const enrolled = typeof code === 'string' ? await admins.enrol(code) : null;
    if (enrolled) {
      res.status(200).json(enrolled);
      return;
    }
    const retryAfterSeconds = throttle.refused(address);
    failedLogins.record(address, retryAfterSeconds !== null);
    onFailure();
    if (retryAfterSeconds !== null) {
      const retryAfter = String(retryAfterSeconds);
      throw new GatewayError('rate_limited', `Too many wrong enrolment codes from this address; retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    throw new GatewayError('unauthorized', 'The enrolment code is wrong, used or expired; ask an owner for a new one.');
  });
}

export function registerAdmins(router: Router, { admins, proposals }: Routes): void {
  router
    .route('/me')
    .get(function whoAmI(_req, res) {
      const { identity } = signedInAdmin(res);
      // `approvals` ("required" or "off") tells the web UI's approvals page whether four eyes are on.
      res.json({ source: 'token', ...identity, approvals: res.app.locals.approvals as string });
    })
    .all(methodNotAllowed('GET'));
  // Without a directory only the bootstrap token signs in, and these paths are an ordinary 404.
  if (!admins) return;
  const actorOf = (res: Response): { actor: string; adminId: string } => {
    const { actor, identity } = signedInAdmin(res);
    return { actor, adminId: identity.id };
  };
  router
    .route('/me/token')
    .post(async function rotateOwnToken(_req: Request, res: Response) {
      const { identity } = signedInAdmin(res);
      if (identity.id === BOOTSTRAP_ID)
        throw new GatewayError('permission_denied', "The bootstrap token is ADMIN_TOKEN in the gateway's environment; change it there.");
      res.json((await admins.rotateOwn(identity.id)).result);
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/admins')
    .get(can('manage-admins'), async function listAdmins(_req: Request, res: Response) {
      res.json(await admins.list());
    })
    .post(can('manage-admins'), jsonBody, async function createAdmin(req: Request, res: Response) {
      const { code, codeHash } = newEnrolmentCode();
      const submitted = await proposals.submit('createAdmin', [AdminDirectory.withId(req.body), { codeHash }], actorOf(res));
      if ('pending' in submitted) {
        res
          .status(202)
          .location(`/v1/changes/${submitted.pending.id}`)
          .json({ ...submitted.pending, enrolmentCode: code });
        return;
      }
      const result = submitted.applied.result as { id: string };
      res
        .status(201)
        .location(`/v1/admins/${result.id}`)
        .json({ ...result, enrolmentCode: code });
    })
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/admins/:adminId')
    .patch(can('manage-admins'), jsonBody, async function changeRole(req: Request, res: Response) {
      const submitted = await proposals.submit('setAdminRole', [param(req, 'adminId'), req.body], actorOf(res));
      if ('pending' in submitted) res.status(202).location(`/v1/changes/${submitted.pending.id}`).json(submitted.pending);
      else res.status(200).json(submitted.applied.result);
    })
    .delete(can('manage-admins'), async function deleteAdmin(req: Request, res: Response) {
      await admins.remove(param(req, 'adminId'), authenticatedAdmin(res));
      res.status(204).end();
    })
    .all(methodNotAllowed('PATCH, DELETE'));
  router
    .route('/admins/:adminId/token')
    .post(async function adminToken(req: Request, res: Response, next) {
      const adminId = param(req, 'adminId');
      const { identity } = signedInAdmin(res);
      // One's own: a new token, as POST /v1/me/token. Anyone else's: revoked only.
      if (adminId === identity.id && identity.id !== BOOTSTRAP_ID) {
        res.json((await admins.rotateOwn(adminId)).result);
        return;
      }
      can('manage-admins')(req, res, (err?: unknown) => {
        if (err) {
          next(err);
          return;
        }
        admins.revokeToken(adminId, authenticatedAdmin(res)).then(({ result }) => res.json(result), next);
      });
    })
    .all(methodNotAllowed('POST'));
  // Single-sign-on admins (sso-admins.ts): blocking applies at once and, with the record's new
  // session salt, ends their sessions at their next request on any instance, for good; unblocking
  // lets one back in, so four eyes file it.
  router
    .route('/admins/:adminId/block')
    .post(can('manage-admins'), async function blockAdmin(req: Request, res: Response) {
      const submitted = await proposals.submit('setAdminBlocked', [param(req, 'adminId'), { blocked: true }], actorOf(res));
      res.status(200).json('pending' in submitted ? submitted.pending : submitted.applied.result);
    })
    .delete(can('manage-admins'), async function unblockAdmin(req: Request, res: Response) {
      const submitted = await proposals.submit('setAdminBlocked', [param(req, 'adminId'), { blocked: false }], actorOf(res));
      if ('pending' in submitted) res.status(202).location(`/v1/changes/${submitted.pending.id}`).json(submitted.pending);
      else res.status(200).json(submitted.applied.result);
    })
    .all(methodNotAllowed('POST, DELETE'));
  router
    .route('/admins/:adminId/enrolment')
    .post(can('manage-admins'), async function reenrolAdmin(req: Request, res: Response) {
      const { code, codeHash } = newEnrolmentCode();
      const submitted = await proposals.submit('reenrolAdmin', [param(req, 'adminId'), { codeHash }], actorOf(res));
      if ('pending' in submitted) {
        res
          .status(202)
          .location(`/v1/changes/${submitted.pending.id}`)
          .json({ ...submitted.pending, enrolmentCode: code });
        return;
      }
      res.status(200).json({ ...(submitted.applied.result as object), enrolmentCode: code });
    })
    .all(methodNotAllowed('POST'));
}
