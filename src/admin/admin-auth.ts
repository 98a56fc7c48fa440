/**
 * Who calls the admin port: the middleware `createAdminApp` mounts before `/v1`, and the two
 * lookups the web UI's own routes share with it (a bearer token, a session cookie).
 *
 * Reads `Authorization: Bearer <token>` (the bootstrap token compared in constant time, else a
 * named admin's), or the web UI's session cookie plus, on a write, the UI's request header.
 * Sets the context's `adminActor` (a label, never the token) and `admin`, renews the session
 * cookie on each request it authenticates, and counts wrong tokens: past the throttle's free
 * failures from one address the answer is 429 with `Retry-After` (see auth-throttle.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { BOOTSTRAP_ADMIN, type AdminDirectory, type AdminIdentity } from '../access/admin-directory';
import { GatewayError } from '../errors/error-catalogue';
import { context } from '../request/context';
import { cookieValue, SESSION_COOKIE, tokenFingerprint, type AdminSessions } from './admin-session';
import { adminSchema } from './admin.schema';
import { AuthThrottle } from './auth-throttle';
import { sessionCookie, UI_WRITE_HEADER, UI_WRITE_HEADER_VALUE } from './ui-routes';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The admin a token belongs to: the bootstrap owner, a named admin, or nobody. */
export type AdminLookup = (token: string) => Promise<AdminIdentity | null>;

/** The admin of a request's session cookie (the cookie slid forward when valid), or null. */
export type SessionReader = (req: Request, res: Response) => Promise<AdminIdentity | null>;

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
  readonly sessions: AdminSessions;
  readonly throttle: AuthThrottle;
  readonly onFailure: () => void;
  readonly secureCookie: boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The admin of a browser's session cookie (slid forward), or null. */
export function sessionReader(options: AdminAuthOptions): SessionReader {
  const { sessions } = options;
  const bootstrapFingerprint = tokenFingerprint(options.adminToken);
  return async (req, res) => {
    const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
    const claims = value === null ? null : sessions.read(value);
    if (!claims) return null;
    // A session outlives nothing it was issued for: a changed bootstrap token, or a removed or
    // re-keyed named admin no longer matches the fingerprint the cookie carries.
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

/**
 * Who calls: `Authorization: Bearer <token>` (scripts, gatewayctl), or the web UI's session
 * cookie, whose writes must also carry the UI's request header (a cross-site page cannot set it).
 * A cookie session is slid forward on each request.
 */
export function adminAuth(options: AdminAuthOptions, readSession: SessionReader): RequestHandler {
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

/** The back-off of the config's defaults, for an app built without one (tests, tools). */
export function defaultThrottle(): AuthThrottle {
  const defaults = adminSchema.parse({});
  return new AuthThrottle({ freeFailures: defaults.authFailuresBeforeBackoff, maxBackoffMs: defaults.maxBackoffSeconds * 1000 });
}
