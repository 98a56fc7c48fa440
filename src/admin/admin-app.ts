/**
 * The admin API (public contract: README "Admin API"): vendors, keys, licences, user
 * permissions, rate limits, the whole access document and the audit log, under `/v1`; the web
 * UI's page and sign-in beside it. This module only assembles the app: middleware order, the
 * `/v1` router, 404 and the error handler. The routes live in `routes/` (one module per
 * resource group, with their shared helpers in `routes/route-kit.ts`), authentication in
 * admin-auth.ts, the web UI's own routes in ui-routes.ts, the sandbox SMS outbox in
 * sandbox-routes.ts.
 *
 * Reads `Authorization: Bearer <admin token>` or the web UI's session cookie (admin-auth.ts)
 * and the request bodies each route takes. Sets nothing but the access config (through the
 * AccessService, whose store writes each change with its audit entry in one step; the actor is
 * a label derived from the token, never the token) and the audit log. Errors are problem
 * details from the shared error handler; responses are never cached. Every request is logged
 * when it ends (method, path, status, actor; never a body or a header). Wrong tokens are
 * counted (`onAuthFailure`) and, past `throttle.freeFailures` in a row from one address,
 * answered 429 with an exponential back-off (see auth-throttle.ts). `POST /v1/admins/enrol`
 * (an enrolment code for a token) is the one `/v1` route before authentication, with its own
 * back-off; with approvals required, each request of the bootstrap token is audited first
 * (bootstrap-audit.ts).
 *
 * To add routes, write one more `register...` function taking the `/v1` router (and `Routes`,
 * from routes/route-kit.ts) in a module under `routes/`, and call it from `createAdminApp`.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AccessService } from '../access/access-service';
import type { AdminDirectory } from '../access/admin-directory';
import { ChangeQueue } from '../access/change-queue';
import type { Logger } from '../logging/logger';
import { createErrorHandler } from '../request/error-handler';
import { requestContext, type RequestObserver } from '../policies/request-context/request-context';
import { requestContextSchema } from '../policies/request-context/request-context.schema';
import type { SmsOutboxReader } from '../sms/outbox';
import { GatewayError } from '../errors/error-catalogue';
import { adminAuth, defaultThrottle, sessionReader, tokenLookup, type AdminAuthOptions } from './admin-auth';
import { AdminSessions } from './admin-session';
import { adminSchema } from './admin.schema';
import type { AuditLog } from './audit';
import type { AuthThrottle } from './auth-throttle';
import { registerUi, securityHeaders } from './ui-routes';
import { registerSandbox } from './sandbox-routes';
import { registerAccessDocument } from './routes/access-document';
import { registerCatalogue, registerKeys, registerLicences, registerPermissions, registerVendors } from './routes/access-records';
import { registerAdmins, registerEnrolment } from './routes/admins';
import { auditBootstrapUse } from './bootstrap-audit';
import { registerAudit } from './routes/audit-log';
import { registerChanges } from './routes/changes';
import { registerOverview } from './routes/overview';
import { writeSubmitter, type Routes } from './routes/route-kit';

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
  /** Back-off per source address after wrong enrolment codes; by default the config's defaults. */
  readonly enrolmentThrottle?: AuthThrottle;
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

const DEFAULT_MAX_DOCUMENT_BYTES = adminSchema.shape.maxDocumentBytes.parse(undefined);

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

function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new GatewayError('not_found', `No admin route ${req.method} ${req.path}.`));
}

export function createAdminApp(deps: AdminAppDeps): Express {
  if (deps.adminToken.length === 0) throw new Error('the admin token must not be empty');
  const { service, audit, logger } = deps;

  const changes = deps.changes ?? new ChangeQueue(service, { approvals: 'off', changeTtlHours: adminSchema.shape.changeTtlHours.parse(undefined) }, deps.admins);
  const routes: Routes = {
    service,
    audit,
    changes,
    admins: deps.admins,
    maxDocumentBytes: deps.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    submit: writeSubmitter(changes, logger),
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
  // A new admin redeems an enrolment code before holding any token (own back-off per address).
  registerEnrolment(app, deps.admins, deps.enrolmentThrottle ?? defaultThrottle(), onFailure);
  app.use(adminAuth(authOptions, readSession));
  if (changes.approvalsRequired) app.use(auditBootstrapUse(audit));

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
