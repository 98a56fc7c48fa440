/**
 * What every admin route module under `/v1` shares: the registration context (`Routes`), the
 * role guard, body and query parsing, paging, the answers of a write, and `submit`, which runs
 * a write as the signed-in admin: applied at once, or filed as a four-eyes proposal.
 *
 * Reads JSON bodies (up to 1 MB; another media type is a 415), the `limit` and `after` query
 * parameters of a paged list, route parameters, and the signed-in admin from the admin context
 * (admin-context.ts, set by auth.ts). Sets the answer only: status, `Location`, `Link: rel="next"`,
 * and, for a write, whatever `Proposals.submit` does (apply it with its audit entry in one step,
 * or file it for approval). Errors are GatewayErrors for the shared error handler.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { AccessService, Page, PageRequest } from '../operations/access-service';
import type { AdminDirectory } from '../operations/admin-directory';
import type { PortalUsers } from '../operations/portal-users';
import type { Proposals, OperationName } from '../operations/proposals';
import { GatewayError } from '../../errors/error-catalogue';
import type { Logger } from '../../logging/logger';
import { context } from '../../request/context';
import { signedInAdmin } from '../admin-context';
import type { AuditLog } from '../../access/audit-log';
import { roleAllows, type Capability } from '../operations/roles';
import { announcesBody, declaredSizeAtMost, refuseUnread, verifyJsonDepth } from './body-guard';

const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_PAGE_LIMIT = 1000;
export const JSON_TYPES = ['application/json'];

/** Answers a request with the result of a write (or of a dry run). */
export type Responder = (req: Request, res: Response, result: unknown) => void;

/**
 * Route registration context: the service, and `submit` which runs a write as the signed-in admin
 * (an operator or owner) and answers, or, with approvals required, files it and answers 202.
 */
export interface Routes {
  readonly service: AccessService;
  readonly audit: AuditLog;
  readonly proposals: Proposals;
  readonly admins: AdminDirectory | undefined;
  /** Vendor portal users; without them their routes answer 404. */
  readonly portalUsers: PortalUsers | undefined;
  readonly maxDocumentBytes: number;
  submit(respond: Responder, operation: OperationName, args: (req: Request) => unknown[]): RequestHandler[];
}

/**
 * 403 `permission_denied` unless the signed-in admin's role allows `capability`. Put before the
 * body parser, it refuses from the headers: the connection then closes, so the body is not read.
 */
export function can(capability: Capability): RequestHandler {
  return function roleCheck(req, res, next) {
    const { role } = signedInAdmin(res).identity;
    if (!roleAllows(role, capability)) {
      const refusal = new GatewayError('permission_denied', `The ${role} role may not do this (it needs ${capability}).`);
      if (announcesBody(req.headers) && !req.complete) refuseUnread(next, res, refusal);
      else next(refusal);
      return;
    }
    next();
  };
}

/**
 * `Routes.submit` over one proposals: the role guard, then the write. The store writes the
 * change and its audit entry in one step; this only logs it (and, when approvals are required,
 * answers 202 with the proposal instead of `respond`).
 */
export function writeSubmitter(proposals: Proposals, logger: Logger): Routes['submit'] {
  return (respond, operation, args) => [
    can('write'),
    async function submitWrite(req: Request, res: Response) {
      const { actor, identity } = signedInAdmin(res);
      const submitted = await proposals.submit(operation, args(req), { actor, adminId: identity.id });
      const { requestId } = context(res);
      if ('pending' in submitted) {
        const { id, action, target } = submitted.pending;
        logger.info({ requestId, actor, action, target, changeId: id }, 'admin change filed for approval');
        res.status(202).location(`/v1/changes/${id}`).json(submitted.pending);
        return;
      }
      const { change, result } = submitted.applied;
      if (change) logger.info({ requestId, actor, action: change.action, target: change.target }, 'admin change');
      respond(req, res, result);
    },
  ];
}

/** 415 for a body of another media type; an empty body passes (validation names the fields). */
export function accepts(types: readonly string[]): RequestHandler {
  return function mediaType(req, _res, next) {
    if (req.headers['content-length'] !== '0' && req.is([...types]) === false) {
      next(new GatewayError('unsupported_media_type', `Send the body as ${types.join(' or ')}.`));
      return;
    }
    next();
  };
}

const invited = new WeakSet<Response>();

/**
 * `Expect: 100-continue` is answered here, by the route about to read the body, not by Node as
 * the request arrives (the admin listener hands such requests to the app: `continueFromRoutes`
 * in admin-app.ts). So a client that asks first sends no body to a request refused before this.
 */
export function inviteBody(req: Request, res: Response, next: () => void): void {
  if (/^100-continue$/i.test(req.headers.expect ?? '') && !invited.has(res) && !res.headersSent) {
    invited.add(res);
    res.writeContinue();
  }
  next();
}

/**
 * A JSON body of at most `limit` bytes (1 MB), nested at most MAX_BODY_DEPTH deep: what every
 * `/v1` route with a body takes, but `PUT /v1/access`. A larger `Content-Length` is refused
 * (413) before the body is read; the depth is checked on the raw bytes before they are parsed.
 * Put the route's role check before it.
 */
export const jsonBodyOf = (limit: number): RequestHandler[] => [
  declaredSizeAtMost(limit),
  accepts(JSON_TYPES),
  inviteBody,
  express.json({ limit, verify: verifyJsonDepth }),
];
export const jsonBody: RequestHandler[] = jsonBodyOf(BODY_LIMIT_BYTES);

/** A write's JSON body: the `write` capability first (403 before a byte of body is read), then `jsonBody`. */
export const writeBody: RequestHandler[] = [can('write'), ...jsonBody];

/** The last handler of each route: 405 with the `Allow` header for any other method. */
export function methodNotAllowed(allow: string): RequestHandler {
  return function wrongMethod(req, _res, next) {
    next(new GatewayError('method_not_allowed', `${req.method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } }));
  };
}

/** A route parameter; Express sets every one the route's path names. */
export const param = (req: Request, name: string): string => req.params[name] as string;

export function queryFlag(req: Request, name: string): boolean {
  const value = req.query[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true' || value === '') return true;
  throw new GatewayError('invalid_request', `The query parameter ${name} is not valid.`, {
    errors: [{ field: name, message: 'true or false' }],
  });
}

/** A grant's options argument from `?allowEmpty=true` (a pattern matching no API id is then taken), or none. */
export const allowEmptyArgs = (req: Request): unknown[] => (queryFlag(req, 'allowEmpty') ? [{ allowEmpty: true }] : []);

export function queryInteger(req: Request, name: string, fallback: number, max: number): number {
  const value = req.query[name];
  if (value === undefined) return fallback;
  const parsed = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(parsed >= 1 && parsed <= max)) {
    throw new GatewayError('invalid_request', `The query parameter ${name} is not valid.`, {
      errors: [{ field: name, message: `a whole number from 1 to ${max}` }],
    });
  }
  return parsed;
}

/**
 * `limit` and `after` of a paged list. The cursor is opaque to callers: the last id of the
 * previous page, base64url-encoded.
 */
export function pageRequest(req: Request): PageRequest {
  const limit = req.query.limit === undefined ? undefined : queryInteger(req, 'limit', MAX_PAGE_LIMIT, MAX_PAGE_LIMIT);
  const raw = req.query.after;
  if (raw === undefined) return { limit };
  const after = typeof raw === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(raw) ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  if (after.length === 0) {
    throw new GatewayError('invalid_request', 'The query parameter after is not valid.', {
      errors: [{ field: 'after', message: 'a cursor from a Link header' }],
    });
  }
  return { limit, after };
}

/** `Link: <...>; rel="next"`: this request's query with `cursor` set to `value`. */
export function setNextLink(req: Request, res: Response, cursor: string, value: string): void {
  const query = new URLSearchParams();
  for (const [name, given] of Object.entries(req.query)) if (name !== cursor && typeof given === 'string') query.set(name, given);
  query.set(cursor, value);
  res.setHeader('Link', `<${req.baseUrl}${req.path}?${query.toString()}>; rel="next"`);
}

/** Answers a page as the plain array callers always had, with `Link: <...>; rel="next"` when there is more. */
export function sendPage<T>(req: Request, res: Response, page: Page<T>): void {
  if (page.next !== null) setNextLink(req, res, 'after', Buffer.from(page.next, 'utf8').toString('base64url'));
  res.json(page.items);
}

/** 201 with the new thing's address; `path` gets the request and the new thing's id. */
export const created =
  (path: (req: Request, id: string) => string): Responder =>
  (req, res, result) => {
    res
      .status(201)
      .location(`/v1/${path(req, (result as { id: string }).id)}`)
      .json(result);
  };
export const ok: Responder = (_req, res, result) => {
  res.status(200).json(result);
};
export const noContent: Responder = (_req, res) => {
  res.status(204).end();
};
