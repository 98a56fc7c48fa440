/**
 * Who calls the vendor portal: the portal user of the request's session cookie, checked on every
 * request against the live access config (the portal user still exists, still belongs to the
 * vendor the session names, holds the token the session was signed in with, that token has not
 * expired, and the vendor exists and is not suspended), so a removal, a re-issued token or a
 * suspension ends the session on every instance at once. Admin tokens and vendor API keys are not
 * credentials here: only the portal's own cookie is read.
 *
 * Also signing in (a portal token, throttled per client address as admin sign-ins are) and
 * signing out (every session of that portal user, on every instance); both audited.
 *
 * Reads the Cookie header, the access index and the session store; keeps the caller of a request
 * in a WeakMap keyed by its response (never res.locals) and slides the cookie forward.
 */
import type { Request, Response } from 'express';
import type { AccessCache } from '../access/cache';
import type { AccessIndex } from '../access/access-index';
import type { VendorRecord } from '../access/access-state';
import type { PortalUser } from '../access/model';
import { hashApiKey } from '../access/api-key';
import { isWellFormedPortalToken } from '../access/portal-token';
import type { AuditLog } from '../access/audit-log';
import type { AuthThrottle } from '../admin/auth-throttle';
import { GatewayError } from '../errors/error-catalogue';
import { cookieValue, tokenFingerprint } from '../sessions/cookies';
import type { SessionClaims, SignedSessions } from '../sessions/signed-sessions';
import { audited, sessionStore } from '../admin/ui-routes';
import {
  parsePortalSubject,
  portalActor,
  PORTAL_SESSION_COOKIE,
  portalSessionCookie,
  portalSubject,
  PORTAL_WRITE_HEADER,
  PORTAL_WRITE_HEADER_VALUE,
} from './portal-session';

/** The portal user of a request, and the vendor its session is scoped to. */
interface PortalCaller {
  readonly user: PortalUser;
  readonly vendor: VendorRecord;
  /** The audit label: `portal:<vendorId>:<portalUserId>`. */
  readonly actor: string;
}

/** How a sign-in ended, for gateway_portal_sign_ins_total. */
export type PortalSignInOutcome = 'signed_in' | 'invalid_token' | 'throttled' | 'vendor_suspended';

interface PortalAuthDeps {
  readonly access: AccessCache;
  readonly sessions: SignedSessions;
  readonly throttle: AuthThrottle;
  readonly audit: AuditLog;
  readonly clientAddress: (req: Request) => string;
  /** Mark the cookie Secure (the vendor port speaks HTTPS). */
  readonly secureCookie: boolean;
  readonly onSignIn: (outcome: PortalSignInOutcome) => void;
  readonly now?: () => number;
}

const callers = new WeakMap<Response, PortalCaller>();

/** The portal user of this call; the portal's API routes run only after `requirePortalUser`. */
export function portalCaller(res: Response): PortalCaller {
  const caller = callers.get(res);
  if (!caller) throw new Error('portal API routes run after the portal session check');
  return caller;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

function suspended(vendor: VendorRecord): GatewayError {
  return new GatewayError('vendor_suspended', `Vendor "${vendor.id}" is suspended; the portal is closed to it until the bank lifts the suspension.`);
}

export class PortalAuth {
  private readonly now: () => number;

  constructor(private readonly deps: PortalAuthDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The access config in force; 503 on an instance that holds no copy of it (it answers nothing it cannot check). */
  private index(): AccessIndex {
    const index = this.deps.access.index;
    if (!index)
      throw new GatewayError('store_unavailable', 'The access config is not loaded on this instance; retry shortly.', { headers: { 'Retry-After': '1' } });
    return index;
  }

  /** The portal user a session's claims still stand for, or null; a suspended vendor is a 403. */
  private standing(claims: SessionClaims): PortalCaller | null {
    const subject = parsePortalSubject(claims.subject);
    if (!subject) return null;
    const index = this.index();
    const user = index.portalUser(subject.portalUserId);
    if (!user || user.vendorId !== subject.vendorId) return null;
    if (tokenFingerprint(user.tokenHash) !== claims.fingerprint || Date.parse(user.tokenExpiresAt) <= this.now()) return null;
    const vendor = index.vendor(user.vendorId);
    if (!vendor) return null;
    if (vendor.status === 'suspended') throw suspended(vendor);
    return { user, vendor, actor: portalActor(user.vendorId, user.id) };
  }

  private async claimsOf(req: Request): Promise<SessionClaims | null> {
    const value = cookieValue(req.headers.cookie, PORTAL_SESSION_COOKIE);
    if (value === null) return null;
    return sessionStore(() => this.deps.sessions.read(value));
  }

  /** The caller of a session cookie (slid forward), or null when there is none or it no longer stands. */
  async current(req: Request, res: Response): Promise<PortalCaller | null> {
    const claims = await this.claimsOf(req);
    if (!claims) return null;
    const caller = this.standing(claims);
    if (caller) {
      const renewed = this.deps.sessions.renew(claims);
      res.setHeader('Set-Cookie', portalSessionCookie(renewed.value, renewed.maxAgeSeconds, this.deps.secureCookie));
    }
    return caller;
  }

  /** The gate of every `/portal/api/` route but the session's own: 401 without a standing session, 403 for a write without the portal's header. */
  readonly requirePortalUser = async (req: Request, res: Response, next: (err?: unknown) => void): Promise<void> => {
    if (!SAFE_METHODS.has(req.method)) this.fromThePage(req, 'A portal write');
    const caller = await this.current(req, res);
    if (!caller) {
      next(new GatewayError('unauthorized', 'Sign in to the portal with your portal token.'));
      return;
    }
    callers.set(res, caller);
    next();
  };

  fromThePage(req: Request, what: string): void {
    if (req.headers[PORTAL_WRITE_HEADER] !== PORTAL_WRITE_HEADER_VALUE) {
      throw new GatewayError('permission_denied', `${what} carries ${PORTAL_WRITE_HEADER}: ${PORTAL_WRITE_HEADER_VALUE}.`);
    }
  }

  /**
   * Signs in with a portal token: the throttle rule of the admin port (a right token always
   * passes; wrong ones from one address wait longer and longer), then a session scoped to the
   * token's vendor. Answers the caller and sets the cookie.
   */
  async signIn(req: Request, res: Response, token: string): Promise<PortalCaller> {
    const address = this.deps.clientAddress(req);
    const index = this.index();
    const user = isWellFormedPortalToken(token) ? index.portalUserByTokenHash(hashApiKey(token)) : undefined;
    const vendor = user ? index.vendor(user.vendorId) : undefined;
    if (!user || !vendor || Date.parse(user.tokenExpiresAt) <= this.now()) {
      const retryAfterSeconds = this.deps.throttle.refused(address);
      if (retryAfterSeconds !== null) {
        this.deps.onSignIn('throttled');
        const retryAfter = String(retryAfterSeconds);
        throw new GatewayError('rate_limited', `Too many wrong portal tokens from this address; retry in ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        });
      }
      this.deps.onSignIn('invalid_token');
      throw new GatewayError('unauthorized', 'That portal token is not valid or has expired; ask the bank for a new one.', {
        errors: [{ field: 'token', message: 'a portal token (cbp_…) the bank issued' }],
      });
    }
    if (vendor.status === 'suspended') {
      this.deps.onSignIn('vendor_suspended');
      throw suspended(vendor);
    }
    const session = await sessionStore(() => this.deps.sessions.issue(portalSubject(user.vendorId, user.id), tokenFingerprint(user.tokenHash)));
    await this.audited('portal.sign_in', user.vendorId, user.id, address);
    this.deps.onSignIn('signed_in');
    res.setHeader('Set-Cookie', portalSessionCookie(session.value, session.maxAgeSeconds, this.deps.secureCookie));
    return { user, vendor, actor: portalActor(user.vendorId, user.id) };
  }

  /** Ends every session of the cookie's portal user on every instance, and clears this browser's cookie. */
  async signOut(req: Request, res: Response): Promise<void> {
    this.fromThePage(req, 'Signing out');
    const claims = await this.claimsOf(req);
    res.setHeader('Set-Cookie', portalSessionCookie('', 0, this.deps.secureCookie));
    if (!claims) return;
    await sessionStore(() => this.deps.sessions.revoke(claims.subject));
    const subject = parsePortalSubject(claims.subject);
    if (subject) await this.audited('portal.sign_out', subject.vendorId, subject.portalUserId, this.deps.clientAddress(req));
  }

  /** Sign-in and sign-out are on record, as the portal user, under their vendor. */
  private audited(action: string, vendorId: string, portalUserId: string, address: string): Promise<void> {
    return audited(this.deps.audit, {
      actor: portalActor(vendorId, portalUserId),
      action,
      target: `vendors/${vendorId}/portal-users/${portalUserId}`,
      vendorIds: [vendorId],
      before: null,
      after: { address },
    });
  }
}
