/**
 * The admin API (public contract: docs/contract.md, README "Admin API"): vendors, keys,
 * licences, vendor portal users, user permissions, rate limits, the whole access document, named admins, four-eyes
 * proposals (under `/v1/changes`) and the audit log, under `/v1`; the web UI's page and sign-in
 * beside it. This module only assembles the app: middleware order, the `/v1` router, 404 and the
 * error handler. The routes live in `routes/` (one module per resource, their shared helpers in
 * `routes/route-kit.ts`); what they call, every admin write, identity and approval, in
 * `operations/`; authentication in auth.ts, which sets the caller in admin-context.ts; the web
 * UI's own routes in ui-routes.ts, the sandbox SMS outbox in sandbox-routes.ts.
 *
 * Reads `Authorization: Bearer <admin token>` or the web UI's session cookie (auth.ts) and the
 * request bodies each route takes. Sets nothing but the access config (through the operations,
 * whose writer commits each write with its audit entry in one step; the actor is a label derived
 * from the token, never the token) and the audit log. Errors are problem details from the shared
 * error handler; responses are never cached. Every request is logged when it ends (method, path,
 * status, actor; never a body or a header). Wrong tokens are counted (`onAuthFailure`), audited
 * per address and minute, and, past `throttle.freeFailures` from one address, that address's
 * wrong tokens are answered 429 with an exponential back-off; a right token always passes
 * (auth.ts states the rule). With approvals required, each request of the bootstrap token is
 * audited first (bootstrap-audit.ts). Any refusal of a request whose body is still unread closes
 * the connection, so that body is never read (a route with a body checks the credential, the
 * role and the declared size before reading it).
 *
 * Routes that take no credential at all go on the `open` router, mounted before authentication:
 * `POST /v1/admins/enrol` (an enrolment code for a token, with its own back-off per address).
 *
 * To add routes: docs/architecture.md, "How to add an admin route".
 */
import type http from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AccessService } from './operations/access-service';
import type { AdminDirectory } from './operations/admin-directory';
import { Proposals } from './operations/proposals';
import type { PortalUsers } from './operations/portal-users';
import type { Logger } from '../logging/logger';
import { createErrorHandler } from '../request/error-handler';
import { adminCaller } from './admin-context';
import { requestContext, type RequestObserver } from '../policies/request-context/request-context';
import { requestContextSchema } from '../policies/request-context/request-context.schema';
import type { SmsOutboxReader } from '../sms/outbox';
import { GatewayError } from '../errors/error-catalogue';
import { createClientAddressResolver } from '../core-client/forwarded';
import type { SessionEpochs } from '../sessions/session-epochs';
import { MemoryOneTimeValues, type OneTimeValues } from '../sessions/one-time-values';
import { adminAuth, credentialCheck, defaultThrottle, sessionClaims, sessionReader, tokenLookup, type AdminAuthOptions, type BreakGlassUse } from './auth';
import { adminSessions } from './admin-session';
import { FailedLoginAudit } from './failed-logins';
import { adminSchema, type oidcSchema } from './admin.schema';
import type { z } from 'zod';
import { OidcClient } from './sso/oidc-client';
import { SsoSeal } from './sso/sso-cookie';
import { registerSso } from './sso/sso-routes';
import type { AuditLog } from '../access/audit-log';
import { AuthThrottle } from './auth-throttle';
import { registerUi, securityHeaders } from './ui-routes';
import { registerSandbox } from './sandbox-routes';
import { registerAccessDocument } from './routes/access-document';
import { registerCatalogue } from './routes/catalogue';
import { registerKeys } from './routes/keys';
import { registerPortalUsers } from './routes/portal-users';
import { registerLicences } from './routes/licences';
import { registerPermissions } from './routes/permissions';
import { registerVendors } from './routes/vendors';
import { registerAdmins, registerEnrolment } from './routes/admins';
import { auditBootstrapUse } from './bootstrap-audit';
import { registerAudit } from './routes/audit-log';
import { registerProposals } from './routes/proposals';
import { registerOverview } from './routes/overview';
import { registerTraffic } from './routes/traffic';
import type { TrafficSource } from '../metrics/traffic';
import { announcesBody } from './routes/body-guard';
import { writeSubmitter, type Routes } from './routes/route-kit';

export interface AdminAppDeps {
  readonly service: AccessService;
  /** Named admins; without it only the bootstrap token signs in. */
  readonly admins?: AdminDirectory;
  /** Four eyes (proposals awaiting a second admin); without it every write applies at once. */
  readonly proposals?: Proposals;
  /** Vendor portal users (give the same to `proposals`); without them their routes answer 404. */
  readonly portalUsers?: PortalUsers;
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
  /** ... and this long after it signed in, whatever it did (admin.sessionMaxHours). */
  readonly sessionMaxHours?: number;
  /** Single sign-on's used states and hand-offs: Redis when configured, so any instance finishes a sign-in; else memory. */
  readonly oneTimeValues?: OneTimeValues;
  /** Where sign-out is remembered: Redis when configured, so it holds on every instance; else memory. */
  readonly sessionEpochs?: SessionEpochs;
  /** The client's address (the throttle's and the audit's), as server.trustedProxies gives it; else the socket's peer. */
  readonly clientAddress?: (req: Request) => string;
  /** Failed logins on the audit log, per address and minute; by default one of this app's own. */
  readonly failedLogins?: FailedLoginAudit;
  /** The session cookie is Secure (HTTPS on the admin port). */
  readonly secureCookie?: boolean;
  /** What the overview shows: modes, config version, Redis, breakers, vendor traffic. */
  readonly overview?: () => unknown;
  /** Where `GET /v1/traffic` reads: Prometheus (admin.prometheusUrl) or the gateway's own counts; without it, 404. */
  readonly traffic?: TrafficSource;
  /** Single sign-on through the bank's OpenID provider (admin.oidc, with admin.oidc.issuer set); needs `admins`. */
  readonly oidc?: AdminOidcConfig;
  /** admin.tokenSignIn: named admins may sign in to the web UI with their token (default true). */
  readonly tokenSignIn?: boolean;
  /** Told of each use of the bootstrap token while token sign-in is off (gateway_admin_break_glass_total). */
  readonly onBreakGlass?: (via: BreakGlassUse) => void;
  /** Told of each single-sign-on attempt's end (gateway_admin_sso_sign_ins_total). */
  readonly onSsoOutcome?: (outcome: string) => void;
}

type AdminOidcConfig = z.infer<typeof oidcSchema> & { readonly issuer: string; readonly clientId: string; readonly redirectUrl: string };

/** What the `admin` config section sets of an admin app, as the gateway builds one. */
export function adminConfigDeps(
  admin: z.infer<typeof adminSchema>,
): Pick<AdminAppDeps, 'sessionIdleMinutes' | 'sessionMaxHours' | 'maxDocumentBytes' | 'tokenSignIn' | 'throttle' | 'oidc' | 'secureCookie'> {
  return {
    sessionIdleMinutes: admin.sessionIdleMinutes,
    sessionMaxHours: admin.sessionMaxHours,
    maxDocumentBytes: admin.maxDocumentBytes,
    tokenSignIn: admin.tokenSignIn,
    throttle: new AuthThrottle({ freeFailures: admin.authFailuresBeforeBackoff, maxBackoffMs: admin.maxBackoffSeconds * 1000 }),
    // Behind a proxy that ends TLS the admin port speaks HTTP, yet the browser is on HTTPS: an https redirect URL says so.
    secureCookie: admin.tls.certFile !== null || admin.oidc.redirectUrl?.startsWith('https:') === true,
    ...(admin.oidc.issuer !== null ? { oidc: admin.oidc as AdminOidcConfig } : {}),
  };
}

/**
 * Lets the admin routes answer `Expect: 100-continue` themselves (routes/route-kit.ts,
 * `inviteBody`) instead of Node inviting every body at once: a request refused from its headers
 * (no credential, a role that may not, too large, another upload in progress) gets its answer
 * before its client sends a byte of body. For the admin port's listener.
 */
export function continueFromRoutes(server: http.Server): void {
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => server.emit('request', req, res));
}

const DEFAULT_MAX_DOCUMENT_BYTES = adminSchema.shape.maxDocumentBytes.parse(undefined);

/** One line per admin request when it ends: who did what, and how it went; never a body or a header. */
function adminAccessLog(logger: Logger): RequestObserver {
  return function logAdminRequest(req, res, ctx) {
    const durationMs = Math.round(Number(process.hrtime.bigint() - ctx.startedAt) / 1e3) / 1e3;
    logger.info(
      { requestId: ctx.requestId, method: req.method, path: req.path, status: res.statusCode, actor: adminCaller(res)?.actor ?? 'anonymous', durationMs },
      'admin request',
    );
  };
}

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * A refusal (401, 403, 404, 405, 413, 429…) of a request whose body nothing has read closes the
 * connection after the answer: Node would otherwise read the unread body through, to the end or
 * to server.requestTimeoutMs, before the connection could serve another request.
 */
function closeUnreadOnError(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (announcesBody(req.headers) && !req.complete && !res.headersSent) res.setHeader('Connection', 'close');
  next(err);
}

function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new GatewayError('not_found', `No admin route ${req.method} ${req.path}.`));
}

export function createAdminApp(deps: AdminAppDeps): Express {
  if (deps.adminToken.length === 0) throw new Error('the admin token must not be empty');
  const { service, audit, logger } = deps;

  const proposals =
    deps.proposals ??
    new Proposals(service, { approvals: 'off', changeTtlHours: adminSchema.shape.changeTtlHours.parse(undefined) }, deps.admins, deps.portalUsers);
  const app = express();
  app.locals.approvals = proposals.approvalsRequired ? 'required' : 'off';
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
  const sessions = adminSessions(deps.adminToken, {
    idleMinutes: deps.sessionIdleMinutes ?? adminSchema.shape.sessionIdleMinutes.parse(undefined),
    maxHours: deps.sessionMaxHours ?? adminSchema.shape.sessionMaxHours.parse(undefined),
    epochs: deps.sessionEpochs,
  });
  const secureCookie = deps.secureCookie ?? false;
  const clientAddress = deps.clientAddress ?? createClientAddressResolver([]);
  const failedLogins = deps.failedLogins ?? new FailedLoginAudit({ audit, logger });
  const tokenSignIn = deps.tokenSignIn ?? true;
  const onBreakGlass = (via: BreakGlassUse): void => {
    // Break-glass is meant to be seen: every use is a warning for the SREs' log alerting too.
    logger.warn({ via }, 'break-glass: the bootstrap admin token was used while token sign-in to the web UI is off');
    deps.onBreakGlass?.(via);
  };
  const authOptions: AdminAuthOptions = {
    lookup,
    adminToken: deps.adminToken,
    admins: deps.admins,
    sessions,
    throttle,
    onFailure,
    failedLogins,
    clientAddress,
    secureCookie,
    tokenSignIn,
    onBreakGlass,
  };
  const readSession = sessionReader(authOptions);
  const routes: Routes = {
    service,
    audit,
    proposals,
    admins: deps.admins,
    portalUsers: deps.portalUsers,
    maxDocumentBytes: deps.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    submit: writeSubmitter(proposals, logger),
  };
  const sso = deps.oidc && deps.admins?.sso;
  if (deps.oidc && sso) {
    registerSso(app, {
      client: new OidcClient(deps.oidc),
      seal: new SsoSeal(deps.adminToken),
      oneTime: deps.oneTimeValues ?? new MemoryOneTimeValues(),
      admins: sso,
      sessions,
      audit,
      logger,
      issuer: deps.oidc.issuer,
      rolesClaim: deps.oidc.rolesClaim,
      roles: deps.oidc.roles,
      roleRefreshMs: deps.oidc.roleRefreshMinutes * 60_000,
      clientAddress,
      secureCookie,
      failedLogins,
      onOutcome: deps.onSsoOutcome ?? (() => undefined),
    });
  }
  // The page, its files and signing in need no token; everything after this does.
  registerUi(app, {
    sessions,
    check: credentialCheck(authOptions),
    current: readSession,
    currentSubject: async (req) => (await sessionClaims(sessions, req))?.subject ?? null,
    audit,
    clientAddress,
    secureCookie,
    signInWays: { sso: sso !== undefined, token: tokenSignIn },
    onBreakGlass,
  });
  // Routes under /v1 that take no credential at all (each its own guard) are registered here.
  const open = express.Router();
  registerEnrolment(open, { admins: deps.admins, throttle: deps.enrolmentThrottle ?? defaultThrottle(), onFailure, failedLogins, clientAddress });
  app.use('/v1', open);
  app.use(adminAuth(authOptions, readSession));
  if (proposals.approvalsRequired) app.use(auditBootstrapUse(audit));

  const v1 = express.Router();
  registerCatalogue(v1);
  registerVendors(v1, routes);
  registerKeys(v1, routes);
  registerPortalUsers(v1, routes);
  registerLicences(v1, routes);
  registerPermissions(v1, routes);
  registerAccessDocument(v1, routes);
  registerAudit(v1, routes);
  registerAdmins(v1, routes);
  registerOverview(v1, deps.overview);
  registerTraffic(v1, deps.traffic);
  registerProposals(v1, routes);
  if (deps.smsOutbox) registerSandbox(v1, { outbox: deps.smsOutbox, audit, logger });
  app.use('/v1', v1);

  app.use(notFound);
  app.use(closeUnreadOnError);
  app.use(createErrorHandler(logger));
  return app;
}
