/**
 * The admin web UI's own routes on the admin port (README "Admin web UI"): the page at `/`, its
 * script and style under `/ui/`, and signing in and out (`POST`/`DELETE /ui/session`). Everything
 * else the UI does goes through the admin API under `/v1`, as any client would, with the session
 * cookie instead of the token.
 *
 * Reads the files of `src/admin/ui/` (served under `/ui/`) and of the UIs' shared kit `src/ui-kit/`
 * (served under `/ui-kit/`; both copied to `dist/` by the build) once at start, the allow-listed
 * browser modules of installed packages (ui-vendor.ts, under `/ui-vendor/`), and
 * the token a browser signs in with (checked by auth.ts's throttle rule); sets the session
 * cookie, ends the admin's sessions on every instance at sign-out, and audits both
 * (`admin.sign_in`, `admin.sign_out`, with the client address; never the token). Every answer of the admin port
 * carries the strict security headers set here: no inline script, no framing, nothing from
 * anywhere but this origin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { GatewayError } from '../errors/error-catalogue';
import type { SignedSessions } from '../sessions/signed-sessions';
import type { BreakGlassUse, CredentialCheck, SessionReader } from './auth';
import { BOOTSTRAP_ADMIN } from './operations/admin-directory';
import { sessionCookie, UI_WRITE_HEADER, UI_WRITE_HEADER_VALUE } from './admin-session';
import { tokenFingerprint } from '../sessions/cookies';
import type { AuditLog } from '../access/audit-log';
import { declaredSizeAtMost, verifyJsonDepth } from './routes/body-guard';
import { inviteBody } from './routes/route-kit';
import { registerUiVendor } from './ui-vendor';

/** `{"token": "…"}`: a sign-in needs no more, and anyone may send it. */
const SIGN_IN_BODY_BYTES = 4096;

const UI_DIR = path.join(__dirname, 'ui');
/**
 * The building blocks both browser UIs share. Served at `/ui-kit/`, where the relative imports
 * the type checker follows (`../../ui-kit/…` from `src/admin/ui/`) land in the browser too: a
 * URL's `..` stops at the root.
 */
const UI_KIT_DIR = path.join(__dirname, '..', 'ui-kit');
const SIGN_IN_ACTION = 'admin.sign_in';
const SIGN_OUT_ACTION = 'admin.sign_out';

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

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Strict headers on every admin answer, API and UI alike. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
}

export interface UiFile {
  readonly body: Buffer;
  readonly type: string;
}

/** Every page, module and style sheet of a UI directory, by the URL it is served at (the admin UI's and the vendor portal's). */
export function filesOf(dir: string, urlPrefix: string): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const type = TYPES[path.extname(name)];
    if (type === undefined) continue;
    files.set(`${urlPrefix}/${name.split(path.sep).join('/')}`, { body: readFileSync(path.join(dir, name)), type });
  }
  return files;
}

interface UiRouteDeps {
  readonly sessions: SignedSessions;
  /** The admin a presented token belongs to; throws 401, or 429 from a throttled address. */
  readonly check: CredentialCheck;
  /** The admin of the request's session cookie, or null. */
  readonly current: SessionReader;
  /** The subject of the request's session cookie while it is valid, or null. */
  readonly currentSubject: (req: Request) => Promise<string | null>;
  readonly audit: AuditLog;
  /** The client's address, as `server.trustedProxies` gives it (for the audit entries). */
  readonly clientAddress: (req: Request) => string;
  /** Mark the cookie Secure (the admin port speaks HTTPS). */
  readonly secureCookie: boolean;
  /** Which ways to sign in the page offers: single sign-on (admin.oidc.issuer set), and tokens for named admins (admin.tokenSignIn). */
  readonly signInWays: { readonly sso: boolean; readonly token: boolean };
  readonly onBreakGlass: (via: BreakGlassUse) => void;
}

/** Like every write of the page: another site cannot sign this browser in or out. */
function fromThePage(req: Request, what: string): void {
  if (req.headers[UI_WRITE_HEADER] !== UI_WRITE_HEADER_VALUE) {
    throw new GatewayError('permission_denied', `${what} from the web UI carries ${UI_WRITE_HEADER}: ${UI_WRITE_HEADER_VALUE}.`);
  }
}

/** The sign-out epochs live in Redis when configured: without them no session starts or ends (503). The vendor portal's sessions alike. */
export async function sessionStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new GatewayError('store_unavailable', 'The session store is unavailable; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
}

/** Sign-in and sign-out are on record; without the audit log neither happens (503). The vendor portal's alike. */
export async function audited(audit: AuditLog, entry: Parameters<AuditLog['append']>[0]): Promise<void> {
  try {
    await audit.append(entry);
  } catch (err) {
    throw new GatewayError('store_unavailable', 'The audit log is unavailable; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
}

export function registerUi(app: Router, deps: UiRouteDeps): void {
  const files = new Map([...filesOf(UI_DIR, '/ui'), ...filesOf(UI_KIT_DIR, '/ui-kit')]);
  const send =
    (file: UiFile): RequestHandler =>
    (_req, res) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.type(file.type).send(file.body);
    };
  // The page at `/` only; each other file at its own path, so nothing outside the two
  // directories can be asked for.
  const page = files.get('/ui/index.html') as UiFile;
  files.delete('/ui/index.html');
  app.get('/', send(page));
  for (const [url, file] of files) app.get(url, send(file));
  registerUiVendor(app);
  app
    .route('/ui/session')
    // Who is signed in: the page asks before it shows anything (200 either way, so a browser's
    // first visit logs no failed request).
    .get(async function currentSession(req, res) {
      res.json({ admin: await deps.current(req, res), signIn: deps.signInWays });
    })
    .post(
      declaredSizeAtMost(SIGN_IN_BODY_BYTES),
      inviteBody,
      express.json({ limit: SIGN_IN_BODY_BYTES, verify: verifyJsonDepth }),
      async function signIn(req, res) {
        fromThePage(req, 'Signing in');
        const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
        if (!token) throw new GatewayError('unauthorized', 'Enter an admin token.', { errors: [{ field: 'token', message: 'an admin token' }] });
        let admin;
        try {
          admin = await deps.check(req, token);
        } catch (err) {
          // The page names the field; the throttle's 429 passes as it is.
          if (err instanceof GatewayError && err.code === 'unauthorized') {
            throw new GatewayError('unauthorized', 'That admin token is not valid.', { errors: [{ field: 'token', message: 'an admin token' }] });
          }
          throw err;
        }
        // With token sign-in off only the bootstrap token still signs in, as break-glass.
        const breakGlass = !deps.signInWays.token && admin.id === BOOTSTRAP_ADMIN.id;
        if (!deps.signInWays.token && !breakGlass) {
          throw new GatewayError('unauthorized', 'Token sign-in to the web UI is off; sign in with single sign-on.', {
            errors: [{ field: 'token', message: 'only the bootstrap token, as break-glass' }],
          });
        }
        if (breakGlass) deps.onBreakGlass('sign_in');
        const session = await sessionStore(() => deps.sessions.issue(admin.id, tokenFingerprint(token)));
        await audited(deps.audit, {
          actor: `admin:${admin.id}`,
          action: SIGN_IN_ACTION,
          target: 'ui/session',
          before: null,
          after: { address: deps.clientAddress(req), method: 'token', ...(breakGlass ? { breakGlass: true } : {}) },
        });
        res.setHeader('Set-Cookie', sessionCookie(session.value, session.maxAgeSeconds, deps.secureCookie));
        res.json(admin);
      },
    )
    // Ends every session of this admin, on every instance (the sign-out epoch), not only this
    // browser's cookie: a copy of the cookie replayed later is refused too.
    .delete(async function signOut(req, res) {
      fromThePage(req, 'Signing out');
      const subject = await deps.currentSubject(req);
      res.setHeader('Set-Cookie', sessionCookie('', 0, deps.secureCookie));
      if (subject !== null) {
        await sessionStore(() => deps.sessions.revoke(subject));
        await audited(deps.audit, {
          actor: `admin:${subject}`,
          action: SIGN_OUT_ACTION,
          target: 'ui/session',
          before: null,
          after: { address: deps.clientAddress(req) },
        });
      }
      res.status(204).end();
    });
}
