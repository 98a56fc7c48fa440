/**
 * Browser sessions of the admin web UI: after signing in with an admin token, the browser holds
 * an HttpOnly, SameSite=Strict cookie, so the token itself never lives in the page or in
 * localStorage. The sessions are the generic signed sessions (src/sessions/) in the `admin`
 * namespace, keyed from the bootstrap ADMIN_TOKEN, which every instance shares: any instance
 * accepts the cookie. It names the admin and a fingerprint of the token it signed in with, so
 * rotating or deleting that admin ends its sessions at once; signing out ends every session of
 * that admin on every instance (the sign-out epoch, in Redis when configured). Sessions end after
 * `admin.sessionIdleMinutes` without a request (each request slides it) and at the latest
 * `admin.sessionMaxHours` after signing in.
 *
 * Pure apart from what SignedSessions reads: cookie names and values.
 */
import { MemorySessionEpochs, type SessionEpochs } from '../sessions/session-epochs';
import { SignedSessions } from '../sessions/signed-sessions';

export const SESSION_COOKIE = 'cbg_admin_session';
const ADMIN_SESSION_NAMESPACE = 'admin';
/** The header a cookie-authenticated write must carry: a cross-site form or script cannot set it. */
export const UI_WRITE_HEADER = 'x-requested-by';
export const UI_WRITE_HEADER_VALUE = 'cbg-admin-ui';

export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

interface AdminSessionOptions {
  readonly idleMinutes: number;
  readonly maxHours: number;
  /** Shared by every instance (Redis); by default this process's memory. */
  readonly epochs?: SessionEpochs;
  readonly now?: () => number;
}

/** The admin web UI's sessions, signed with a key derived from the bootstrap token. */
export function adminSessions(bootstrapToken: string, options: AdminSessionOptions): SignedSessions {
  return new SignedSessions({
    namespace: ADMIN_SESSION_NAMESPACE,
    secret: bootstrapToken,
    idleMs: options.idleMinutes * 60_000,
    maxMs: options.maxHours * 3_600_000,
    epochs: options.epochs ?? new MemorySessionEpochs(),
    now: options.now,
  });
}
