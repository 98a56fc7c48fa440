/**
 * Browser sessions in a signed cookie, for any sign-in of the gateway (the admin web UI today;
 * the vendor portal can take its own namespace). The cookie is stateless and signed
 * (HMAC-SHA256 with a key derived from a secret every instance shares and the namespace, so one
 * namespace's cookie is worth nothing in another), so any instance reads it. It names the
 * subject, a fingerprint of the credential signed in with (the caller checks it is still
 * current), when the session began, when it ends if idle, and the sign-out epoch it was issued
 * under (session-epochs.ts): signing out moves the epoch on and ends the subject's sessions on
 * every instance.
 *
 * Two lifetimes: `idleMs` without a request (each renewal slides it) and `maxMs` from sign-in,
 * which renewals never extend.
 *
 * Reads the clock and the epoch store; holds no state of its own.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { SessionEpochs } from './session-epochs';

export interface SignedSessionOptions {
  /** Keeps one kind of session apart from another: `admin`, `portal`. */
  readonly namespace: string;
  /** Shared by every instance; the signing key is derived from it and the namespace. */
  readonly secret: string;
  readonly idleMs: number;
  readonly maxMs: number;
  readonly epochs: SessionEpochs;
  readonly now?: () => number;
}

export interface SessionClaims {
  readonly subject: string;
  /** A fingerprint of the credential signed in with; never the credential. */
  readonly fingerprint: string;
  readonly startedAtMs: number;
  /** Its own maximum lifetime when shorter than the namespace's (a single-sign-on session's role refresh). */
  readonly maxMs?: number;
  /** When the session ends without another request (never after startedAtMs + maxMs). */
  readonly expiresAtMs: number;
  readonly epoch: string;
}

interface IssuedSession {
  readonly value: string;
  readonly maxAgeSeconds: number;
  readonly claims: SessionClaims;
}

const PAYLOAD = /^[A-Za-z0-9_-]{1,1000}$/;

export class SignedSessions {
  readonly namespace: string;
  private readonly key: Buffer;
  private readonly now: () => number;

  constructor(private readonly options: SignedSessionOptions) {
    this.namespace = options.namespace;
    this.key = createHash('sha256').update(`cbg-session\u0000${options.namespace}\u0000${options.secret}`).digest();
    this.now = options.now ?? Date.now;
  }

  /** A new session for `subject`, under its current sign-out epoch; `maxMs` only ever shortens the namespace's lifetime. */
  async issue(subject: string, fingerprint: string, maxMs?: number): Promise<IssuedSession> {
    const epoch = await this.options.epochs.current(this.namespace, subject);
    const ownMax = maxMs !== undefined && maxMs < this.options.maxMs ? { maxMs } : {};
    return this.sign({ subject, fingerprint, startedAtMs: this.now(), epoch, ...ownMax });
  }

  /** The same session, its idle time slid forward (never past its maximum lifetime). */
  renew(claims: SessionClaims): IssuedSession {
    return this.sign(claims);
  }

  /**
   * The claims of a cookie value this namespace signed, not expired (idle or maximum), whose
   * subject has not signed out since; else null. Throws only when the epoch store fails.
   */
  async read(value: string): Promise<SessionClaims | null> {
    const claims = this.verify(value);
    if (!claims) return null;
    const epoch = await this.options.epochs.current(this.namespace, claims.subject);
    return epoch === claims.epoch ? claims : null;
  }

  /** Ends every session of `subject`, on every instance sharing the epoch store. */
  async revoke(subject: string): Promise<void> {
    await this.options.epochs.advance(this.namespace, subject);
  }

  private sign(session: Omit<SessionClaims, 'expiresAtMs'>): IssuedSession {
    const now = this.now();
    const expiresAtMs = Math.min(now + this.options.idleMs, session.startedAtMs + (session.maxMs ?? this.options.maxMs));
    const claims: SessionClaims = { ...session, expiresAtMs };
    const fields = {
      s: claims.subject,
      f: claims.fingerprint,
      t: claims.startedAtMs,
      e: expiresAtMs,
      v: claims.epoch,
      ...(claims.maxMs === undefined ? {} : { m: claims.maxMs }),
    };
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return { value: `${payload}.${this.mac(payload)}`, maxAgeSeconds: Math.max(0, Math.floor((expiresAtMs - now) / 1000)), claims };
  }

  private verify(value: string): SessionClaims | null {
    const [payload, mac, extra] = value.split('.');
    if (!payload || !mac || extra !== undefined || !PAYLOAD.test(payload)) return null;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const { s, f, t, e, v, m } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (typeof s !== 'string' || typeof f !== 'string' || typeof t !== 'number' || typeof e !== 'number' || typeof v !== 'string') return null;
      if (m !== undefined && typeof m !== 'number') return null;
      const maxMs = Math.min(m ?? this.options.maxMs, this.options.maxMs);
      const now = this.now();
      if (e <= now || t + maxMs <= now) return null;
      return { subject: s, fingerprint: f, startedAtMs: t, expiresAtMs: e, epoch: v, ...(m === undefined ? {} : { maxMs: m }) };
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}
