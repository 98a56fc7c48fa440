/**
 * The vendor portal's doors, tried as an attacker would on a whole gateway: credentials that are
 * not the portal's own cookie (admin bearer tokens, vendor API keys, the portal token itself, the
 * admin UI's session cookie under either name), the portal cookie on the admin port, tampered and
 * tossed cookies; then raw requests a browser would never send (path tricks, absolute-form
 * targets, cross-site forms, missing write header, oversized and deeply nested bodies, a foreign
 * Origin) and the security headers on every portal answer, errors included.
 *
 * Vendor A is the sandbox's demo-vendor, B its readonly-partner. Loopback only.
 */
import { createHash } from 'node:crypto';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { invitePortalUser, PortalSession, PORTAL_UI_HEADERS, type InvitedPortalUser } from '../support/portal-client';
import { rawExchange, rawRequest, type RawResponse } from '../support/raw-http';

const A = 'demo-vendor';
const B = 'readonly-partner';
/** Allowed for the vendor API's CORS: the portal still answers it no CORS header. */
const CORS_ORIGIN = 'https://vendor-app.example';

let gateway: TestGateway;
let userA: InvitedPortalUser;
let userB: InvitedPortalUser;
let sessionA: PortalSession;
let adminCookie: string;

beforeAll(async () => {
  gateway = await startTestGateway({ cors: { allowedOrigins: [CORS_ORIGIN] } });
  userA = await invitePortalUser(gateway, A);
  userB = await invitePortalUser(gateway, B);
  sessionA = await PortalSession.signIn(gateway, userA.token);
  const adminSignIn = await fetch(`http://127.0.0.1:${gateway.adminPort}/ui/session`, {
    method: 'POST',
    headers: { 'x-requested-by': 'cbg-admin-ui', 'content-type': 'application/json' },
    body: JSON.stringify({ token: TEST_ADMIN_TOKEN }),
  });
  expect(adminSignIn.status).toBe(200);
  adminCookie = /^cbg_admin_session=([^;]+)/.exec(adminSignIn.headers.get('set-cookie') ?? '')?.[1] as string;
  expect(adminCookie).toEqual(expect.any(String));
});
afterAll(() => gateway.stop());

async function portalKeys(headers: Record<string, string>): Promise<number> {
  const answer = await fetch(`${gateway.url}/portal/api/keys`, { headers });
  await answer.arrayBuffer();
  return answer.status;
}

async function adminVendors(headers: Record<string, string>): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/vendors`, { headers });
  await answer.arrayBuffer();
  return answer.status;
}

/** The cookie value with its payload replaced: the signature is A's, the claims another's. */
function withClaims(value: string, change: (claims: Record<string, unknown>) => Record<string, unknown>): string {
  const [payload, mac] = value.split('.') as [string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${Buffer.from(JSON.stringify(change(claims))).toString('base64url')}.${mac}`;
}

const fingerprintOf = (token: string): string =>
  createHash('sha256')
    .update(`sha256:${createHash('sha256').update(token).digest('hex')}`)
    .digest('hex')
    .slice(0, 16);

describe('credentials the portal refuses', () => {
  it('admin bearer tokens, vendor API keys and the portal token itself: 401', async () => {
    expect(await portalKeys({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` })).toBe(401);
    expect(await portalKeys({ 'x-vendor-token': SANDBOX_KEYS.demo })).toBe(401);
    expect(await portalKeys({ authorization: `Bearer ${SANDBOX_KEYS.demo}` })).toBe(401);
    expect(await portalKeys({ authorization: `Bearer ${userA.token}` })).toBe(401);
    expect(await portalKeys({ 'x-vendor-token': userA.token })).toBe(401);
    expect(await portalKeys({ cookie: `cbg_portal_session=${userA.token}` })).toBe(401);
    const session = await fetch(`${gateway.url}/portal/api/session`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-vendor-token': SANDBOX_KEYS.demo },
    });
    expect(await session.json()).toEqual({ portalUser: null });
  });

  it("the admin UI's session cookie, under its own name or the portal's: 401", async () => {
    expect(await adminVendors({ cookie: `cbg_admin_session=${adminCookie}` })).toBe(200);
    expect(await portalKeys({ cookie: `cbg_admin_session=${adminCookie}` })).toBe(401);
    expect(await portalKeys({ cookie: `cbg_portal_session=${adminCookie}` })).toBe(401);
  });

  it('the portal cookie on the admin port, under its own name or the admin UI’s: 401', async () => {
    expect(await portalKeys({ cookie: sessionA.cookie as string })).toBe(200);
    expect(await adminVendors({ cookie: sessionA.cookie as string })).toBe(401);
    expect(await adminVendors({ cookie: `cbg_admin_session=${sessionA.value}` })).toBe(401);
    const adminSession = await fetch(`http://127.0.0.1:${gateway.adminPort}/ui/session`, { headers: { cookie: `cbg_admin_session=${sessionA.value}` } });
    expect(await adminSession.json()).toMatchObject({ admin: null });
    // Nor a portal token as the admin API's bearer token.
    expect(await adminVendors({ authorization: `Bearer ${userA.token}` })).toBe(401);
  });

  it("a tampered cookie (vendor B named, A's user under B's vendor, B's whole claims under A's signature): 401", async () => {
    const forged = [
      withClaims(sessionA.value, (claims) => ({ ...claims, s: `${B}:${userA.id}` })),
      withClaims(sessionA.value, (claims) => ({ ...claims, s: `${B}:${userB.id}` })),
      withClaims(sessionA.value, (claims) => ({ ...claims, s: `${B}:${userB.id}`, f: fingerprintOf(userB.token) })),
      withClaims(sessionA.value, (claims) => ({ ...claims, e: Date.now() + 365 * 86_400_000 })),
      sessionA.value.split('.')[0] as string,
      `${sessionA.value.split('.')[0] as string}.`,
      `${sessionA.value}.${sessionA.value.split('.')[1] as string}`,
    ];
    for (const value of forged) expect([value, await portalKeys({ cookie: `cbg_portal_session=${value}` })]).toEqual([value, 401]);
    expect(await portalKeys({ cookie: sessionA.cookie as string })).toBe(200);
  });

  it('two portal session cookies in one request (cookie tossing): 401, whichever comes first', async () => {
    const mine = sessionA.cookie as string;
    const theirs = (await PortalSession.signIn(gateway, userB.token)).cookie as string;
    for (const cookie of [
      `${mine}; ${mine}`,
      `${theirs}; ${mine}`,
      `${mine}; ${theirs}`,
      `cbg_portal_session=x; ${mine}`,
      `${mine}; other=1; cbg_portal_session=`,
    ]) {
      expect([cookie, await portalKeys({ cookie })]).toEqual([cookie, 401]);
    }
    // Two Cookie header lines: Node joins them into one.
    const exchange = await rawExchange(
      gateway.vendorPort,
      rawRequest(['GET /portal/api/keys HTTP/1.1', 'Host: 127.0.0.1', `Cookie: ${theirs}`, `Cookie: ${mine}`, 'Connection: close']),
    );
    expect(exchange.responses[0]?.status).toBe(401);
  });
});

/** One raw request on its own connection; its single answer. */
async function raw(lines: readonly string[], body = ''): Promise<RawResponse> {
  const exchange = await rawExchange(gateway.vendorPort, rawRequest([...lines, 'Host: 127.0.0.1', 'Connection: close'], body));
  const answer = exchange.responses[0];
  if (!answer) throw new Error(`no answer to ${lines[0]}`);
  return answer;
}

const SECURITY_HEADERS = {
  'content-security-policy': expect.stringContaining("frame-ancestors 'none'"),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};

function expectPortalHeaders(what: string, answer: RawResponse): void {
  expect([what, answer.headers]).toEqual([what, expect.objectContaining(SECURITY_HEADERS)]);
  expect([what, answer.headers['content-security-policy']]).toEqual([what, expect.stringContaining("default-src 'none'")]);
  expect([what, answer.headers['access-control-allow-origin']]).toEqual([what, undefined]);
}

describe('raw requests', () => {
  it('path tricks never pass the session gate, nor reach the admin API or another vendor', async () => {
    const targets = [
      '/portal/api/../v1/vendors',
      '/portal/api/..%2fv1/vendors',
      '//portal/api/keys',
      '/portal//api/keys',
      '/portal/api/%2e%2e/keys',
      '/portal/api/./keys',
      '/PORTAL/api/keys',
      '/Portal/Api/Keys',
      '/portal/api/keys%2f..',
      '/portal/api/keys/',
      '/portal/api/keys;',
      '/portal/api/%6beys',
      '/portal/%61pi/keys',
      `http://127.0.0.1:${gateway.vendorPort}/portal/api/keys`,
      'http://evil.example/portal/api/keys',
      `http://127.0.0.1:${gateway.adminPort}/v1/vendors`,
    ];
    for (const target of targets) {
      for (const credentials of [[`Authorization: Bearer ${TEST_ADMIN_TOKEN}`], [`X-Vendor-Token: ${SANDBOX_KEYS.demo}`]]) {
        const answer = await raw([`GET ${target} HTTP/1.1`, ...credentials]);
        // No portal session: never an answer with content (a vendor API answer would need the path to be an API).
        expect([target, credentials[0], answer.status < 300]).toEqual([target, credentials[0], false]);
        expect(answer.body).not.toContain('key-demo-sandbox');
        expect(answer.body).not.toContain('readonly-partner');
      }
      const signedIn = await raw([`GET ${target} HTTP/1.1`, `Cookie: ${sessionA.cookie as string}`]);
      expect(signedIn.body).not.toContain('key-partner-sandbox');
      expect(signedIn.body).not.toContain('"vendors"');
      if (signedIn.status < 300)
        expect([target, JSON.parse(signedIn.body)]).toEqual([target, expect.arrayContaining([expect.objectContaining({ id: 'key-demo-sandbox' })])]);
    }
    // Another case is another path (as for the cookie's Path=/portal): the vendor API's, which asks for a key.
    for (const target of ['/PORTAL/api/keys', '/Portal/api/session']) {
      const answer = await raw([`GET ${target} HTTP/1.1`, `Cookie: ${sessionA.cookie as string}`]);
      expect([target, answer.status]).toEqual([target, 401]);
      expect(answer.body).toContain('No API key');
    }
    // A path the portal does not know under /portal is the portal's own 404, never the vendor API.
    for (const target of ['/portal/api/keys/', '/portal/api/%2e%2e/keys', '/portal/accounts', '/portal/api/../../accounts']) {
      const answer = await raw([`GET ${target} HTTP/1.1`, `X-Vendor-Token: ${SANDBOX_KEYS.demo}`, `Cookie: ${sessionA.cookie as string}`]);
      expect([target, answer.status]).toEqual([target, 404]);
      expectPortalHeaders(target, answer);
    }
  });

  it("another vendor's key id dressed up in the path: 404, never a write", async () => {
    for (const keyId of ['..%2fkey-partner-sandbox', 'key-partner-sandbox%00', '%6b%65%79-partner-sandbox', 'key-partner-sandbox%2frotate']) {
      const answer = await raw([`DELETE /portal/api/keys/${keyId} HTTP/1.1`, `Cookie: ${sessionA.cookie as string}`, 'X-Requested-By: cbg-portal-ui']);
      expect([keyId, answer.status]).toEqual([keyId, 404]);
    }
    const partner = await fetch(`${gateway.url}/accounts/`, { headers: { 'x-vendor-token': SANDBOX_KEYS.readonlyPartner } });
    expect(partner.status).toBe(200);
  });

  it('a cross-site form cannot sign a browser in: text/plain, url-encoded and multipart bodies are refused, with or without the header', async () => {
    const body = JSON.stringify({ token: userA.token });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      for (const header of [[], ['X-Requested-By: cbg-portal-ui']]) {
        const answer = await raw(['POST /portal/api/session HTTP/1.1', `Content-Type: ${type}`, `Content-Length: ${Buffer.byteLength(body)}`, ...header], body);
        // The body's type is checked first: no form a browser can send cross-site is even read.
        expect([type, header.length, answer.status]).toEqual([type, header.length, 415]);
        expect(answer.headers['set-cookie']).toBeUndefined();
        expectPortalHeaders(type, answer);
      }
    }
  });

  it('a write without X-Requested-By: cbg-portal-ui is 403, before anything changes', async () => {
    const cookie = `Cookie: ${sessionA.cookie as string}`;
    const body = JSON.stringify({ overlapHours: 0 });
    const signIn = JSON.stringify({ token: userA.token });
    const json = (text: string): string[] => ['Content-Type: application/json', `Content-Length: ${text.length}`];
    for (const header of [[], ['X-Requested-By: XMLHttpRequest'], ['X-Requested-By: cbg-admin-ui']]) {
      const writes = [
        await raw(['POST /portal/api/keys/key-demo-sandbox/rotate HTTP/1.1', cookie, ...json(body), ...header], body),
        await raw(['DELETE /portal/api/keys/key-demo-sandbox HTTP/1.1', cookie, ...header]),
        await raw(['DELETE /portal/api/session HTTP/1.1', cookie, ...header]),
        await raw(['POST /portal/api/session HTTP/1.1', ...json(signIn), ...header], signIn),
      ];
      expect(writes.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
      for (const answer of writes) expectPortalHeaders('write without the header', answer);
    }
    expect(await portalKeys({ cookie: sessionA.cookie as string })).toBe(200);
    const keys = (await sessionA.json<Array<{ id: string; status: string }>>(gateway, '/portal/api/keys')).find((key) => key.id === 'key-demo-sandbox');
    expect(keys?.status).toBe('active');
  });

  it('an oversized body is 413 (declared or chunked), a deeply nested one 400', async () => {
    const big = JSON.stringify({ token: 'x'.repeat(8000) });
    const declared = await raw(
      ['POST /portal/api/session HTTP/1.1', 'X-Requested-By: cbg-portal-ui', 'Content-Type: application/json', `Content-Length: ${big.length}`],
      big,
    );
    expect(declared.status).toBe(413);
    expectPortalHeaders('declared 413', declared);
    const chunked = await raw(
      ['POST /portal/api/session HTTP/1.1', 'X-Requested-By: cbg-portal-ui', 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    expectPortalHeaders('chunked 413', chunked);
    const deep = `{"token":${'['.repeat(200)}${']'.repeat(200)}}`;
    for (const path of ['/portal/api/session', '/portal/api/keys/key-demo-sandbox/rotate']) {
      const answer = await raw(
        [
          `POST ${path} HTTP/1.1`,
          'X-Requested-By: cbg-portal-ui',
          'Content-Type: application/json',
          `Content-Length: ${deep.length}`,
          `Cookie: ${sessionA.cookie as string}`,
        ],
        deep,
      );
      expect([path, answer.status]).toEqual([path, 400]);
      expectPortalHeaders('deep JSON', answer);
    }
  });

  it('an Origin from another site, even one the vendor API allows, gets no CORS header from the portal', async () => {
    // The vendor API itself answers the allowed origin: the gateway's CORS is on.
    const api = await raw(['GET /genders HTTP/1.1', `Origin: ${CORS_ORIGIN}`, `X-Vendor-Token: ${SANDBOX_KEYS.demo}`]);
    expect(api.headers['access-control-allow-origin']).toBe(CORS_ORIGIN);
    for (const origin of [CORS_ORIGIN, 'https://evil.example', 'null']) {
      const preflight = await raw([
        'OPTIONS /portal/api/keys HTTP/1.1',
        `Origin: ${origin}`,
        'Access-Control-Request-Method: DELETE',
        'Access-Control-Request-Headers: x-requested-by, content-type',
      ]);
      expect([origin, preflight.status < 300]).toEqual([origin, false]);
      for (const path of ['/portal/api/keys', '/portal/api/session', '/portal/']) {
        const answer = await raw([`GET ${path} HTTP/1.1`, `Origin: ${origin}`, `Cookie: ${sessionA.cookie as string}`]);
        expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
      expectPortalHeaders(`preflight from ${origin}`, preflight);
    }
  });

  it('every portal answer carries the CSP and X-Frame-Options, errors included; the API answers are not stored', async () => {
    const answers: Array<[string, RawResponse]> = [];
    const cookie = `Cookie: ${sessionA.cookie as string}`;
    for (const lines of [
      ['GET /portal/ HTTP/1.1'],
      ['GET /portal HTTP/1.1'],
      ['GET /portal/ui/app.js HTTP/1.1'],
      ['GET /portal/ui-kit/api.js HTTP/1.1'],
      ['HEAD /portal/ HTTP/1.1'],
      ['GET /portal/no-such-page HTTP/1.1'],
      ['GET /portal/api/keys HTTP/1.1'],
      ['GET /portal/api/keys HTTP/1.1', cookie],
      ['GET /portal/api/usage?range=1y HTTP/1.1', cookie],
      ['GET /portal/api/requests?limit=0 HTTP/1.1', cookie],
      ['GET /portal/api/session HTTP/1.1'],
      ['PUT /portal/api/keys HTTP/1.1', cookie, 'X-Requested-By: cbg-portal-ui'],
      ['DELETE /portal/api/keys/no-such-key HTTP/1.1', cookie, 'X-Requested-By: cbg-portal-ui'],
    ]) {
      answers.push([lines.join(' | '), await raw(lines)]);
    }
    const wrong = JSON.stringify({ token: 'cbp_notARealTokenAtAll0000000000000_AAAAAA' });
    answers.push([
      'wrong token',
      await raw(
        ['POST /portal/api/session HTTP/1.1', 'X-Requested-By: cbg-portal-ui', 'Content-Type: application/json', `Content-Length: ${wrong.length}`],
        wrong,
      ),
    ]);
    expect(answers.map(([what, answer]) => [what, answer.status])).toEqual([
      ['GET /portal/ HTTP/1.1', 200],
      ['GET /portal HTTP/1.1', 308],
      ['GET /portal/ui/app.js HTTP/1.1', 200],
      ['GET /portal/ui-kit/api.js HTTP/1.1', 200],
      ['HEAD /portal/ HTTP/1.1', 200],
      ['GET /portal/no-such-page HTTP/1.1', 404],
      ['GET /portal/api/keys HTTP/1.1', 401],
      [`GET /portal/api/keys HTTP/1.1 | ${cookie}`, 200],
      [`GET /portal/api/usage?range=1y HTTP/1.1 | ${cookie}`, 400],
      [`GET /portal/api/requests?limit=0 HTTP/1.1 | ${cookie}`, expect.any(Number)],
      ['GET /portal/api/session HTTP/1.1', 200],
      [`PUT /portal/api/keys HTTP/1.1 | ${cookie} | X-Requested-By: cbg-portal-ui`, 404],
      [`DELETE /portal/api/keys/no-such-key HTTP/1.1 | ${cookie} | X-Requested-By: cbg-portal-ui`, 404],
      ['wrong token', 401],
    ]);
    for (const [what, answer] of answers) {
      expectPortalHeaders(what, answer);
      if (what.includes('/portal/api/') || what === 'wrong token') expect([what, answer.headers['cache-control']]).toEqual([what, 'no-store']);
    }
  });
});

describe('the session scoped to one vendor', () => {
  it("names A's vendor whatever the request claims", async () => {
    const session = await sessionA.json<{ portalUser: { vendorId: string } }>(gateway, `/portal/api/session?vendorId=${B}`);
    expect(session.portalUser.vendorId).toBe(A);
    const keys = await sessionA.json<Array<{ id: string }>>(gateway, `/portal/api/keys?vendorId=${B}&vendor=${B}`);
    expect(keys.map((key) => key.id)).not.toContain('key-partner-sandbox');
    const access = await (await sessionA.call(gateway, 'GET', '/portal/api/access', undefined, { ...PORTAL_UI_HEADERS, 'x-vendor-id': B })).json();
    expect((access as { vendor: { id: string } }).vendor.id).toBe(A);
  });
});

describe('a script looping on the reads that make the store scan', () => {
  it('is limited per portal user (429 with Retry-After after 60 a minute); finding one request by its id and other users are not', async () => {
    const looping = await PortalSession.signIn(gateway, (await invitePortalUser(gateway, A)).token);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await looping.call(gateway, 'GET', `/portal/api/usage?range=${i % 2 === 0 ? '24h' : '7d'}`)).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const limited = await looping.call(gateway, 'GET', '/portal/api/usage?range=7d');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { code: string }).code).toBe('rate_limited');
    expect((await looping.call(gateway, 'GET', '/portal/api/requests?limit=200&apiId=GETnothing')).status).toBe(429);
    expect((await looping.call(gateway, 'GET', '/portal/api/requests?requestId=some-request-id')).status).not.toBe(429);
    expect((await looping.call(gateway, 'GET', '/portal/api/keys')).status).toBe(200);
    expect((await sessionA.call(gateway, 'GET', '/portal/api/usage?range=7d')).status).toBe(200);
  });
});
