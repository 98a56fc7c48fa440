/**
 * The keyless public files (`/openapi.json`, `/docs` and its assets) are limited per client
 * address: past `rateLimit.publicFiles.points` a client gets 429 rate_limited with Retry-After
 * as a problem body, while another address, the keyed API and preflights are untouched. The
 * address is the one `server.trustedProxies` give: X-Forwarded-For counts only from a trusted
 * proxy (here loopback plays the proxy), and an IPv6 client counts by its /64.
 */
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { addressBlock } from '../../src/openapi/public-file-limit';

const LIMIT = 3;

function fetchFrom(gateway: TestGateway, path: string, forwardedFor?: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { headers: forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {} });
}

async function statuses(gateway: TestGateway, path: string, count: number, forwardedFor?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetchFrom(gateway, path, forwardedFor);
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

describe('the public files behind a trusted proxy', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ server: { trustedProxies: ['127.0.0.1'] }, rateLimit: { publicFiles: { points: LIMIT, durationSeconds: 60 } } });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('answer 429 rate_limited with Retry-After, as a problem body, once one address has used its limit', async () => {
    expect(await statuses(gateway, '/openapi.json', LIMIT, '198.51.100.7')).toEqual([200, 200, 200]);
    const refused = await fetchFrom(gateway, '/docs/assets/swagger-ui-bundle.js', '198.51.100.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('leave another address, the keyed API and the CORS preflight alone', async () => {
    expect(await statuses(gateway, '/docs', LIMIT + 1, '198.51.100.8')).toEqual([200, 200, 200, 429]);
    expect(await statuses(gateway, '/openapi.json', 1, '198.51.100.9')).toEqual([200]);
    const keyed = await fetch(`${gateway.url}/api/Accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'X-Forwarded-For': '198.51.100.8' } });
    await keyed.arrayBuffer();
    expect(keyed.status).not.toBe(429);
    const preflight = await fetch(`${gateway.url}/openapi.json`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://docs.example', 'Access-Control-Request-Method': 'GET', 'X-Forwarded-For': '198.51.100.8' },
    });
    expect(preflight.status).toBe(204);
  });

  it('count an IPv6 client by its /64: a new address in the same block does not reset the count', async () => {
    expect(await statuses(gateway, '/openapi.json', LIMIT, '2001:db8:7:7::1')).toEqual([200, 200, 200]);
    expect(await statuses(gateway, '/openapi.json', 1, '2001:db8:7:7:ffff:1:2:3')).toEqual([429]);
    expect(await statuses(gateway, '/openapi.json', 1, '2001:db8:7:8::1')).toEqual([200]);
  });
});

describe('the public files without a trusted proxy', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ rateLimit: { publicFiles: { points: LIMIT, durationSeconds: 60 } } });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('count the socket address, whatever X-Forwarded-For a client makes up', async () => {
    const made = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await statuses(gateway, '/openapi.json', 1, `203.0.113.${n}`))[0]));
    expect(made.sort()).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('addressBlock', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:10.0.0.1', '0:0:0:0::/64'],
    ['2001:db8:1:2:3:4:5::', '2001:db8:1:2::/64'],
  ])('puts %s in %s', (address, block) => {
    expect(addressBlock(address)).toBe(block);
  });
});
