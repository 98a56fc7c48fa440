/**
 * The vendor portal's browser sessions: after signing in with a portal token, the browser holds an
 * HttpOnly, SameSite=Strict cookie of its own name (`cbg_portal_session`, Path=/portal), signed in
 * the `portal` namespace of the generic signed sessions (src/sessions/), so an admin session's
 * cookie is worth nothing here and this one nothing on the admin port. The session names the
 * vendor and the portal user (`<vendorId>:<portalUserId>`) and a fingerprint of the token signed in
 * with: a re-issued token or a removed portal user ends its sessions on every instance at once, and
 * signing out ends every session of that portal user (the sign-out epoch).
 *
 * Pure apart from what SignedSessions reads: cookie names and values, and the subject's form.
 */
import { SignedSessions } from '../sessions/signed-sessions';
import type { SessionEpochs } from '../sessions/session-epochs';

/**
 * Where the portal's JSON lives. Routes are registered at their whole path, never under a mount
 * point: a mount rewrites req.url for the handler that answers, and the access log and the
 * request observer must see the path the client asked for.
 */
export const PORTAL_API = '/portal/api';
export const PORTAL_SESSION_COOKIE = 'cbg_portal_session';
/** The header every portal write carries: a cross-site form or script cannot set it. */
export const PORTAL_WRITE_HEADER = 'x-requested-by';
export const PORTAL_WRITE_HEADER_VALUE = 'cbg-portal-ui';

export function portalSessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${PORTAL_SESSION_COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

interface PortalSessionOptions {
  /** Shared by every instance; the signing key is derived from it and the `portal` namespace. */
  readonly secret: string;
  readonly idleMinutes: number;
  readonly maxHours: number;
  readonly epochs: SessionEpochs;
  readonly now?: () => number;
}

export function portalSessions(options: PortalSessionOptions): SignedSessions {
  return new SignedSessions({
    namespace: 'portal',
    secret: options.secret,
    idleMs: options.idleMinutes * 60_000,
    maxMs: options.maxHours * 3_600_000,
    epochs: options.epochs,
    now: options.now,
  });
}

/** A session's subject: the vendor it is scoped to and the portal user (a vendor id holds no `:`). */
export const portalSubject = (vendorId: string, portalUserId: string): string => `${vendorId}:${portalUserId}`;

/** A portal user's audit label: `portal:<vendorId>:<portalUserId>`. */
export const portalActor = (vendorId: string, portalUserId: string): string => `portal:${vendorId}:${portalUserId}`;

export function parsePortalSubject(subject: string): { vendorId: string; portalUserId: string } | null {
  const at = subject.indexOf(':');
  if (at <= 0 || at === subject.length - 1) return null;
  return { vendorId: subject.slice(0, at), portalUserId: subject.slice(at + 1) };
}
