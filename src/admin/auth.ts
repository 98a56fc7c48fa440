/**
 * Who calls the admin port: the middleware `createAdminApp` mounts before the `/v1` routes that
 * need a credential, and what the web UI's own routes share with it (the check of a presented
 * token, the session cookie).
 *
 * Reads `Authorization: Bearer <token>` (the bootstrap token compared in constant time, else a
 * named admin's, a hash lookup), or the web UI's session cookie plus, on a write, the UI's
 * request header; the client address as `server.trustedProxies` gives it. Sets the admin
 * context's caller (admin-context.ts: the admin and its label, never the token), and renews the
 * session cookie on each request it authenticates.
 *
 * The throttle rule (auth-throttle.ts), for every presented token, bearer or at sign-in:
 * - the token is always checked: it is a SHA-256 and a lookup, as cheap as refusing it, and a
 *   right one always passes, from any address, throttled or not, so nobody is locked out by
 *   others' failures (behind one port-forward every admin shares an address);
 * - a wrong one counts against its client address; past `admin.authFailuresBeforeBackoff` in a
 *   row the address's wrong tokens are answered 429 with Retry-After (1 s, doubling, up to
 *   `admin.maxBackoffSeconds`), and each one seen while it waits extends the wait;
 * - a right token does not clear the address's record, so a valid low-privilege token cannot
 *   reset the back-off for someone guessing from the same address;
 * - a request with no credential at all (or an expired or signed-out session cookie, which is
 *   signed and cannot be guessed) is a plain 401 and never counts.
 * A throttled address still learns whether a token is right; the defence against guessing is the
 * tokens' size (named admins' tokens are 192-bit random, the bootstrap token at least 16
 * characters, generated in practice), not the back-off, which keeps the noise down and makes the
 * attempt visible: failed logins are audited per address and minute (failed-logins.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { BOOTSTRAP_ADMIN, type AdminDirectory } from './operations/admin-directory';
import { isSsoAdminId } from './operations/sso-admins';
import type { AdminIdentity } from './operations/admin-identity';
import { GatewayError } from '../errors/error-catalogue';
import { setAdminCaller } from './admin-context';
import type { SessionClaims, SignedSessions } from '../sessions/signed-sessions';
import { SESSION_COOKIE, sessionCookie, UI_WRITE_HEADER, UI_WRITE_HEADER_VALUE } from './admin-session';
import { cookieValue, tokenFingerprint } from '../sessions/cookies';
import { adminSchema } from './admin.schema';
import { AuthThrottle } from './auth-throttle';
import type { FailedLoginAudit } from './failed-logins';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The admin a token belongs to: the bootstrap owner, a named admin, or nobody. */
export type AdminLookup = (token: string) => Promise<AdminIdentity | null>;

/** The admin of a request's session cookie (the cookie slid forward when valid), or null. */
export type SessionReader = (req: Request, res: Response) => Promise<AdminIdentity | null>;

/** The admin a presented token belongs to; else throws 401, or 429 from a throttled address. */
export type CredentialCheck = (req: Request, token: string) => Promise<AdminIdentity>;

/** The admin a token belongs to: the bootstrap owner, a named admin, or nobody. */
export function tokenLookup(adminToken: string, admins: AdminDirectory | undefined): AdminLookup {
  // Both sides hashed first: equal lengths for timingSafeEqual, and no length leak.
  const expected = digest(adminToken);
  return async (token) => {
    if (timingSafeEqual(digest(token), expected)) return BOOTSTRAP_ADMIN;
    return admins ? admins.authenticate(token) : null;
  };
}

export interface AdminAuthOptions {
  readonly lookup: AdminLookup;
  readonly adminToken: string;
  readonly admins: AdminDirectory | undefined;
  readonly sessions: SignedSessions;
  readonly throttle: AuthThrottle;
  /** gateway_admin_auth_failures_total: each request refused for a missing or wrong credential. */
  readonly onFailure: () => void;
  readonly failedLogins: FailedLoginAudit;
  /** The client's address, as `server.trustedProxies` gives it. */
  readonly clientAddress: (req: Request) => string;
  readonly secureCookie: boolean;
  /** admin.tokenSignIn: false ends named admins' token sessions; the bootstrap token's every use is then break-glass. */
  readonly tokenSignIn: boolean;
  /** Told of each use of the bootstrap token while token sign-in is off (a warning log line and gateway_admin_break_glass_total). */
  readonly onBreakGlass: (via: BreakGlassUse) => void;
}

/** How the bootstrap token was used while token sign-in is off. */
export type BreakGlassUse = 'sign_in' | 'request';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function unauthorized(detail: string): GatewayError {
  return new GatewayError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="gateway-admin"' } });
}

/** The throttle rule of this module's header, for a bearer token and the web UI's sign-in alike. */
export function credentialCheck(options: AdminAuthOptions): CredentialCheck {
  const { lookup, throttle, failedLogins } = options;
  return async (req, token) => {
    const admin = await lookup(token);
    if (admin) return admin;
    const address = options.clientAddress(req);
    const retryAfterSeconds = throttle.refused(address);
    failedLogins.record(address, retryAfterSeconds !== null);
    options.onFailure();
    if (retryAfterSeconds !== null) {
      const retryAfter = String(retryAfterSeconds);
      throw new GatewayError('rate_limited', `Too many wrong admin tokens from this address; retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    throw unauthorized('That admin token is not valid; send one as "Authorization: Bearer <token>", or sign in to the web UI.');
  };
}

/** The claims of the request's session cookie, or null; 503 when the sign-out store cannot be read. */
export async function sessionClaims(sessions: SignedSessions, req: Request): Promise<SessionClaims | null> {
  const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
  if (value === null) return null;
  try {
    return await sessions.read(value);
  } catch (err) {
    throw new GatewayError('store_unavailable', 'The session store is unavailable; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
}

/** The admin of a browser's session cookie (slid forward), or null. */
export function sessionReader(options: AdminAuthOptions): SessionReader {
  const { sessions } = options;
  const bootstrapFingerprint = tokenFingerprint(options.adminToken);
  // A session outlives nothing it was issued for: a changed bootstrap token, a removed or re-keyed
  // named admin, token sign-in turned off, a blocked single-sign-on admin or single sign-on turned off.
  const identityOf = async (claims: SessionClaims): Promise<AdminIdentity | null> => {
    if (claims.subject === BOOTSTRAP_ADMIN.id) return claims.fingerprint === bootstrapFingerprint ? BOOTSTRAP_ADMIN : null;
    if (isSsoAdminId(claims.subject)) return (await options.admins?.sso?.sessionIdentity(claims.subject, claims.fingerprint)) ?? null;
    if (!options.tokenSignIn) return null;
    return (await options.admins?.sessionIdentity(claims.subject, claims.fingerprint)) ?? null;
  };
  return async (req, res) => {
    const claims = await sessionClaims(sessions, req);
    if (!claims) return null;
    const admin = await identityOf(claims);
    if (admin) {
      const renewed = sessions.renew(claims);
      res.setHeader('Set-Cookie', sessionCookie(renewed.value, renewed.maxAgeSeconds, options.secureCookie));
    }
    return admin;
  };
}

/**
 * Who calls: `Authorization: Bearer <token>` (scripts, gatewayctl), or the web UI's session
 * cookie, whose writes must also carry the UI's request header (a cross-site page cannot set it).
 * A cookie session is slid forward on each request. Routes that take no credential are mounted
 * before this (admin-app.ts, `open`).
 */
export function adminAuth(options: AdminAuthOptions, readSession: SessionReader): RequestHandler {
  const check = credentialCheck(options);
  const fromSession = async (req: Request, res: Response): Promise<AdminIdentity | null> => {
    if (cookieValue(req.headers.cookie, SESSION_COOKIE) === null) return null;
    if (!SAFE_METHODS.has(req.method) && req.headers[UI_WRITE_HEADER] !== UI_WRITE_HEADER_VALUE) {
      throw new GatewayError('permission_denied', `A write from the web UI must carry ${UI_WRITE_HEADER}: ${UI_WRITE_HEADER_VALUE}.`);
    }
    return readSession(req, res);
  };
  return async function authenticateAdmin(req, res, next) {
    const header = req.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    // A presented token goes through the throttle rule; no credential, or a session that has
    // ended, is a plain 401 that counts against nobody.
    const admin = token !== undefined ? await check(req, token) : header === undefined ? await fromSession(req, res) : null;
    if (!admin) {
      options.onFailure();
      next(unauthorized('Send the admin token as "Authorization: Bearer <token>", or sign in to the web UI.'));
      return;
    }
    if (admin.id === BOOTSTRAP_ADMIN.id && !options.tokenSignIn) options.onBreakGlass('request');
    setAdminCaller(res, admin);
    next();
  };
}

/** The back-off of the config's defaults, for an app built without one (tests, tools). */
export function defaultThrottle(): AuthThrottle {
  const defaults = adminSchema.parse({});
  return new AuthThrottle({ freeFailures: defaults.authFailuresBeforeBackoff, maxBackoffMs: defaults.maxBackoffSeconds * 1000 });
}
