/**
 * The admin app's own per-request context: who made the call. The vendor RequestContext
 * (request/context.ts) carries nothing of the admin plane; the admin app keeps its caller here.
 *
 * Set by the credential check (auth.ts) once a token or session names an admin; read by every
 * `/v1` route, the bootstrap-use audit and the admin request log. Keyed by the response in a
 * WeakMap, so it ends with the request and never touches `res.locals`.
 */
import type { Response } from 'express';
import type { AdminIdentity } from './operations/admin-identity';

/** The admin of a call and its audit label (`admin:<id>`, never the token). */
interface AdminCaller {
  readonly actor: string;
  readonly identity: AdminIdentity;
}

const callers = new WeakMap<Response, AdminCaller>();

export function setAdminCaller(res: Response, identity: AdminIdentity): void {
  callers.set(res, { actor: `admin:${identity.id}`, identity });
}

/** The caller, or undefined before (or without) the credential check: the request log's case. */
export function adminCaller(res: Response): AdminCaller | undefined {
  return callers.get(res);
}

/** The admin of this call with its audit label; admin routes run only after the credential check. */
export function signedInAdmin(res: Response): AdminCaller {
  const caller = callers.get(res);
  if (!caller) throw new Error('admin routes run after the admin token check');
  return caller;
}

/** The audit label of the admin who made this call. */
export function authenticatedAdmin(res: Response): string {
  return signedInAdmin(res).actor;
}
