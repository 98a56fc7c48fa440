/**
 * The admin API (public contract: README "Admin API"): vendors, keys, licences, user
 * permissions, rate limits, the whole access document and the audit log, under `/v1`.
 *
 * Reads `Authorization: Bearer <admin token>` (compared in constant time), JSON bodies, and a
 * JSON or YAML body (`application/yaml`, `text/yaml`, up to `maxDocumentBytes`) for
 * `PUT /v1/access`. Sets nothing but the access config (through the AccessService, whose store
 * writes each change with its audit entry in one step; the actor is a label derived from the
 * token, never the token) and the audit log. Lists answer arrays, paged by `limit` and an opaque
 * `after` cursor with a `Link: rel="next"` header; the whole document is streamed.
 * Errors are problem details from the shared error handler; responses are never cached.
 * Every request is logged when it ends (method, path, status, actor; never a body or a
 * header). Wrong tokens are counted (`onAuthFailure`) and, past `throttle.freeFailures` in a
 * row from one address, answered 429 with an exponential back-off (see auth-throttle.ts).
 * Reading the access document is audited like a write, and refused (503) when the audit log
 * cannot record it.
 *
 * To add routes (e.g. the sandbox SMS outbox), write one more `register...` function taking
 * the `/v1` router and call it from `createAdminApp`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { parse as parseYaml } from 'yaml';
import type { AccessService, Page, PageRequest } from '../access/access-service';
import { BOOTSTRAP_ADMIN, type AdminDirectory, type AdminIdentity } from '../access/admin-directory';
import { ChangeQueue, isOperationName, type OperationName } from '../access/change-queue';
import { roleAllows, type Capability } from './roles';
import { AdminSessions, cookieValue, SESSION_COOKIE, tokenFingerprint } from './admin-session';
import { registerUi, securityHeaders, sessionCookie, UI_WRITE_HEADER, UI_WRITE_HEADER_VALUE } from './ui-routes';
import { ROUTES } from '../catalogue/api-catalogue';
import { GatewayError } from '../errors/error-catalogue';
import type { Logger } from '../logging/logger';
import { createErrorHandler } from '../request/error-handler';
import { authenticatedAdmin, context, signedInAdmin } from '../request/context';
import { requestContext, type RequestObserver } from '../policies/request-context/request-context';
import { adminSchema } from './admin.schema';
import { AuthThrottle } from './auth-throttle';
import { requestContextSchema } from '../policies/request-context/request-context.schema';
import type { SmsOutboxReader } from '../sms/outbox';
import type { AuditLog } from './audit';
import { registerSandbox } from './sandbox-routes';

export interface AdminAppDeps {
  readonly service: AccessService;
  /** Named admins; without it only the bootstrap token signs in. */
  readonly admins?: AdminDirectory;
  /** Four eyes; without it every write applies at once. */
  readonly changes?: ChangeQueue;
  readonly audit: AuditLog;
  /** The bootstrap admin bearer token; never logged, never stored in the audit log. */
  readonly adminToken: string;
  readonly logger: Logger;
  /** The SMS outbox, in sandbox mode only: serves GET /v1/sandbox/sms when set. */
  readonly smsOutbox?: SmsOutboxReader;
  /** Back-off per source address after wrong tokens; by default the config's defaults. */
  readonly throttle?: AuthThrottle;
  /** Told of each wrong or missing token (gateway_admin_auth_failures_total). */
  readonly onAuthFailure?: () => void;
  /** The largest whole access document `PUT /v1/access` takes (admin.maxDocumentBytes). */
  readonly maxDocumentBytes?: number;
  /** The web UI signs a browser out after this long without a request (admin.sessionIdleMinutes). */
  readonly sessionIdleMinutes?: number;
  /** The session cookie is Secure (HTTPS on the admin port). */
  readonly secureCookie?: boolean;
  /** What the overview shows: modes, config version, Redis, breakers, vendor traffic. */
  readonly overview?: () => unknown;
}

const BODY_LIMIT = '1mb';
const DEFAULT_MAX_DOCUMENT_BYTES = adminSchema.shape.maxDocumentBytes.parse(undefined);
const MAX_PAGE_LIMIT = 1000;
const JSON_TYPES = ['application/json'];
const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml'];
const DEFAULT_AUDIT_LIMIT = 50;
const MAX_AUDIT_LIMIT = 1000;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The admin a token belongs to: the bootstrap owner, a named admin, or nobody. */
type AdminLookup = (token: string) => Promise<AdminIdentity | null>;

/** The admin a token belongs to: the bootstrap owner, a named admin, or nobody. */
function tokenLookup(adminToken: string, admins: AdminDirectory | undefined): AdminLookup {
  // Both sides hashed first: equal lengths for timingSafeEqual, and no length leak.
  const expected = digest(adminToken);
  return async (token) => {
    if (timingSafeEqual(digest(token), expected)) return BOOTSTRAP_ADMIN;
    return admins ? admins.authenticate(token) : null;
  };
}

interface AdminAuthOptions {
  readonly lookup: AdminLookup;
  readonly adminToken: string;
  readonly admins: AdminDirectory | undefined;
  readonly sessions: AdminSessions;
  readonly throttle: AuthThrottle;
  readonly onFailure: () => void;
  readonly secureCookie: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Who calls: `Authorization: Bearer <token>` (scripts, gatewayctl), or the web UI's session
 * cookie, whose writes must also carry the UI's request header (a cross-site page cannot set it).
 * A cookie session is slid forward on each request.
 */
/** The admin of a browser's session cookie (slid forward), or null. */
function sessionReader(options: AdminAuthOptions): (req: Request, res: Response) => Promise<AdminIdentity | null> {
  const { sessions } = options;
  const bootstrapFingerprint = tokenFingerprint(options.adminToken);
  return async (req, res) => {
    const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const claims = value === null ? null : sessions.read(value);
    if (!claims) return null;
    const admin =
      claims.adminId === BOOTSTRAP_ADMIN.id
        ? claims.tokenFingerprint === bootstrapFingerprint
          ? BOOTSTRAP_ADMIN
          : null
        : ((await options.admins?.sessionIdentity(claims.adminId, claims.tokenFingerprint)) ?? null);
    if (admin) {
      const renewed = sessions.issue(admin.id, claims.tokenFingerprint);
      res.setHeader('Set-Cookie', sessionCookie(renewed.value, renewed.maxAgeSeconds, options.secureCookie));
    }
    return admin;
  };
}

function adminAuth(options: AdminAuthOptions, readSession: (req: Request, res: Response) => Promise<AdminIdentity | null>): RequestHandler {
  const { lookup, throttle, onFailure } = options;
  const fromSession = async (req: Request, res: Response): Promise<AdminIdentity | null> => {
    if (!SAFE_METHODS.has(req.method) && cookieValue(req.headers.cookie, SESSION_COOKIE) !== null && req.headers[UI_WRITE_HEADER] !== UI_WRITE_HEADER_VALUE) {
      throw new GatewayError('permission_denied', `A write from the web UI must carry ${UI_WRITE_HEADER}: ${UI_WRITE_HEADER_VALUE}.`);
    }
    return readSession(req, res);
  };
  return async function authenticateAdmin(req, res, next) {
    const address = req.socket.remoteAddress ?? 'unknown';
    const waitMs = throttle.waitMs(address);
    if (waitMs > 0) {
      const retryAfter = String(Math.ceil(waitMs / 1000));
      next(new GatewayError('rate_limited', `Too many wrong admin tokens from this address; retry in ${retryAfter} s.`, { headers: { 'Retry-After': retryAfter } }));
      return;
    }
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    const admin = match?.[1] ? await lookup(match[1]) : req.headers.authorization === undefined ? await fromSession(req, res) : null;
    if (!admin) {
      throttle.failed(address);
      onFailure();
      next(
        new GatewayError('unauthorized', 'Send the admin token as "Authorization: Bearer <token>", or sign in to the web UI.', {
          headers: { 'WWW-Authenticate': 'Bearer realm="gateway-admin"' },
        }),
      );
      return;
    }
    throttle.succeeded(address);
    context(res).adminActor = `admin:${admin.id}`;
    context(res).admin = admin;
    next();
  };
}

/** 403 `permission_denied` unless the signed-in admin's role allows `capability`. */
function can(capability: Capability): RequestHandler {
  return function roleCheck(_req, res, next) {
    const { role } = signedInAdmin(res).identity;
    if (!roleAllows(role, capability)) {
      next(new GatewayError('permission_denied', `The ${role} role may not do this (it needs ${capability}).`));
      return;
    }
    next();
  };
}

function defaultThrottle(): AuthThrottle {
  const defaults = adminSchema.parse({});
  return new AuthThrottle({ freeFailures: defaults.authFailuresBeforeBackoff, maxBackoffMs: defaults.maxBackoffSeconds * 1000 });
}

/** One line per admin request when it ends: who did what, and how it went; never a body or a header. */
function adminAccessLog(logger: Logger): RequestObserver {
  return function logAdminRequest(req, res, ctx) {
    const durationMs = Math.round(Number(process.hrtime.bigint() - ctx.startedAt) / 1e3) / 1e3;
    logger.info({ requestId: ctx.requestId, method: req.method, path: req.path, status: res.statusCode, actor: ctx.adminActor ?? 'anonymous', durationMs }, 'admin request');
  };
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/** 415 for a body of another media type; an empty body passes (validation names the fields). */
function accepts(types: readonly string[]): RequestHandler {
  return function mediaType(req, _res, next) {
    if (req.headers['content-length'] !== '0' && req.is([...types]) === false) {
      next(new GatewayError('unsupported_media_type', `Send the body as ${types.join(' or ')}.`));
      return;
    }
    next();
  };
}

function methodNotAllowed(allow: string): RequestHandler {
  return function wrongMethod(req, _res, next) {
    next(new GatewayError('method_not_allowed', `${req.method} is not allowed here; use ${allow}.`, { headers: { Allow: allow } }));
  };
}

function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new GatewayError('not_found', `No admin route ${req.method} ${req.path}.`));
}

function queryFlag(req: Request, name: string): boolean {
  const value = req.query[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true' || value === '') return true;
  throw new GatewayError('invalid_request', `The query parameter ${name} is not valid.`, {
    errors: [{ field: name, message: 'true or false' }],
  });
}

function queryInteger(req: Request, name: string, fallback: number, max: number): number {
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
function pageRequest(req: Request): PageRequest {
  const limit = req.query.limit === undefined ? undefined : queryInteger(req, 'limit', MAX_PAGE_LIMIT, MAX_PAGE_LIMIT);
  const raw = req.query.after;
  if (raw === undefined) return { limit };
  const after = typeof raw === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(raw) ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  if (after.length === 0) {
    throw new GatewayError('invalid_request', 'The query parameter after is not valid.', { errors: [{ field: 'after', message: 'a cursor from a Link header' }] });
  }
  return { limit, after };
}

/** Answers a page as the plain array callers always had, with `Link: <...>; rel="next"` when there is more. */
function sendPage<T>(req: Request, res: Response, page: Page<T>): void {
  if (page.next !== null) {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(req.query)) if (name !== 'after' && typeof value === 'string') query.set(name, value);
    query.set('after', Buffer.from(page.next, 'utf8').toString('base64url'));
    res.setHeader('Link', `<${req.baseUrl}${req.path}?${query.toString()}>; rel="next"`);
  }
  res.json(page.items);
}

/** `If-Match: "7"` (or `7`) as a version; `*` means any; anything else is a bad request. */
function ifMatchVersion(req: Request): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!match?.[1]) {
    throw new GatewayError('invalid_request', 'If-Match must be an access document version, e.g. "7".', {
      errors: [{ field: 'If-Match', message: 'a version number from GET /v1/access' }],
    });
  }
  return Number(match[1]);
}

/** The document as sent: parsed JSON, or YAML text parsed here (a YAML syntax error is a 400). */
function accessBody(req: Request): unknown {
  if (typeof req.body !== 'string') return req.body;
  try {
    return parseYaml(req.body);
  } catch (err) {
    throw new GatewayError('invalid_request', `The body is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
}

type Responder = (req: Request, res: Response, result: unknown) => void;

/** Writes text pieces, waiting whenever the socket's buffer is full, so a large answer never piles up in memory. */
async function streamText(res: Response, chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  res.end();
}

/** 201 with the new thing's address; `path` gets the request and the new thing's id. */
const created =
  (path: (req: Request, id: string) => string): Responder =>
  (req, res, result) => {
    res.status(201).location(`/v1/${path(req, (result as { id: string }).id)}`).json(result);
  };
const ok: Responder = (_req, res, result) => {
  res.status(200).json(result);
};
const noContent: Responder = (_req, res) => {
  res.status(204).end();
};

const jsonBody: RequestHandler[] = [accepts(JSON_TYPES), express.json({ limit: BODY_LIMIT })];
/** `PUT /v1/access` also takes YAML, so `gatewayctl apply -f file.yaml` sends the file as it is. */
const accessDocumentBody = (limit: number): RequestHandler[] => [
  accepts([...JSON_TYPES, ...YAML_TYPES]),
  express.json({ limit }),
  express.text({ type: YAML_TYPES, limit }),
];

const param = (req: Request, name: string): string => req.params[name] as string;

/**
 * Route registration context: the service, and `submit` which runs a write as the signed-in admin
 * (an operator or owner) and answers, or, with approvals required, files it and answers 202.
 */
interface Routes {
  readonly service: AccessService;
  readonly audit: AuditLog;
  readonly changes: ChangeQueue;
  readonly admins: AdminDirectory | undefined;
  readonly maxDocumentBytes: number;
  submit(respond: Responder, operation: OperationName, args: (req: Request) => unknown[]): RequestHandler[];
}

function registerCatalogue(router: Router): void {
  const apis = ROUTES.map((route) => ({ apiId: route.apiId, method: route.method, path: route.path, group: route.group }));
  router
    .route('/apis')
    .get(function listApis(_req, res) {
      res.json(apis);
    })
    .all(methodNotAllowed('GET'));
}

function registerVendors(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors')
    .get(async function listVendors(req: Request, res: Response) {
      sendPage(req, res, await service.listVendors(pageRequest(req)));
    })
    .post(jsonBody, submit(created((_req, id) => `vendors/${id}`), 'createVendor', (req) => [req.body]))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/vendors/:vendorId')
    .get(async function getVendor(req: Request, res: Response) {
      res.json(await service.getVendor(param(req, 'vendorId')));
    })
    .patch(jsonBody, submit(ok, 'patchVendor', (req) => [param(req, 'vendorId'), req.body]))
    .delete(submit(noContent, 'deleteVendor', (req) => [param(req, 'vendorId')]))
    .all(methodNotAllowed('GET, PATCH, DELETE'));
  router
    .route('/vendors/:vendorId/rate-limit')
    .put(jsonBody, submit(ok, 'setRateLimit', (req) => [param(req, 'vendorId'), req.body]))
    .all(methodNotAllowed('PUT'));
}

function registerKeys(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors/:vendorId/keys')
    .get(async function listKeys(req: Request, res: Response) {
      sendPage(req, res, await service.listKeys(param(req, 'vendorId'), pageRequest(req)));
    })
    .post(jsonBody, submit(created((_req, id) => `keys/${id}`), 'issueKey', (req) => [param(req, 'vendorId'), req.body]))
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/keys/:keyId')
    .patch(jsonBody, submit(ok, 'patchKey', (req) => [param(req, 'keyId'), req.body]))
    .delete(submit(noContent, 'revokeKey', (req) => [param(req, 'keyId')]))
    .all(methodNotAllowed('PATCH, DELETE'));
}

function registerLicences(router: Router, { service, submit }: Routes): void {
  router
    .route('/vendors/:vendorId/licences')
    .get(async function listLicences(req: Request, res: Response) {
      res.json(await service.listLicences(param(req, 'vendorId')));
    })
    .post(
      jsonBody,
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

function registerPermissions(router: Router, { service, submit }: Routes): void {
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
      jsonBody,
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

function registerAccessDocument(router: Router, { service, submit, audit, maxDocumentBytes }: Routes): void {
  const answerWithVersion: Responder = (req, res, result) => {
    res.setHeader('ETag', `"${(result as { version: number }).version}"`);
    ok(req, res, result);
  };
  const [, applyDocument] = submit(answerWithVersion, 'replaceDocument', (req) => {
    const document = accessBody(req);
    // The parsed body can be 100 MB: let it go as soon as the service has validated its copy.
    req.body = undefined;
    return [document, { expectedVersion: ifMatchVersion(req) }];
  });
  router
    .route('/access')
    .get(async function exportAccess(req: Request, res: Response) {
      // JSON unless YAML is asked for by name (the web UI edits the document as YAML).
      const format = req.accepts(['application/json', 'application/yaml']) === 'application/yaml' ? 'yaml' : 'json';
      const { version, chunks } = await service.exportDocument(format);
      // The whole document holds every key's hash: who read it, and when, is on record.
      try {
        await audit.append({ actor: authenticatedAdmin(res), action: 'access.read', target: 'access', before: null, after: { version } });
      } catch (err) {
        throw new GatewayError('store_unavailable', 'The audit log is unavailable, so the access document cannot be read now; retry shortly.', {
          cause: err,
          headers: { 'Retry-After': '1' },
        });
      }
      res.setHeader('ETag', `"${version}"`);
      res.setHeader('Vary', 'Accept');
      res.type(format === 'yaml' ? 'application/yaml' : 'application/json');
      await streamText(res, chunks);
    })
    .put(...accessDocumentBody(maxDocumentBytes), can('write'), async function putAccess(req: Request, res: Response, next: NextFunction) {
      // A dry run only reads: it answers at once, approvals or not.
      if (!queryFlag(req, 'dryRun')) {
        await (applyDocument as RequestHandler)(req, res, next);
        return;
      }
      const { result } = await service.replaceDocument(accessBody(req), authenticatedAdmin(res), { dryRun: true, expectedVersion: ifMatchVersion(req) });
      answerWithVersion(req, res, result);
    })
    .all(methodNotAllowed('GET, PUT'));
}

function registerAudit(router: Router, { audit }: Routes): void {
  router
    .route('/audit')
    .get(async function listAudit(req: Request, res: Response) {
      const limit = queryInteger(req, 'limit', DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
      const before = typeof req.query.before === 'string' ? req.query.before : undefined;
      res.json(await audit.list({ limit, before }));
    })
    .all(methodNotAllowed('GET'));
  // The archive export, oldest first, in pages: `since` a date or date-time, `after` the last id seen.
  router
    .route('/audit/export')
    .get(async function exportAudit(req: Request, res: Response) {
      const since = typeof req.query.since === 'string' ? Date.parse(req.query.since) : NaN;
      if (Number.isNaN(since)) {
        throw new GatewayError('invalid_request', 'The query parameter since is not valid.', { errors: [{ field: 'since', message: 'a date or date-time (ISO 8601)' }] });
      }
      const limit = queryInteger(req, 'limit', MAX_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
      const after = typeof req.query.after === 'string' ? req.query.after : undefined;
      res.json(await audit.range({ sinceMs: since, after, limit }));
    })
    .all(methodNotAllowed('GET'));
}

function registerOverview(router: Router, overview: (() => unknown) | undefined): void {
  router
    .route('/overview')
    .get(function showOverview(_req, res) {
      res.json(overview?.() ?? {});
    })
    .all(methodNotAllowed('GET'));
}

function registerAdmins(router: Router, { admins }: Routes): void {
  router
    .route('/me')
    .get(function whoAmI(_req, res) {
      const { identity } = signedInAdmin(res);
      res.json({ ...identity, approvals: res.app.locals.approvals as string });
    })
    .all(methodNotAllowed('GET'));
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

/** `POST /v1/changes` files a write by name: `{"operation": "grantLicence", "args": ["acme", {"api": "GET*"}]}`. */
function registerChanges(router: Router, { changes }: Routes): void {
  const actorOf = (res: Response): { actor: string; adminId: string } => {
    const { actor, identity } = signedInAdmin(res);
    return { actor, adminId: identity.id };
  };
  router
    .route('/changes')
    .get(async function listChanges(_req: Request, res: Response) {
      res.json(await changes.list());
    })
    .post(can('write'), jsonBody, async function proposeChange(req: Request, res: Response) {
      const { operation, args } = (req.body ?? {}) as { operation?: unknown; args?: unknown };
      const errors = [
        ...(isOperationName(operation) ? [] : [{ field: 'operation', message: 'the name of an admin write, e.g. grantLicence' }]),
        ...(Array.isArray(args) && args.length <= 4 ? [] : [{ field: 'args', message: 'the write\'s arguments, as a list' }]),
      ];
      if (errors.length > 0 || !isOperationName(operation) || !Array.isArray(args)) throw new GatewayError('invalid_request', 'The change is not valid; see errors.', { errors });
      const submitted = await changes.submit(operation, args, actorOf(res));
      if ('pending' in submitted) res.status(202).location(`/v1/changes/${submitted.pending.id}`).json(submitted.pending);
      else res.status(200).json(submitted.applied.result);
    })
    .all(methodNotAllowed('GET, POST'));
  router
    .route('/changes/:changeId')
    .get(async function getChange(req: Request, res: Response) {
      res.json(await changes.get(param(req, 'changeId')));
    })
    .all(methodNotAllowed('GET'));
  router
    .route('/changes/:changeId/approve')
    .post(can('approve'), async function approveChange(req: Request, res: Response) {
      const { result } = await changes.approve(param(req, 'changeId'), actorOf(res));
      res.status(200).json(result);
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/changes/:changeId/reject')
    .post(can('approve'), async function rejectChange(req: Request, res: Response) {
      await changes.reject(param(req, 'changeId'), actorOf(res));
      res.status(204).end();
    })
    .all(methodNotAllowed('POST'));
}

export function createAdminApp(deps: AdminAppDeps): Express {
  if (deps.adminToken.length === 0) throw new Error('the admin token must not be empty');
  const { service, audit, logger } = deps;

  const changes = deps.changes ?? new ChangeQueue(service, { approvals: 'off', changeTtlHours: adminSchema.shape.changeTtlHours.parse(undefined) });
  const routes: Routes = {
    service,
    audit,
    changes,
    admins: deps.admins,
    maxDocumentBytes: deps.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    submit(respond, operation, args) {
      // The store writes the change and its audit entry in one step; this only logs it.
      return [
        can('write'),
        async function submitWrite(req: Request, res: Response) {
          const { actor, identity } = signedInAdmin(res);
          const submitted = await changes.submit(operation, args(req), { actor, adminId: identity.id });
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
    },
  };

  const app = express();
  app.locals.approvals = changes.approvalsRequired ? 'required' : 'off';
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(requestContextSchema.parse({}), { onFinish: adminAccessLog(logger) }));
  app.use(securityHeaders);
  app.use(noStore);
  // Before routing, so nothing (not even whether a route exists) is told without the token.
  const throttle = deps.throttle ?? defaultThrottle();
  const onFailure = deps.onAuthFailure ?? (() => undefined);
  const lookup = tokenLookup(deps.adminToken, deps.admins);
  const sessions = new AdminSessions(deps.adminToken, (deps.sessionIdleMinutes ?? adminSchema.shape.sessionIdleMinutes.parse(undefined)) * 60_000);
  const secureCookie = deps.secureCookie ?? false;
  const authOptions: AdminAuthOptions = { lookup, adminToken: deps.adminToken, admins: deps.admins, sessions, throttle, onFailure, secureCookie };
  const readSession = sessionReader(authOptions);
  // The page, its files and signing in need no token; everything after this does.
  registerUi(app, { sessions, identify: lookup, current: readSession, throttle, onAuthFailure: onFailure, secureCookie });
  app.use(adminAuth(authOptions, readSession));

  const v1 = express.Router();
  registerCatalogue(v1);
  registerVendors(v1, routes);
  registerKeys(v1, routes);
  registerLicences(v1, routes);
  registerPermissions(v1, routes);
  registerAccessDocument(v1, routes);
  registerAudit(v1, routes);
  registerAdmins(v1, routes);
  registerOverview(v1, deps.overview);
  registerChanges(v1, routes);
  if (deps.smsOutbox) registerSandbox(v1, { outbox: deps.smsOutbox, audit, logger });
  app.use('/v1', v1);

  app.use(notFound);
  app.use(createErrorHandler(logger));
  return app;
}
