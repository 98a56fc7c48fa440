/**
 * The vendor port's edge behaviour against a recording core: authentication (401), unknown
 * paths (404) and wrong methods (405), problem bodies, request ids, header hygiene and an
 * unreachable core (502). Real sockets throughout.
 */
import http from 'node:http';
import { freePort } from '../support/free-port';
import { call } from '../support/http-call';
import { rawExchange, rawRequest } from '../support/raw-http';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const demo = { 'X-Vendor-Token': SANDBOX_KEYS.demo };

describe('vendor port edge', () => {
  let core: EchoCore;
  let gateway: TestGateway;

  beforeAll(async () => {
    core = await startEchoCore();
    gateway = await startTestGateway({ core: { url: core.url } });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });
  beforeEach(() => {
    core.requests.length = 0;
  });

  it.each([
    ['two lines', ['Idempotency-Key: first-key', 'Idempotency-Key: second-key']],
    ['two lines in other cases', ['idempotency-key: first-key', 'IDEMPOTENCY-KEY: first-key']],
    ['one line holding a list', ['Idempotency-Key: first-key, second-key']],
  ])('refuses an Idempotency-Key sent as %s with 400 naming the header, without reaching the core', async (_label, keyLines) => {
    const body = '{"cuAccountID":50001,"amount":0.01}';
    const bytes = rawRequest(
      [
        'POST /api/transaction/savings/deposit HTTP/1.1',
        'Host: 127.0.0.1',
        `X-Vendor-Token: ${SANDBOX_KEYS.demo}`,
        'Content-Type: application/json',
        ...keyLines,
        `Content-Length: ${body.length}`,
        'Connection: close',
      ],
      body,
    );
    const { responses } = await rawExchange(gateway.vendorPort, bytes);
    expect(responses.map((response) => response.status)).toEqual([400]);
    expect(JSON.parse((responses[0] as { body: string }).body)).toMatchObject({ code: 'invalid_request', errors: [{ field: 'Idempotency-Key' }] });
    expect(core.requests).toHaveLength(0);
  });

  it.each([
    ['absent', {}],
    ['empty', { 'X-Vendor-Token': '' }],
    ['malformed', { 'X-Vendor-Token': 'letmein' }],
    ['unknown but well-formed', { 'X-Vendor-Token': 'cbk_00000000000000000000000000000000_2m6ZOm' }],
    ['sent under another header name', { 'X-Vendor-Key': SANDBOX_KEYS.demo }],
  ])('answers 401 unauthorized when the token is %s, without reaching the core', async (_label, headers) => {
    const res = await call(`${gateway.url}/accounts/`, { headers });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ status: 401, code: 'unauthorized', title: 'Unauthorized' });
    expect(body.requestId).toBe(res.headers['x-request-id']);
    expect(core.requests).toHaveLength(0);
  });

  it('answers 401 before 404, so an unauthenticated caller cannot probe paths', async () => {
    expect((await call(`${gateway.url}/no/such/path`)).status).toBe(401);
  });

  it('answers 404 not_found for a path the catalogue does not list', async () => {
    const res = await call(`${gateway.url}/no/such/path`, { headers: demo });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'not_found', status: 404 });
    expect(core.requests).toHaveLength(0);
  });

  it.each(['/customers/%2e%2e/accounts', '/accounts/../transactions', '/accounts/1%2F..%2Fbanks'])(
    'answers 404 for %s, so a path step cannot turn a licensed API id into another at the core',
    async (path) => {
      // Sent as raw bytes: a URL object would resolve the dot segments before sending.
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: gateway.vendorPort, path, headers: demo, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(404);
      expect(core.requests).toHaveLength(0);
    },
  );

  it('answers 405 method_not_allowed with Allow for a known path and a wrong method', async () => {
    const res = await call(`${gateway.url}/banks/`, { method: 'DELETE', headers: demo });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'method_not_allowed' });
  });

  it('answers 403 licence_required when the vendor holds no licence for the API id', async () => {
    const res = await call(`${gateway.url}/accounts/`, { method: 'POST', headers: { ...demo, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'licence_required' });
    expect(JSON.parse(res.body).detail).toContain('POSTaccounts');
    expect(core.requests).toHaveLength(0);
  });

  it('writes the problem as XML when the client asks for XML', async () => {
    const res = await call(`${gateway.url}/accounts/`, { headers: { Accept: 'application/xml' } });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+xml/);
    expect(res.body).toContain('<code>unauthorized</code>');
  });

  it('keeps a sane client X-Request-Id, passes it to the core and returns it', async () => {
    const res = await call(`${gateway.url}/accounts/7`, { headers: { ...demo, 'X-Request-Id': 'vendor-trace-123' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('vendor-trace-123');
    expect(core.requests[0]?.headers['x-request-id']).toBe('vendor-trace-123');
  });

  it('replaces an unsafe client X-Request-Id with a generated one', async () => {
    const res = await call(`${gateway.url}/accounts/7`, { headers: { ...demo, 'X-Request-Id': 'bad id with spaces <script>' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(core.requests[0]?.headers['x-request-id']).toBe(res.headers['x-request-id']);
  });

  it('forwards path and query unchanged to the core', async () => {
    const res = await call(`${gateway.url}/accounts?sort=balance&ascending=false&paged=true&page=2&pageSize=5`, { headers: demo });
    expect(res.status).toBe(200);
    expect(core.requests[0]?.url).toBe('/accounts?sort=balance&ascending=false&paged=true&page=2&pageSize=5');
  });

  it('never lets the vendor token, credentials, hop-by-hop or spoofed identity headers reach the core', async () => {
    await call(`${gateway.url}/accounts/7`, {
      headers: {
        ...demo,
        Connection: 'close, X-Secret-Hop',
        'X-Secret-Hop': 'hop',
        'Keep-Alive': 'timeout=5',
        TE: 'trailers',
        'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
        Authorization: 'Bearer vendor-side',
        Cookie: 'session=1',
        'X-Forwarded-For': '6.6.6.6',
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-Host': 'evil.example',
        Forwarded: 'for=6.6.6.6',
        'X-Vendor-Id': 'someone-else',
        'X-Vendor-User': 'admin',
      },
    });
    const seen = core.requests[0]?.headers ?? {};
    expect(Object.values(seen).join(' ')).not.toContain(SANDBOX_KEYS.demo);
    for (const name of ['x-vendor-token', 'x-secret-hop', 'keep-alive', 'te', 'proxy-authorization', 'authorization', 'cookie', 'forwarded']) {
      expect(seen[name]).toBeUndefined();
    }
    expect(seen.connection).not.toBe('close');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-host']).toBe(`127.0.0.1:${gateway.vendorPort}`);
    expect(seen['x-vendor-id']).toBe('demo-vendor');
    expect(seen['x-vendor-user']).toBe('demo.teller');
  });

  it('removes the receipt token header too when it is configured apart', async () => {
    const other = await startTestGateway({ core: { url: core.url }, authentication: { receiptTokenHeader: 'X-Receipt-Token' } });
    try {
      await call(`${other.url}/accounts/1`, { headers: { ...demo, 'X-Receipt-Token': 'secret-value' } });
      expect(core.requests[0]?.headers['x-receipt-token']).toBeUndefined();
      const receipt = await call(`${other.url}/api/transaction/savings/deposit`, {
        method: 'POST',
        headers: { ...demo, 'content-type': 'application/json' },
        body: '{}',
      });
      // The receipt operations read their own header too: the general one alone does not do.
      expect(receipt.status).toBe(401);
      expect(JSON.parse(receipt.body).detail).toContain('X-Receipt-Token');
      // Nor the receipt header alone: every request carries X-Vendor-Token.
      const receiptOnly = await call(`${other.url}/api/transaction/savings/deposit`, {
        method: 'POST',
        headers: { 'X-Receipt-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
        body: '{"cuAccountID":50001,"amount":1.00}',
      });
      expect(receiptOnly.status).toBe(401);
      expect(JSON.parse(receiptOnly.body).detail).toContain('X-Vendor-Token');
      // Keys of two vendors: refused; one key in both headers: taken.
      const mixed = await call(`${other.url}/api/transaction/savings/deposit`, {
        method: 'POST',
        headers: { ...demo, 'X-Receipt-Token': SANDBOX_KEYS.readonlyPartner, 'content-type': 'application/json' },
        body: '{"cuAccountID":50001,"amount":1.00}',
      });
      expect([mixed.status, JSON.parse(mixed.body).detail]).toEqual([401, 'The keys in X-Vendor-Token and X-Receipt-Token must belong to the same vendor.']);
      const both = await call(`${other.url}/api/transaction/savings/deposit`, {
        method: 'POST',
        headers: { ...demo, 'X-Receipt-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json', 'Idempotency-Key': 'both-headers-1' },
        body: '{"cuAccountID":50001,"amount":1.00}',
      });
      expect(both.status).not.toBe(401);
    } finally {
      await other.stop();
    }
  });
});

describe("the sandbox core's refusals, in the gateway's one error shape", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each([
    ['a customer the core does not have', '/customers/99999', 404, 'not_found'],
    ['a page size over the core maximum', '/accounts?paged=true&pageSize=101', 400, 'invalid_request'],
  ])('answers %s with a problem carrying code and requestId', async (_label, path, status, code) => {
    const res = await call(`${gateway.url}${path}`, { headers: demo });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ code, status });
    expect(body.requestId).toBe(res.headers['x-request-id']);
    expect(body.type).not.toBe('about:blank');
  });

  it('weighs q-values when choosing the problem format, and says it varies by Accept', async () => {
    const res = await call(`${gateway.url}/customers/99999`, { headers: { ...demo, Accept: 'application/json;q=0.1, application/xml' } });
    expect(res.headers['content-type']).toMatch(/^application\/problem\+xml/);
    expect(res.headers.vary).toMatch(/Accept/);
  });

  it('writes well-formed problem XML even when the request held characters XML forbids', async () => {
    const res = await call(`${gateway.url}/accounts/1?sort=a%01b`, { headers: { ...demo, Accept: 'application/xml' } });
    expect(res.status).toBe(400);
    expect([...res.body].some((c) => c.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(c))).toBe(false);
    expect(res.body).toMatch(/^<\?xml[^>]*\?><problem xmlns="urn:ietf:rfc:7807">/);
  });
});

describe('HEAD on every GET route', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it("answers HEAD like the GET, with the GET's headers and no body, under the GET's API id and licence", async () => {
    const get = await call(`${gateway.url}/accounts/50001`, { headers: demo });
    const head = await call(`${gateway.url}/accounts/50001`, { method: 'HEAD', headers: demo });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect((await call(`${gateway.url}/accounts/50001`, { method: 'HEAD' })).status).toBe(401);
  });
});

describe('unreachable core', () => {
  it('answers 502 bad_gateway without naming the core address', async () => {
    const deadPort = await freePort();
    const gateway = await startTestGateway({ core: { url: `http://127.0.0.1:${deadPort}` } });
    try {
      const res = await call(`${gateway.url}/accounts/`, { headers: demo });
      expect(res.status).toBe(502);
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ code: 'bad_gateway', status: 502 });
      expect(res.body).not.toContain(String(deadPort));
      expect(res.body).not.toContain('127.0.0.1');
      expect(res.body).not.toMatch(/ECONNREFUSED|at .*\.ts/);
    } finally {
      await gateway.stop();
    }
  });
});
