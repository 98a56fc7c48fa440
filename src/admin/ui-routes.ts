/**
 * The admin web UI's own routes on the admin port (README "Admin web UI"): the page at `/`, its
 * script and style under `/ui/`, and signing in and out (`POST`/`DELETE /ui/session`). Everything
 * else the UI does goes through the admin API under `/v1`, as any client would, with the session
 * cookie instead of the token.
 *
 * Reads the files of `src/admin/ui/` (copied to `dist/admin/ui/` by the build) once at start and
 * the token a browser signs in with; sets the session cookie. Every answer of the admin port
 * carries the strict security headers set here: no inline script, no framing, nothing from
 * anywhere but this origin.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { GatewayError } from '../errors/error-catalogue';
import type { AdminIdentity } from '../access/admin-directory';
import { SESSION_COOKIE, tokenFingerprint, type AdminSessions } from './admin-session';
import type { AuthThrottle } from './auth-throttle';

export const UI_DIR = path.join(__dirname, 'ui');
/** The header a cookie-authenticated write must carry: a cross-site form or script cannot set it. */
export const UI_WRITE_HEADER = 'x-requested-by';
export const UI_WRITE_HEADER_VALUE = 'cbg-admin-ui';

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** Strict headers on every admin answer, API and UI alike. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
}

function loadFiles(): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of ['index.html', 'app.js', 'app.css']) {
    files.set(name, { body: readFileSync(path.join(UI_DIR, name)), type: TYPES[path.extname(name)] as string });
  }
  return files;
}

export interface UiRouteDeps {
  readonly sessions: AdminSessions;
  /** The admin a token belongs to (bootstrap or named), or null. */
  readonly identify: (token: string) => Promise<AdminIdentity | null>;
  /** The admin of the request's session cookie, or null. */
  readonly current: (req: Request, res: Response) => Promise<AdminIdentity | null>;
  readonly throttle: AuthThrottle;
  readonly onAuthFailure: () => void;
  /** Mark the cookie Secure (the admin port speaks HTTPS). */
  readonly secureCookie: boolean;
}

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function registerUi(app: Router, deps: UiRouteDeps): void {
  const files = loadFiles();
  const send =
    (name: string): RequestHandler =>
    (_req, res) => {
      const file = files.get(name) as { body: Buffer; type: string };
      res.setHeader('Cache-Control', 'no-cache');
      res.type(file.type).send(file.body);
    };
  app.get('/', send('index.html'));
  app.get('/ui/app.js', send('app.js'));
  app.get('/ui/app.css', send('app.css'));
  app
    .route('/ui/session')
    // Who is signed in: the page asks before it shows anything (200 either way, so a browser's
    // first visit logs no failed request).
    .get(async function currentSession(req, res) {
      res.json({ admin: await deps.current(req, res) });
    })
    .post(express.json({ limit: '4kb' }), async function signIn(req, res) {
      // Like every write of the page: another site cannot sign this browser in as someone else.
      if (req.headers[UI_WRITE_HEADER] !== UI_WRITE_HEADER_VALUE) {
        throw new GatewayError('permission_denied', `Signing in from the web UI carries ${UI_WRITE_HEADER}: ${UI_WRITE_HEADER_VALUE}.`);
      }
      const address = req.socket.remoteAddress ?? 'unknown';
      const waitMs = deps.throttle.waitMs(address);
      if (waitMs > 0) {
        const retryAfter = String(Math.ceil(waitMs / 1000));
        throw new GatewayError('rate_limited', `Too many wrong admin tokens from this address; retry in ${retryAfter} s.`, { headers: { 'Retry-After': retryAfter } });
      }
      const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
      const admin = token ? await deps.identify(token) : null;
      if (!admin) {
        deps.throttle.failed(address);
        deps.onAuthFailure();
        throw new GatewayError('unauthorized', 'That admin token is not valid.', { errors: [{ field: 'token', message: 'an admin token' }] });
      }
      deps.throttle.succeeded(address);
      const { value, maxAgeSeconds } = deps.sessions.issue(admin.id, tokenFingerprint(token));
      res.setHeader('Set-Cookie', sessionCookie(value, maxAgeSeconds, deps.secureCookie));
      res.json(admin);
    })
    .delete(function signOut(_req, res) {
      res.setHeader('Set-Cookie', sessionCookie('', 0, deps.secureCookie));
      res.status(204).end();
    });
}
