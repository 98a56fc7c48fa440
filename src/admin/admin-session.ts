/**
 * Browser sessions of the admin web UI: after signing in with an admin token, the browser holds
 * an HttpOnly, SameSite=Strict cookie, so the token itself never lives in the page or in
 * localStorage. The cookie is stateless and signed (HMAC-SHA256 with a key derived from the
 * bootstrap ADMIN_TOKEN, which every instance shares), so any instance accepts it; it names the
 * admin and a fingerprint of the token it signed in with, so rotating or deleting that admin ends
 * its sessions at once. Sessions end after `admin.sessionIdleMinutes` without a request; each
 * request slides the expiry.
 *
 * Pure apart from the clock: reads and writes cookie values, holds no state.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'cbg_admin_session';

export interface SessionClaims {
  /** The admin id (`bootstrap` for the ADMIN_TOKEN). */
  readonly adminId: string;
  /** The first 16 hex digits of the SHA-256 of the token signed in with. */
  readonly tokenFingerprint: string;
  readonly expiresAtMs: number;
}

export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

export class AdminSessions {
  private readonly key: Buffer;

  constructor(
    bootstrapToken: string,
    private readonly idleMs: number,
  ) {
    this.key = createHash('sha256').update(`cbg-admin-session\u0000${bootstrapToken}`).digest();
  }

  issue(adminId: string, fingerprint: string, nowMs = Date.now()): { value: string; maxAgeSeconds: number } {
    const payload = Buffer.from(JSON.stringify({ a: adminId, f: fingerprint, e: nowMs + this.idleMs })).toString('base64url');
    return { value: `${payload}.${this.sign(payload)}`, maxAgeSeconds: Math.round(this.idleMs / 1000) };
  }

  /** The claims of a cookie value this gateway signed and that has not expired; else null. */
  read(value: string, nowMs = Date.now()): SessionClaims | null {
    const [payload, mac] = value.split('.');
    if (!payload || !mac || !/^[A-Za-z0-9_-]{1,600}$/.test(payload)) return null;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const { a, f, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { a: unknown; f: unknown; e: unknown };
      if (typeof a !== 'string' || typeof f !== 'string' || typeof e !== 'number' || e <= nowMs) return null;
      return { adminId: a, tokenFingerprint: f, expiresAtMs: e };
    } catch {
      return null;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

/** The value of one cookie in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}
