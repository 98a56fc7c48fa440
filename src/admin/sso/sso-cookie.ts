/**
 * The short-lived cookie of a single-sign-on round trip (`cbg_admin_sso`): first the flow (state,
 * nonce and PKCE verifier, up to 10 minutes while the admin is at the provider), then the hand-off
 * (a random id of the verified sign-in kept on the server, 60 seconds, until the same-origin page
 * after the callback trades it for the session). It is `SameSite=Lax` because the provider's
 * redirect back is a cross-site navigation, on which a Strict cookie would not be sent; it is
 * scoped to `/ui/sso`, so no other request carries it. The flow is HMAC-signed JSON with its own
 * expiry (key derived from the secret every instance shares), so any instance can finish a
 * sign-in another began; signing one up gains nothing, as the provider's answer must still match
 * it. It holds no token.
 *
 * Pure apart from the clock.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SSO_COOKIE = 'cbg_admin_sso';
const SSO_COOKIE_PATH = '/ui/sso';
export const FLOW_SECONDS = 600;

/** What the browser carries to the provider and back. */
export interface SsoFlow {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** A silent attempt (prompt=none): the provider's "log in first" is no error to show. */
  readonly silent: boolean;
  /** Started again by the gateway itself once (the provider's keys changed): never twice in a row. */
  readonly retried: boolean;
}

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

  seal(value: SsoFlow, seconds: number): string {
    const payload = Buffer.from(JSON.stringify({ ...value, exp: this.now() + seconds * 1000 })).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The flow, if this gateway sealed it and it has not expired; else null. */
  open(text: string | null): SsoFlow | null {
    if (text === null || text.length > 4000) return null;
    const [payload, mac, extra] = text.split('.');
    if (!payload || !mac || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SsoFlow & { exp?: unknown };
      if (typeof value.state !== 'string' || typeof value.exp !== 'number' || value.exp <= this.now()) return null;
      return value;
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
