/**
 * The vendor portal on the vendor port: its page at `/portal/`, its modules under `/portal/ui/`,
 * the browser UIs' shared kit under `/portal/ui-kit/`, and its JSON under `/portal/api/`: the
 * session (`GET`, `POST` to sign in with a portal token, `DELETE` to sign out), then, behind the
 * session check (portal-auth.ts), Keys (portal-keys.ts), Usage and Requests (portal-insight.ts),
 * and API access (portal-access.ts). One step of the vendor chain (pipeline/chain.ts), right after
 * the public files: any other path goes on to the vendor API untouched.
 *
 * Every portal answer carries a strict Content-Security-Policy (nothing but this origin, no
 * inline script or style, no framing) and no CORS header: the portal is same-origin only. Errors
 * go to the vendor chain's error handler, the one writer of problem bodies.
 *
 * Reads the request path; sets the security headers, and answers.
 */
import path from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { filesOf, type UiFile } from '../admin/ui-routes';
import type { VendorRecord } from '../access/access-state';
import type { PortalUser } from '../access/model';
import { GatewayError } from '../errors/error-catalogue';
import type { PortalAuth } from './portal-auth';
import { registerPortalAccess, type PortalAccessDeps } from './portal-access';
import { smallJsonBody } from './portal-body';
import { registerPortalInsight, type PortalInsightDeps } from './portal-insight';
import { registerPortalKeys, type PortalKeyDeps } from './portal-keys';
import { PORTAL_API } from './portal-session';

const UI_DIR = path.join(__dirname, 'ui');
const UI_KIT_DIR = path.join(__dirname, '..', 'ui-kit');

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

type PortalDeps = PortalKeyDeps & PortalInsightDeps & PortalAccessDeps & { readonly auth: PortalAuth };

function portalHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
}

function sendFile(file: UiFile): RequestHandler {
  return function sendPortalFile(_req, res) {
    res.setHeader('Cache-Control', 'no-cache');
    res.type(file.type).send(file.body);
  };
}

/** Who is signed in, as the page shows it: never the token or its hash. */
function signedIn({ user, vendor }: { readonly user: PortalUser; readonly vendor: VendorRecord }): Record<string, string> {
  return { id: user.id, name: user.name, email: user.email, vendorId: vendor.id, vendorName: vendor.name };
}

function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new GatewayError('not_found', 'No such page or resource in the portal.'));
}

/** The portal as one handler: `/portal` and below answered here, every other path passed on. */
export function createPortal(deps: PortalDeps): RequestHandler {
  const files = new Map([...filesOf(UI_DIR, '/ui'), ...filesOf(UI_KIT_DIR, '/ui-kit')]);
  const page = files.get('/ui/index.html');
  if (!page) throw new Error(`the portal's page is missing from ${UI_DIR}`);
  files.delete('/ui/index.html');

  // Case-sensitive as the cookie's Path=/portal is: `/PORTAL/...` is no portal path, and goes on to the vendor API.
  const router = express.Router({ strict: true, caseSensitive: true });
  // Middleware under a path (no answer of its own) sees a shortened req.url only until it calls next.
  router.use('/portal', portalHeaders);
  // `/portal` without its slash: the page's relative links resolve against `/portal/`.
  router.get('/portal', (_req, res) => res.redirect(308, '/portal/'));
  router.get('/portal/', sendFile(page));
  for (const [url, file] of files) router.get(`/portal${url}`, sendFile(file));
  router
    .route(`${PORTAL_API}/session`)
    .get(async function currentPortalSession(req, res) {
      const caller = await deps.auth.current(req, res);
      res.json({ portalUser: caller ? signedIn(caller) : null });
    })
    .post(...smallJsonBody, async function signInToPortal(req, res) {
      deps.auth.fromThePage(req, 'Signing in');
      const token = typeof req.body?.token === 'string' ? req.body.token.trim() : '';
      if (!token) throw new GatewayError('unauthorized', 'Enter your portal token.', { errors: [{ field: 'token', message: 'a portal token (cbp_…)' }] });
      const caller = await deps.auth.signIn(req, res, token);
      res.json({ portalUser: signedIn(caller) });
    })
    .delete(async function signOutOfPortal(req, res) {
      await deps.auth.signOut(req, res);
      res.status(204).end();
    });
  router.use(PORTAL_API, deps.auth.requirePortalUser);
  registerPortalKeys(router, deps);
  registerPortalInsight(router, deps);
  registerPortalAccess(router, deps);
  router.use('/portal', notFound);
  return router;
}
