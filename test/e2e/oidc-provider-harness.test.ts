/**
 * The test OpenID provider (test/support/oidc-provider.ts) itself: its discovery document, a JWKS
 * that changes on rotateKeys (the old kid gone), its login page reached through an authorization
 * request with PKCE, and a whole code flow (login, consent, token with client_secret_basic) whose
 * ID token carries name, email and groups, verified against its JWKS, and broken as each fault
 * says; the provider dies with the process that started it.
 */
import { spawn } from 'node:child_process';
import { createHash, createPublicKey, createVerify, randomBytes } from 'node:crypto';
import path from 'node:path';
import { startOidcProvider, type OidcProviderHandle } from '../support/oidc-provider';
import { within } from '../support/within';

const CLIENT = { client_id: 'harness', client_secret: 'harness-secret-not-secret', redirect_uris: ['http://127.0.0.1:9/cb'] };

interface Jwk {
  kid: string;
  kty: string;
  n: string;
  e: string;
  d?: string;
}

let provider: OidcProviderHandle;
beforeAll(async () => {
  provider = await startOidcProvider({ clients: [CLIENT], accounts: { alice: { name: 'Alice Example', email: 'alice@bank.example', groups: ['g-owner'] } } });
});
afterAll(async () => {
  await provider?.stop();
});

async function jwks(): Promise<Jwk[]> {
  const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  return ((await (await fetch(discovery.jwks_uri)).json()) as { keys: Jwk[] }).keys;
}

function cookiesOf(res: Response, jar: Map<string, string>): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
}

/** A code flow by fetch, as a browser would do it through the dev login and consent pages: the ID token. */
async function idTokenFor(sub: string): Promise<string> {
  const jar = new Map<string, string>();
  const cookie = (): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const auth = new URL(`${provider.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: CLIENT.client_id,
    redirect_uri: CLIENT.redirect_uris[0]!,
    response_type: 'code',
    scope: 'openid profile email',
    state: 's1',
    nonce: 'n1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }))
    auth.searchParams.set(k, v);
  let res = await fetch(auth, { redirect: 'manual' });
  for (let step = 0; step < 10; step++) {
    cookiesOf(res, jar);
    const location = res.headers.get('location');
    if (location?.startsWith(CLIENT.redirect_uris[0]!)) {
      const code = new URL(location).searchParams.get('code')!;
      const token = await fetch(`${provider.issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CLIENT.client_id}:${CLIENT.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CLIENT.redirect_uris[0]!, code_verifier: verifier }),
      });
      const body = (await token.json()) as { id_token: string };
      return body.id_token;
    }
    if (location) {
      res = await fetch(new URL(location, provider.issuer), { redirect: 'manual', headers: { cookie: cookie() } });
      continue;
    }
    const page = await res.text();
    const action = /action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`no form on ${res.url}: ${page.slice(0, 300)}`);
    const form: Record<string, string> = page.includes('name="login"') ? { prompt: 'login', login: sub, password: 'any' } : { prompt: 'consent' };
    res = await fetch(new URL(action.replace(/&amp;/g, '&'), provider.issuer), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }
  throw new Error('the code flow did not end');
}

function decode(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown>; signatureValid: (keys: Jwk[]) => boolean } {
  const [h, p, s] = jwt.split('.');
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as Record<string, unknown>;
  return {
    header,
    claims: JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>,
    signatureValid: (keys) => {
      const jwk = keys.find((k) => k.kid === header.kid);
      if (!jwk) return false;
      const key = createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' });
      return createVerify('RSA-SHA256').update(`${h}.${p}`).verify(key, Buffer.from(s!, 'base64url'));
    },
  };
}

describe('the test OpenID provider', () => {
  afterEach(async () => {
    await provider.setTokenFault(null);
  });

  it('publishes a discovery document for its loopback issuer: code flow, PKCE S256, client_secret_basic, RS256', async () => {
    expect(provider.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const discovery = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: provider.issuer,
      authorization_endpoint: `${provider.issuer}/auth`,
      token_endpoint: `${provider.issuer}/token`,
      jwks_uri: `${provider.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: expect.arrayContaining(['RS256']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic']),
      claims_supported: expect.arrayContaining(['name', 'email', 'groups']),
    });
  });

  it('serves a new JWKS after rotateKeys: the new kid only, no private parts', async () => {
    const before = await jwks();
    expect(before).toHaveLength(1);
    const kid = await provider.rotateKeys();
    const after = await jwks();
    expect(after.map((k) => k.kid)).toEqual([kid]);
    expect(kid).not.toBe(before[0]!.kid);
    expect(after[0]).toMatchObject({ kty: 'RSA' });
    expect(after[0]!.d).toBeUndefined();
  });

  it('shows its login page to an authorization request with PKCE, and refuses one without', async () => {
    const params = { client_id: CLIENT.client_id, redirect_uri: CLIENT.redirect_uris[0]!, response_type: 'code', scope: 'openid' };
    const withPkce = new URLSearchParams({ ...params, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const started = await fetch(`${provider.issuer}/auth?${withPkce}`, { redirect: 'manual' });
    const jar = new Map<string, string>();
    cookiesOf(started, jar);
    const res = await fetch(new URL(started.headers.get('location')!, provider.issuer), {
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(page).toContain('name="login"');
    expect(page).not.toContain('fonts.googleapis.com');

    const withoutPkce = await fetch(`${provider.issuer}/auth?${new URLSearchParams(params)}`, { redirect: 'manual' });
    expect(withoutPkce.headers.get('location')).toContain('error=invalid_request');
  });

  it('signs an ID token with name, email and groups, then its claims as setAccount changed them', async () => {
    const token = decode(await idTokenFor('alice'));
    expect(token.header).toMatchObject({ alg: 'RS256' });
    expect(token.claims).toMatchObject({
      iss: provider.issuer,
      sub: 'alice',
      aud: CLIENT.client_id,
      name: 'Alice Example',
      email: 'alice@bank.example',
      groups: ['g-owner'],
    });
    expect(token.signatureValid(await jwks())).toBe(true);

    await provider.setAccount('alice', { name: 'Alice Example', email: 'alice@bank.example', groups: ['g-viewer'] });
    expect(decode(await idTokenFor('alice')).claims.groups).toEqual(['g-viewer']);
  });

  it('breaks the ID token as each fault says, re-signed with its current key where the fault needs it', async () => {
    const keys = await jwks();
    await provider.setTokenFault('tamper');
    expect(decode(await idTokenFor('alice')).signatureValid(keys)).toBe(false);

    await provider.setTokenFault('expire');
    const expired = decode(await idTokenFor('alice'));
    const now = Date.now() / 1000;
    expect(expired.signatureValid(keys)).toBe(true);
    expect(expired.claims.exp).toBeLessThan(now - 9 * 60);
    expect(expired.claims.iat).toBeLessThan(now - 19 * 60);

    await provider.setTokenFault('wrong_issuer');
    const wrong = decode(await idTokenFor('alice'));
    expect(wrong.signatureValid(keys)).toBe(true);
    expect(wrong.claims.iss).not.toBe(provider.issuer);

    await provider.setTokenFault('overage');
    const overage = decode(await idTokenFor('alice'));
    expect(overage.signatureValid(keys)).toBe(true);
    expect(overage.claims.groups).toBeUndefined();
    expect(overage.claims).toMatchObject({
      _claim_names: { groups: 'src1' },
      _claim_sources: { src1: { endpoint: expect.stringContaining('graph.microsoft.com') } },
    });

    await provider.setTokenFault(null);
    expect(decode(await idTokenFor('alice')).signatureValid(keys)).toBe(true);
  });

  it('dies with the process that started it, however that one ended', async () => {
    // A parent of its own (killed with SIGKILL: no clean-up of its own runs) starts the program as the handle does.
    const program = path.join(__dirname, '../support/oidc-provider/provider.mjs');
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(program)}], { stdio: ['pipe', 'pipe', 'inherit'], env: { OIDC_TEST_PROVIDER: JSON.stringify({ parentPid: process.pid }) } });
         c.stdout.once('data', () => console.log(c.pid));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const childPid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    const alive = (): boolean => {
      try {
        process.kill(childPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    parent.kill('SIGKILL');
    await within(5000, () => !alive());
  });
});
