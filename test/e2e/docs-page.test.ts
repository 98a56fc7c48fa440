/**
 * The API reference page (`GET /docs` on the vendor port) in a real browser, Debian's Chromium
 * driven by playwright-core, against a real gateway: it renders the operations of the served
 * `/openapi.json`, logs no console error, fetches nothing off loopback, and is answered keyless
 * with a strict CSP, `X-Request-Id`, cross-origin GET and an ETag that revalidates to 304.
 */
import { startTestGateway, type TestGateway } from '../support/gateway';
import { chromiumForTests } from '../support/browser';

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
});

describe('GET /docs, the API reference page', () => {
  it('renders the operations of /openapi.json with no console error and no request off loopback', async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.getByText('getAccountsByAccountId', { exact: true }).waitFor({ timeout: 15_000 });
    const operations = await page.locator('.opblock').count();
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);
    expect(operations).toBe(documented);
    await expect(page.getByText('postApiTransactionSavingsDeposit', { exact: true }).count()).resolves.toBe(1);
    expect(watched.problems).toEqual([]);
  }, 60_000);

  it('is answered without a key, with a strict CSP, a request id and cross-origin GET', async () => {
    const res = await fetch(`${gateway.url}/docs`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // No inline script and nothing from another origin: every script and style is the gateway's.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it.each(['/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/init.js'])(
    'revalidates %s with its ETag: 304 without a body',
    async (path) => {
      const first = await fetch(`${gateway.url}${path}`);
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      // One validator per representation: the encoded ones (br, gzip) carry their encoding.
      expect(etag).toMatch(/^"[\w-]{27}(-br|-gzip)?"$/);
      const again = await fetch(`${gateway.url}${path}`, { headers: { 'If-None-Match': `"other", ${etag}` } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('x-request-id')).toBeTruthy();
      const changed = await fetch(`${gateway.url}${path}`, { headers: { 'If-None-Match': '"other"' } });
      await changed.arrayBuffer();
      expect(changed.status).toBe(200);
    },
  );

  it("gives the public files the request context every answer has: the client's sane X-Request-Id, no-cache, an access-log line's metrics as unmatched", async () => {
    const quoted = await fetch(`${gateway.url}/openapi.json`, { headers: { 'X-Request-Id': 'vendor-trace-0001' } });
    await quoted.arrayBuffer();
    expect([quoted.headers.get('x-request-id'), quoted.headers.get('cache-control')]).toEqual(['vendor-trace-0001', 'no-cache']);
    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_requests_total\{api="unmatched",status="200",vendor="anonymous"\} [1-9]/m);
  });

  it.each(['/openapi.json', '/docs', '/docs/assets/init.js'])(
    'answers a CORS preflight to %s without a key: any origin, GET and HEAD, If-None-Match',
    async (path) => {
      const res = await fetch(`${gateway.url}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://docs.vendor.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'if-none-match' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/If-None-Match/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    },
  );

  it('lets a cross-origin script read the ETag and X-Request-Id of the page', async () => {
    const res = await fetch(`${gateway.url}/docs`, { headers: { Origin: 'https://docs.vendor.example' } });
    await res.arrayBuffer();
    expect(res.headers.get('access-control-expose-headers')).toBe('ETag, X-Request-Id');
  });

  it('serves the library from the gateway itself, as JavaScript and CSS', async () => {
    const script = await fetch(`${gateway.url}/docs/assets/swagger-ui-bundle.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
    const style = await fetch(`${gateway.url}/docs/assets/swagger-ui.css`);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
    await style.arrayBuffer();
  });
});
