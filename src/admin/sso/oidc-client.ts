/**
 * The gateway as an OpenID Connect client of the bank's provider, through `openid-client` (v6,
 * OpenID-certified; its checks, not ours: ID token signature against the provider's keys, issuer,
 * audience, expiry, nonce, state and PKCE). Authorization code flow with PKCE (S256) and a fresh
 * state and nonce per sign-in; the client authenticates with client_secret_basic when it has a
 * secret.
 *
 * The provider's metadata comes from discovery, fetched when first needed and kept; a failed
 * discovery is tried again on the next sign-in. The provider's signing keys are cached by the
 * library and fetched again when an ID token names a key it does not hold (at most once a minute);
 * a token signed with a key newer than that is reported as `keys_changed`, the configuration is
 * dropped (so the next attempt downloads the keys afresh) and the caller starts the sign-in over.
 *
 * `openid-client` is an ES module; the gateway (CommonJS) loads it on first use, which Node 22.12+
 * allows, so nothing imports it unless single sign-on is configured.
 *
 * Reads the `admin.oidc` config it is given; talks to the provider over HTTPS (HTTP only for a
 * loopback issuer, which the config allows only in tests).
 */
import type * as OpenIdClient from 'openid-client';

/** Why a sign-in at the provider did not give a verified ID token. */
export type ProviderFailure = 'invalid_token' | 'wrong_issuer' | 'provider_error' | 'provider_unavailable' | 'login_required' | 'keys_changed';

export class SsoProviderError extends Error {
  constructor(
    readonly reason: ProviderFailure,
    message: string,
    options?: { cause?: unknown; claimedSubject?: string },
  ) {
    super(message, options);
    this.name = 'SsoProviderError';
    this.claimedSubject = options?.claimedSubject;
  }

  /** The subject an ID token that failed its checks claimed: unverified, for the audit of the refusal only. */
  readonly claimedSubject: string | undefined;
}

/** The `sub` an ID token in a token endpoint answer claims, read without any check (never trusted). */
export function claimedSubject(tokenAnswer: string): string | undefined {
  try {
    const idToken = (JSON.parse(tokenAnswer) as { id_token?: unknown }).id_token;
    if (typeof idToken !== 'string') return undefined;
    const { sub } = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof sub === 'string' && /^[\x21-\x7e]{1,255}$/.test(sub) ? sub : undefined;
  } catch {
    return undefined;
  }
}

interface OidcClientConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | null;
  readonly redirectUrl: string;
  readonly scopes: string;
  /** Longest wait for the provider, per request. */
  readonly timeoutSeconds?: number;
}

interface AuthorizationStart {
  readonly url: string;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

interface FlowChecks {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

type Library = typeof OpenIdClient;

/** The provider's answers a user can fix by signing in there: a silent attempt found no session. */
const NEEDS_INTERACTION = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

/** The library's error code and the claim it compared, wherever in the cause chain they are. */
function codeAndClaim(err: unknown): { code?: string; claim?: string } {
  let code: string | undefined;
  let claim: string | undefined;
  for (let current: unknown = err, depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    const record = current as { code?: unknown; claim?: unknown; cause?: unknown };
    if (code === undefined && typeof record.code === 'string') code = record.code;
    if (claim === undefined && typeof record.claim === 'string') claim = record.claim;
    current = record.cause;
  }
  return { code, claim };
}

/** What a failure of the library means for the admin at the browser. */
export function classifyFailure(lib: Pick<Library, 'AuthorizationResponseError' | 'ResponseBodyError'>, err: unknown): ProviderFailure {
  if (err instanceof lib.AuthorizationResponseError) return NEEDS_INTERACTION.has(err.error) ? 'login_required' : 'provider_error';
  if (err instanceof lib.ResponseBodyError) return 'provider_error';
  const { code, claim } = codeAndClaim(err);
  if (code === 'OAUTH_KEY_SELECTION_FAILED') return 'keys_changed';
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' && claim === 'iss') return 'wrong_issuer';
  if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON') return 'provider_unavailable';
  if (err instanceof TypeError || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))) return 'provider_unavailable';
  return 'invalid_token';
}

export class OidcClient {
  private library: Promise<Library> | null = null;
  /** What each authorization code's ID token claimed as its subject, while its exchange is checked. */
  private readonly claimedSubjects = new Map<string, string>();
  private configuration: Promise<OpenIdClient.Configuration> | null = null;

  constructor(private readonly config: OidcClientConfig) {}

  get redirectUrl(): string {
    return this.config.redirectUrl;
  }

  /** Where to send the browser: the provider's authorization endpoint with a fresh state, nonce and PKCE challenge. */
  async start(options: { readonly silent: boolean }): Promise<AuthorizationStart> {
    const lib = await this.lib();
    const configuration = await this.discovered();
    const verifier = lib.randomPKCECodeVerifier();
    const state = lib.randomState();
    const nonce = lib.randomNonce();
    const url = lib.buildAuthorizationUrl(configuration, {
      redirect_uri: this.config.redirectUrl,
      scope: this.config.scopes.split(/\s+/).includes('openid') ? this.config.scopes : `openid ${this.config.scopes}`,
      code_challenge: await lib.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(options.silent ? { prompt: 'none' } : {}),
    });
    return { url: url.href, state, nonce, verifier };
  }

  /** The verified ID token's claims for the provider's redirect back to `callbackUrl`; else SsoProviderError. */
  async finish(callbackUrl: URL, checks: FlowChecks): Promise<Readonly<Record<string, unknown>>> {
    const lib = await this.lib();
    const configuration = await this.discovered();
    const code = callbackUrl.searchParams.get('code') ?? '';
    try {
      const tokens = await lib.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new SsoProviderError('invalid_token', 'The provider answered without an ID token.');
      return claims as Readonly<Record<string, unknown>>;
    } catch (err) {
      if (err instanceof SsoProviderError) throw err;
      const reason = classifyFailure(lib, err);
      // Unknown keys or an unreachable provider: look everything up afresh next time.
      if (reason === 'keys_changed' || reason === 'provider_unavailable') this.configuration = null;
      throw new SsoProviderError(reason, (err as Error).message, { cause: err, claimedSubject: this.claimedSubjects.get(code) });
    } finally {
      this.claimedSubjects.delete(code);
    }
  }

  /**
   * The library's requests as they are, but the token endpoint's answer is read once more for the
   * subject its ID token claims, kept by authorization code until the checks end: a refused
   * sign-in is then audited with the subject it claimed (never the token).
   */
  private recordingFetch(tokenEndpoint: string | undefined): OpenIdClient.CustomFetch {
    const tokenUrl = tokenEndpoint ? new URL(tokenEndpoint) : null;
    return async (url, options) => {
      const response = await fetch(url, options);
      const target = new URL(url);
      const atTokenEndpoint = tokenUrl !== null && target.origin === tokenUrl.origin && target.pathname === tokenUrl.pathname;
      const code = atTokenEndpoint && options.body ? new URLSearchParams(options.body.toString()).get('code') : null;
      const claimed = code ? claimedSubject(await response.clone().text()) : undefined;
      if (code && claimed) this.claimedSubjects.set(code, claimed);
      return response;
    };
  }

  private lib(): Promise<Library> {
    this.library ??= import('openid-client');
    return this.library;
  }

  private discovered(): Promise<OpenIdClient.Configuration> {
    if (!this.configuration) {
      const attempt = this.discover();
      this.configuration = attempt;
      // A failed discovery is not kept: the next sign-in tries again.
      attempt.catch(() => {
        if (this.configuration === attempt) this.configuration = null;
      });
    }
    return this.configuration;
  }

  private async discover(): Promise<OpenIdClient.Configuration> {
    const lib = await this.lib();
    const { issuer, clientId, clientSecret } = this.config;
    const insecure = new URL(issuer).protocol === 'http:';
    let configuration: OpenIdClient.Configuration;
    try {
      configuration = await lib.discovery(new URL(issuer), clientId, undefined, clientSecret === null ? lib.None() : lib.ClientSecretBasic(clientSecret), {
        timeout: this.config.timeoutSeconds ?? 10,
        // The library trusts an ID token straight from the token endpoint over TLS by default
        // (OpenID Connect Core 3.1.3.7 allows it); the gateway checks its signature all the same.
        execute: [...(insecure ? [lib.allowInsecureRequests] : []), lib.enableNonRepudiationChecks],
      });
    } catch (err) {
      throw new SsoProviderError('provider_unavailable', `OpenID Connect discovery at ${issuer} failed: ${(err as Error).message}`, { cause: err });
    }
    configuration[lib.customFetch] = this.recordingFetch(configuration.serverMetadata().token_endpoint);
    return configuration;
  }
}
