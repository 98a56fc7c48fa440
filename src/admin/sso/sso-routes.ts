/**
 * Single sign-on to the admin web UI (README "Single sign-on"), on the admin port without a
 * credential: `GET /ui/sso/start` sends the browser to the bank's provider, `GET /ui/sso/callback`
 * (the path of `admin.oidc.redirectUrl`) takes it back, and `POST /ui/sso/session`, sent by the
 * same-origin page the callback answers, turns the verified sign-in into the usual session cookie.
 *
 * Why three steps: the provider's redirect back is a cross-site navigation, on which the
 * `SameSite=Strict` session cookie would be neither sent nor, in some browsers, kept; the flow's
 * state, nonce and PKCE verifier therefore ride in a short-lived `SameSite=Lax` cookie scoped to
 * `/ui/sso` (sso-cookie.ts), and the session cookie is set on a same-origin request that carries
 * the UI's anti-forgery header, which another site cannot send. Each flow is answered once (its
 * state claimed in the one-time store), and the verified sign-in waits in that store under a
 * random hand-off id, never in a cookie anything could sign, until that request takes it, once.
 *
 * A refusal sends the browser to `/?sso=<reason>`, where the sign-in page says why in its alert
 * (the reason is a fixed code, never text from the provider), and is audited
 * (`admin.sign_in_refused`, with the subject when the ID token was verified, never a token) and
 * counted (`gateway_admin_sso_sign_ins_total{outcome}`). A provider whose keys changed since they
 * were fetched gets one fresh attempt by itself (oidc-client.ts).
 *
 * Reads the flow cookie, the provider's answer and the admin records; sets the flow cookie, the
 * one-time store (../../sessions/one-time-values.ts), the session cookie, the single-sign-on
 * admin's record (sso-admins.ts) and the audit log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import type { AuditLog } from '../../access/audit-log';
import type { SignedSessions } from '../../sessions/signed-sessions';
import type { Logger } from '../../logging/logger';
import type { SsoAdmins } from '../operations/sso-admins';
import { sessionCookie, UI_WRITE_HEADER, UI_WRITE_HEADER_VALUE } from '../admin-session';
import { cookieValue } from '../../sessions/cookies';
import type { OneTimeValues } from '../../sessions/one-time-values';
import { FLOW_SECONDS, SSO_COOKIE, ssoCookie, type SsoFlow, type SsoSeal } from './sso-cookie';
import { SsoProviderError, type OidcClient, type ProviderFailure } from './oidc-client';
import { roleFromClaims, type RoleGroups } from './sso-roles';
import type { FailedLoginAudit } from '../failed-logins';

/**
 * Anyone can call the callback, so refusals nobody verified (no ID token checked) get an audit
 * entry each only up to this many per address and minute; the rest are summed with the failed
 * logins (failed-logins.ts), so the audit log cannot be flooded from outside.
 */
const UNVERIFIED_ENTRIES_PER_MINUTE = 10;
/** ... and at most this many in all per minute, whatever the number of addresses. */
const UNVERIFIED_ENTRIES_PER_MINUTE_IN_ALL = 100;
/** How long the page after the callback has to take the session. */
const HANDOFF_SECONDS = 60;
const MAX_TRACKED_ADDRESSES = 1000;

/** Whether another unverified refusal from `address` gets an entry of its own this minute. */
function entryShare(now: () => number = Date.now): (address: string) => boolean {
  let minute = 0;
  let counts = new Map<string, number>();
  let total = 0;
  return (address) => {
    const current = Math.floor(now() / 60_000);
    if (current !== minute) {
      minute = current;
      counts = new Map();
      total = 0;
    }
    const used = counts.get(address) ?? 0;
    if (used >= UNVERIFIED_ENTRIES_PER_MINUTE || (used === 0 && counts.size >= MAX_TRACKED_ADDRESSES) || total >= UNVERIFIED_ENTRIES_PER_MINUTE_IN_ALL)
      return false;
    counts.set(address, used + 1);
    total += 1;
    return true;
  };
}

/** Every reason a single-sign-on attempt ends without a session, as the sign-in page names it. */
type SsoRefusal =
  Exclude<ProviderFailure, 'keys_changed'> | 'no_role' | 'groups_overage' | 'state_mismatch' | 'blocked' | 'identity_conflict' | 'store_unavailable';

interface SsoRouteDeps {
  readonly client: OidcClient;
  readonly seal: SsoSeal;
  /** Used states and hand-offs, shared by every instance (Redis when configured). */
  readonly oneTime: OneTimeValues;
  readonly admins: SsoAdmins;
  readonly sessions: SignedSessions;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly issuer: string;
  readonly rolesClaim: string;
  readonly roles: RoleGroups;
  /** admin.oidc.roleRefreshMinutes: a session's whole life, so a role taken away at the provider ends it. */
  readonly roleRefreshMs: number;
  readonly clientAddress: (req: Request) => string;
  readonly secureCookie: boolean;
  /** Where refusals past an address's share of entries go, summed per address and minute. */
  readonly failedLogins: FailedLoginAudit;
  /** gateway_admin_sso_sign_ins_total: `signed_in` or the refusal. */
  readonly onOutcome: (outcome: 'signed_in' | SsoRefusal) => void;
}

const SIGN_IN_ACTION = 'admin.sign_in';
const REFUSED_ACTION = 'admin.sign_in_refused';
/** The page the callback answers: it posts to /ui/sso/session from this origin, then opens the UI. */
const COMPLETE_PAGE_FILE = path.join(__dirname, '..', 'ui', 'sso-complete.html');

/** A claim shown to people: text without control characters (no terminal escapes in gatewayctl), cut to `max`. */
function claimText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Control characters, and the invisible ones that reorder or hide text (bidi overrides, zero-width, line separators).
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const text = value.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, '').trim();
  return text.length > 0 ? text.slice(0, max) : undefined;
}

/** A subject the admin records can hold (OpenID Connect allows 255 ASCII characters). */
const STORABLE_SUBJECT = /^[\x21-\x7e]{1,255}$/;

/** Store keys are digests of what the browser holds: the key itself is never the secret. */
const keyOf = (kind: string, value: string): string => `sso-${kind}:${createHash('sha256').update(value).digest('base64url')}`;

export function registerSso(app: Router, deps: SsoRouteDeps): void {
  const completePage = readFileSync(COMPLETE_PAGE_FILE);
  const clearFlow = ssoCookie('', 0, deps.secureCookie);
  const ownEntry = entryShare();

  /** Ends an attempt: audited and counted, the browser sent to the sign-in page with the reason. */
  const refuse = async (req: Request, res: Response, reason: SsoRefusal, detail: { subject?: string; claimedSub?: string; error?: string }): Promise<void> => {
    const address = deps.clientAddress(req);
    deps.onOutcome(reason);
    deps.logger.warn({ reason, error: detail.error, address }, 'admin single sign-on refused');
    // A silent attempt that found no session at the provider is no refusal to put on record.
    if (reason !== 'login_required') {
      if (detail.subject || ownEntry(address)) {
        const claimed = detail.claimedSub ? { claimedSub: detail.claimedSub } : {};
        await deps.audit
          .append({
            actor: detail.subject ? `admin:oidc:${detail.subject}` : 'oidc:unverified',
            action: REFUSED_ACTION,
            target: 'ui/session',
            before: null,
            after: { address, method: 'oidc', reason, issuer: deps.issuer, ...claimed },
          })
          .catch((err: unknown) => deps.logger.error({ err }, 'admin single sign-on: the refusal could not be audited'));
      } else {
        deps.failedLogins.record(address, false);
      }
    }
    res.setHeader('Set-Cookie', clearFlow);
    res.redirect(303, `/?sso=${reason}`);
  };

  const begin = async (res: Response, silent: boolean, retried: boolean): Promise<void> => {
    const started = await deps.client.start({ silent });
    const flow: SsoFlow = { state: started.state, nonce: started.nonce, verifier: started.verifier, silent, retried };
    res.setHeader('Set-Cookie', ssoCookie(deps.seal.seal(flow, FLOW_SECONDS), FLOW_SECONDS, deps.secureCookie));
    res.redirect(302, started.url);
  };

  app.get('/ui/sso/start', async function startSso(req, res) {
    try {
      await begin(res, req.query.silent === '1', false);
    } catch (err) {
      const reason = err instanceof SsoProviderError ? err.reason : 'provider_unavailable';
      await refuse(req, res, reason === 'keys_changed' ? 'provider_unavailable' : reason, { error: (err as Error).message });
    }
  });

  app.get('/ui/sso/callback', async function finishSso(req, res) {
    const flow = deps.seal.open(cookieValue(req.headers.cookie, SSO_COOKIE));
    const state = typeof req.query.state === 'string' ? req.query.state : null;
    if (!flow || state !== flow.state) {
      await refuse(req, res, 'state_mismatch', { error: flow ? "the state does not match this browser's sign-in" : 'no sign-in in progress in this browser' });
      return;
    }
    // Each flow reaches the provider once: a replayed callback never becomes another token request.
    let firstUse: boolean;
    try {
      firstUse = await deps.oneTime.claim(keyOf('state', flow.state), FLOW_SECONDS);
    } catch (err) {
      await refuse(req, res, 'store_unavailable', { error: (err as Error).message });
      return;
    }
    if (!firstUse) {
      await refuse(req, res, 'state_mismatch', { error: 'this sign-in was already answered' });
      return;
    }
    let claims: Readonly<Record<string, unknown>>;
    try {
      // The URL the provider sent the browser to, as the browser saw it (the configured redirect URL,
      // whatever proxy sits in front) with the provider's parameters: what the library checks.
      const callbackUrl = new URL(deps.client.redirectUrl);
      callbackUrl.search = new URL(req.originalUrl, 'http://callback.invalid').search;
      claims = await deps.client.finish(callbackUrl, flow);
    } catch (err) {
      const reason = err instanceof SsoProviderError ? err.reason : 'invalid_token';
      if (reason === 'keys_changed' && !flow.retried) {
        deps.logger.info('admin single sign-on: the provider signed with a key newer than the ones fetched; starting over once');
        await begin(res, flow.silent, true).catch(() => refuse(req, res, 'provider_unavailable', { error: (err as Error).message }));
        return;
      }
      const shown = reason === 'keys_changed' ? 'invalid_token' : reason === 'login_required' && !flow.silent ? 'provider_error' : reason;
      const claimedSub = err instanceof SsoProviderError ? err.claimedSubject : undefined;
      await refuse(req, res, shown, { error: (err as Error).message, ...(claimedSub ? { claimedSub } : {}) });
      return;
    }
    const subject = claims.sub as string;
    if (!STORABLE_SUBJECT.test(subject)) {
      await refuse(req, res, 'invalid_token', { error: 'the subject is not 1 to 255 printable ASCII characters' });
      return;
    }
    const outcome = roleFromClaims(claims, deps.rolesClaim, deps.roles);
    if ('refused' in outcome) {
      await refuse(req, res, outcome.refused, { subject });
      return;
    }
    let signedIn;
    try {
      signedIn = await deps.admins.signIn({
        subject,
        issuer: deps.issuer,
        name: claimText(claims.name, 200) ?? claimText(claims.preferred_username, 200) ?? subject,
        // An address the provider says it did not verify is not shown as the admin's.
        email: claims.email_verified === false ? undefined : claimText(claims.email, 320),
        role: outcome.role,
      });
    } catch (err) {
      await refuse(req, res, 'store_unavailable', { subject, error: (err as Error).message });
      return;
    }
    if ('refused' in signedIn) {
      await refuse(req, res, signedIn.refused, { subject });
      return;
    }
    const handoff = randomBytes(32).toString('base64url');
    try {
      // The session's fingerprint as the sign-in wrote it: a block (a new salt) before the page takes it voids it.
      await deps.oneTime.put(keyOf('handoff', handoff), JSON.stringify({ adminId: signedIn.identity.id, fingerprint: signedIn.fingerprint }), HANDOFF_SECONDS);
    } catch (err) {
      await refuse(req, res, 'store_unavailable', { subject, error: (err as Error).message });
      return;
    }
    res.setHeader('Set-Cookie', ssoCookie(handoff, HANDOFF_SECONDS, deps.secureCookie));
    res.type('html').send(completePage);
  });

  app.post('/ui/sso/session', async function takeSsoSession(req, res) {
    if (req.headers[UI_WRITE_HEADER] !== UI_WRITE_HEADER_VALUE) {
      throw new GatewayError('permission_denied', `Signing in from the web UI carries ${UI_WRITE_HEADER}: ${UI_WRITE_HEADER_VALUE}.`);
    }
    const handoffId = cookieValue(req.headers.cookie, SSO_COOKIE);
    res.setHeader('Set-Cookie', clearFlow);
    let session;
    let identity;
    try {
      // Taken once: a second POST with the same cookie finds nothing.
      const kept = handoffId && handoffId.length <= 100 ? await deps.oneTime.take(keyOf('handoff', handoffId)) : null;
      const handoff = kept ? (JSON.parse(kept) as { adminId: string; fingerprint: string }) : null;
      identity = handoff ? await deps.admins.sessionIdentity(handoff.adminId, handoff.fingerprint) : null;
      if (!handoff || !identity) throw new GatewayError('unauthorized', 'No single sign-on to finish in this browser; sign in again.');
      session = await deps.sessions.issue(identity.id, handoff.fingerprint, deps.roleRefreshMs);
      await deps.audit.append({
        actor: `admin:${identity.id}`,
        action: SIGN_IN_ACTION,
        target: 'ui/session',
        before: null,
        after: { address: deps.clientAddress(req), method: 'oidc', role: identity.role, issuer: deps.issuer },
      });
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      throw new GatewayError('store_unavailable', 'The session store or the audit log is unavailable; retry shortly.', {
        cause: err,
        headers: { 'Retry-After': '1' },
      });
    }
    deps.onOutcome('signed_in');
    res.setHeader('Set-Cookie', [clearFlow, sessionCookie(session.value, session.maxAgeSeconds, deps.secureCookie)]);
    res.json(identity);
  });
}
