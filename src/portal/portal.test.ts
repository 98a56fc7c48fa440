/**
 * The vendor portal's JSON API over real HTTP on a whole gateway (sandbox core, memory store):
 * sign-in and its cookie, the session gate and what ends a session, keys (rotate with an overlap,
 * revoke), usage, requests, API access and the filtered OpenAPI document, and the boundaries: no
 * other vendor's keys, no admin token or vendor key as a credential, no CORS, strict CSP.
 */
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../../test/support/gateway';
import { TEST_ADMIN_TOKEN } from '../../test/support/config';
import { within } from '../../test/support/within';

const UI = { 'x-requested-by': 'cbg-portal-ui', 'content-type': 'application/json' };
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

let gateway: TestGateway;
let adminUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway({ portal: { rotationsPerHour: 3 } });
  adminUrl = `http://127.0.0.1:${gateway.adminPort}`;
});
afterAll(() => gateway.stop());

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${adminUrl}${path}`, { method, headers: ADMIN, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function invite(vendorId: string, email = `dev-${Math.random().toString(36).slice(2)}@example.com`): Promise<{ id: string; token: string }> {
  const answer = await admin('POST', `/v1/vendors/${vendorId}/portal-users`, { email, name: 'Dana Developer' });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; token: string };
}

/** A cookie jar of one: the portal session cookie the last answer set. */
class Browser {
  cookie: string | null = null;
  lastSetCookie: string | null = null;

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = UI): Promise<Response> {
    const answer = await fetch(`${gateway.url}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = answer.headers.get('set-cookie');
    if (set) {
      this.lastSetCookie = set;
      const value = /^cbg_portal_session=([^;]*)/.exec(set)?.[1] ?? '';
      this.cookie = value ? `cbg_portal_session=${value}` : null;
    }
    return answer;
  }

  async signIn(token: string): Promise<Response> {
    return this.call('POST', '/portal/api/session', { token });
  }
}

async function signedIn(vendorId = 'demo-vendor'): Promise<{ browser: Browser; user: { id: string; token: string } }> {
  const user = await invite(vendorId);
  const browser = new Browser();
  expect((await browser.signIn(user.token)).status).toBe(200);
  return { browser, user };
}

async function issueKey(vendorId: string, userId: string): Promise<{ id: string; secret: string }> {
  const answer = await admin('POST', `/v1/vendors/${vendorId}/keys`, { userId });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; secret: string };
}

async function vendorCall(key: string): Promise<Response> {
  return fetch(`${gateway.url}/accounts/`, { headers: { 'x-vendor-token': key } });
}

describe('signing in to the portal', () => {
  it('sets an HttpOnly, SameSite=Strict cookie scoped to /portal, and names the portal user and vendor', async () => {
    const user = await invite('demo-vendor');
    const browser = new Browser();
    const answer = await browser.signIn(user.token);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ portalUser: expect.objectContaining({ id: user.id, vendorId: 'demo-vendor', name: 'Dana Developer' }) });
    expect(browser.lastSetCookie).toMatch(/^cbg_portal_session=[^;]+; Path=\/portal; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    const session = await browser.call('GET', '/portal/api/session');
    expect(((await session.json()) as { portalUser: { id: string } }).portalUser.id).toBe(user.id);
  });

  it('refuses a wrong token with 401 naming the token field, and never echoes it', async () => {
    const browser = new Browser();
    const answer = await browser.signIn('cbp_notARealTokenAtAll0000000000000_AAAAAA');
    expect(answer.status).toBe(401);
    const problem = (await answer.json()) as { errors: Array<{ field: string }> };
    expect(problem.errors[0]?.field).toBe('token');
    expect(JSON.stringify(problem)).not.toContain('notARealToken');
  });

  it('refuses a sign-in without the portal header (a cross-site form cannot sign a browser in)', async () => {
    const user = await invite('demo-vendor');
    const browser = new Browser();
    const answer = await browser.call('POST', '/portal/api/session', { token: user.token }, { 'content-type': 'application/json' });
    expect(answer.status).toBe(403);
    expect(browser.cookie).toBeNull();
  });
});

describe('the session gate', () => {
  it('answers 401 without a session, also to an admin bearer token and a vendor API key', async () => {
    expect((await fetch(`${gateway.url}/portal/api/keys`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/portal/api/keys`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).status).toBe(401);
    expect((await fetch(`${gateway.url}/portal/api/keys`, { headers: { 'x-vendor-token': SANDBOX_KEYS.demo } })).status).toBe(401);
  });

  it('ends the session when the bank re-issues the token, removes the portal user, or suspends the vendor', async () => {
    const reissued = await signedIn();
    expect((await admin('POST', `/v1/vendors/demo-vendor/portal-users/${reissued.user.id}/token`)).status).toBe(200);
    expect((await reissued.browser.call('GET', '/portal/api/keys')).status).toBe(401);

    const removed = await signedIn();
    expect((await admin('DELETE', `/v1/vendors/demo-vendor/portal-users/${removed.user.id}`)).status).toBe(204);
    expect((await removed.browser.call('GET', '/portal/api/keys')).status).toBe(401);

    const vendorId = `suspend-${Date.now()}`;
    expect((await admin('POST', '/v1/vendors', { id: vendorId, name: 'To be suspended' })).status).toBe(201);
    const suspended = await signedIn(vendorId);
    expect((await admin('PATCH', `/v1/vendors/${vendorId}`, { status: 'suspended' })).status).toBe(200);
    const refused = await suspended.browser.call('GET', '/portal/api/keys');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('vendor_suspended');
  });

  it('a vendor dropped by a whole-document write takes its portal users along, so one made again under its id has none', async () => {
    const vendorId = `dropped-${Date.now()}`;
    expect((await admin('POST', '/v1/vendors', { id: vendorId, name: 'To be dropped' })).status).toBe(201);
    const { browser } = await signedIn(vendorId);
    const document = (await (await admin('GET', '/v1/access')).json()) as { vendors: Array<{ id: string }> };
    document.vendors = document.vendors.filter((vendor) => vendor.id !== vendorId);
    expect((await admin('PUT', '/v1/access', document)).status).toBe(200);
    expect((await admin('POST', '/v1/vendors', { id: vendorId, name: 'Another organisation' })).status).toBe(201);
    expect(await (await admin('GET', `/v1/vendors/${vendorId}/portal-users`)).json()).toEqual([]);
    expect((await browser.call('GET', '/portal/api/keys')).status).toBe(401);
  });

  it('signing out ends the session: the same cookie replayed is refused', async () => {
    const { browser } = await signedIn();
    const cookie = browser.cookie;
    expect((await browser.call('DELETE', '/portal/api/session')).status).toBe(204);
    browser.cookie = cookie;
    expect((await browser.call('GET', '/portal/api/keys')).status).toBe(401);
  });

  it('refuses a portal write without the portal header', async () => {
    const { browser } = await signedIn();
    const answer = await browser.call('DELETE', '/portal/api/keys/key-demo-sandbox', undefined, {});
    expect(answer.status).toBe(403);
  });

  it('the portal cookie is no credential on the admin port', async () => {
    const { browser } = await signedIn();
    const answer = await fetch(`${adminUrl}/v1/vendors`, { headers: { cookie: browser.cookie as string } });
    expect(answer.status).toBe(401);
  });
});

describe('keys', () => {
  it("lists the vendor's own keys only", async () => {
    const { browser } = await signedIn('readonly-partner');
    const keys = (await (await browser.call('GET', '/portal/api/keys')).json()) as Array<{ id: string; prefix: string; hash?: string }>;
    expect(keys.map((key) => key.id)).toContain('key-partner-sandbox');
    expect(keys.map((key) => key.id)).not.toContain('key-demo-sandbox');
    expect(keys.every((key) => key.hash === undefined)).toBe(true);
  });

  it("rotates a key: both work during the overlap, the old one's expiry is the end of the overlap", async () => {
    const { browser } = await signedIn();
    const old = await issueKey('demo-vendor', 'demo.teller');
    const before = Date.now();
    const answer = await browser.call('POST', `/portal/api/keys/${old.id}/rotate`, { overlapHours: 2 });
    expect(answer.status).toBe(201);
    const rotated = (await answer.json()) as { key: { id: string; secret: string; userId: string }; previous: { id: string; expiresAt: string } };
    expect(rotated.key.secret).toMatch(/^cbk_/);
    expect(rotated.key.userId).toBe('demo.teller');
    const end = Date.parse(rotated.previous.expiresAt);
    expect(end).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1000);
    expect(end).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
    expect((await vendorCall(old.secret)).status).toBe(200);
    expect((await vendorCall(rotated.key.secret)).status).toBe(200);
  });

  it('refuses an overlap outside 0 to 168 hours, naming overlapHours', async () => {
    const { browser } = await signedIn();
    const key = await issueKey('demo-vendor', 'demo.teller');
    for (const overlapHours of [169, -1, 1.5, '2']) {
      const answer = await browser.call('POST', `/portal/api/keys/${key.id}/rotate`, { overlapHours });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('overlapHours');
    }
  });

  it("cannot rotate or revoke another vendor's key: 404, and the key keeps working", async () => {
    const { browser } = await signedIn('readonly-partner');
    const demoKey = await issueKey('demo-vendor', 'demo.teller');
    expect((await browser.call('POST', `/portal/api/keys/${demoKey.id}/rotate`, { overlapHours: 0 })).status).toBe(404);
    expect((await browser.call('DELETE', `/portal/api/keys/${demoKey.id}`)).status).toBe(404);
    expect((await vendorCall(demoKey.secret)).status).toBe(200);
  });

  it('revokes a key at once: the vendor API answers 401 for it', async () => {
    const { browser } = await signedIn();
    const key = await issueKey('demo-vendor', 'demo.teller');
    expect((await vendorCall(key.secret)).status).toBe(200);
    const answer = await browser.call('DELETE', `/portal/api/keys/${key.id}`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { status: string }).status).toBe('revoked');
    expect((await vendorCall(key.secret)).status).toBe(401);
  });

  it('limits rotations per portal user (portal.rotationsPerHour)', async () => {
    const { browser } = await signedIn();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const key = await issueKey('demo-vendor', 'demo.teller');
      statuses.push((await browser.call('POST', `/portal/api/keys/${key.id}/rotate`, { overlapHours: 0 })).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });

  it('puts each portal write on the audit log as the portal user', async () => {
    const { browser, user } = await signedIn();
    const key = await issueKey('demo-vendor', 'demo.teller');
    await browser.call('DELETE', `/portal/api/keys/${key.id}`);
    const audit = (await (await admin('GET', `/v1/audit?action=key.revoke`)).json()) as
      { items?: Array<{ actor: string; target: string }> } | Array<{ actor: string; target: string }>;
    const entries = Array.isArray(audit) ? audit : (audit.items ?? []);
    expect(entries).toContainEqual(expect.objectContaining({ actor: `portal:demo-vendor:${user.id}`, target: `keys/${key.id}` }));
  });
});

describe('usage, requests and API access', () => {
  it('counts a vendor call in usage and finds it by its X-Request-Id', async () => {
    const { browser } = await signedIn();
    const call = await vendorCall(SANDBOX_KEYS.demo);
    const requestId = call.headers.get('x-request-id') as string;
    const usage = (await (await browser.call('GET', '/portal/api/usage?range=24h')).json()) as {
      rows: Array<{ apiId: string; statusClass: string; requests: number }>;
      rateLimit: { points: number; keys: Array<{ keyId: string; remaining: number }> };
    };
    expect(usage.rows).toContainEqual(expect.objectContaining({ apiId: 'GETaccounts', statusClass: '2xx' }));
    expect(usage.rateLimit.points).toBeGreaterThan(0);
    const demoKey = usage.rateLimit.keys.find((key) => key.keyId === 'key-demo-sandbox');
    expect(demoKey?.remaining).toBeLessThan(usage.rateLimit.points);
    // The request log writes in batches off the request path.
    let found: Array<{ requestId: string; apiId: string; status: number }> = [];
    await within(3000, async () => {
      const answer = await browser.call('GET', `/portal/api/requests?requestId=${encodeURIComponent(requestId)}`);
      found = ((await answer.json()) as { items: typeof found }).items;
      return found.length === 1;
    });
    expect(found[0]).toEqual(expect.objectContaining({ requestId, apiId: 'GETaccounts', status: 200 }));
  });

  it('refuses a bad usage range naming range', async () => {
    const { browser } = await signedIn();
    const answer = await browser.call('GET', '/portal/api/usage?range=1y');
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('range');
  });

  it('lists licences with the API ids they grant, and filters the OpenAPI document to them', async () => {
    const { browser } = await signedIn('readonly-partner');
    const access = (await (await browser.call('GET', '/portal/api/access')).json()) as { licences: Array<{ api: string; apiIds: string[] }> };
    expect(access.licences).toHaveLength(1);
    expect(access.licences[0]?.apiIds.every((apiId) => apiId.startsWith('GET'))).toBe(true);
    const document = (await (await browser.call('GET', '/portal/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, { 'x-api-id'?: string }>>;
    };
    const apiIds = Object.values(document.paths).flatMap((item) =>
      Object.values(item)
        .map((op) => op['x-api-id'])
        .filter(Boolean),
    );
    expect(apiIds.length).toBeGreaterThan(0);
    expect(apiIds.every((apiId) => apiId?.startsWith('GET'))).toBe(true);
    expect(Object.keys(gateway.apiDocument.paths).length).toBeGreaterThan(Object.keys(document.paths).length);
  });
});

describe('the portal on the wire', () => {
  it('serves its page with a strict Content-Security-Policy and redirects /portal to /portal/', async () => {
    const page = await fetch(`${gateway.url}/portal/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const bare = await fetch(`${gateway.url}/portal`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/portal/');
  });

  it('answers an unknown portal path with a 404 problem, never the vendor API', async () => {
    const answer = await fetch(`${gateway.url}/portal/api/nothing-here`);
    expect(answer.status).toBe(401);
    const page = await fetch(`${gateway.url}/portal/nothing-here`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('sends no CORS header on the portal API, even to a cross-origin request', async () => {
    const { browser } = await signedIn();
    const answer = await browser.call('GET', '/portal/api/keys', undefined, { origin: 'https://evil.example' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
