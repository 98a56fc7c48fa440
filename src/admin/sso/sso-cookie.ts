/**
 * The short-lived cookie of a single-sign-on round trip (`cbg_admin_sso`): first the flow (state,
 * nonce and PKCE verifier, up to 10 minutes while the admin is at the provider), then the hand-off
 * (the verified admin, 60 seconds, until the same-origin page after the callback trades it for the
 * session). It is `SameSite=Lax` because the provider's redirect back is a cross-site navigation,
 * on which a Strict cookie would not be sent; it is scoped to `/ui/sso`, so no other request
 * carries it. Its value is HMAC-signed JSON with its own expiry (key derived from the secret every
 * instance shares), so any instance can finish a sign-in another began; it holds no token.
 *
 * Pure apart from the clock.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AdminRole } from '../../access/model';

export const SSO_COOKIE = 'cbg_admin_sso';
const SSO_COOKIE_PATH = '/ui/sso';
export const FLOW_SECONDS = 600;
export const HANDOFF_SECONDS = 60;

/** What the browser carries to the provider and back. */
export interface SsoFlow {
  readonly kind: 'flow';
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** A silent attempt (prompt=none): the provider's "log in first" is no error to show. */
  readonly silent: boolean;
  /** Started again by the gateway itself once (the provider's keys changed): never twice in a row. */
  readonly retried: boolean;
}

/** The admin the callback verified, waiting for the same-origin page to take the session. */
interface SsoHandoff {
  readonly kind: 'handoff';
  readonly adminId: string;
  readonly role: AdminRole;
}

type Sealed = SsoFlow | SsoHandoff;

export function ssoCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SSO_COOKIE}=${value}; Path=${SSO_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export class SsoSeal {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createHash('sha256').update(`cbg-admin-sso\u0000${secret}`).digest();
  }

  seal(value: Sealed, seconds: number): string {
    const payload = Buffer.from(JSON.stringify({ ...value, exp: this.now() + seconds * 1000 })).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The value, if this gateway sealed it, it has not expired and it is of the kind asked for; else null. */
  open<K extends Sealed['kind']>(text: string | null, kind: K): Extract<Sealed, { kind: K }> | null {
    if (text === null || text.length > 4000) return null;
    const [payload, mac, extra] = text.split('.');
    if (!payload || !mac || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Sealed & { exp?: unknown };
      if (value.kind !== kind || typeof value.exp !== 'number' || value.exp <= this.now()) return null;
      return value as Extract<Sealed, { kind: K }>;
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
