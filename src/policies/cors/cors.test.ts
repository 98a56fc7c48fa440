/**
 * The CORS policy through a real gateway: off by default (a preflight is a keyless call, 401, and
 * no answer names an origin); with allowed origins, a preflight from one is answered before any key is asked for,
 * an actual call from one exposes the headers a vendor app reads, and any other origin gets no
 * CORS header.
 */
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../../../test/support/gateway';

const APP = 'https://teller.vendor.example';

function preflight(gateway: TestGateway, origin: string, path = '/api/transaction/savings/deposit'): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-vendor-token, content-type, idempotency-key' },
  });
}

describe('CORS, off by default', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('treats a preflight as any keyless call (401) and names no origin on a call', async () => {
    const res = await preflight(gateway, APP);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const call = await fetch(`${gateway.url}/accounts/50001`, { headers: { Origin: APP, 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS with allowed origins', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ cors: { allowedOrigins: [APP], maxAgeSeconds: 300 } });
  });
  afterAll(() => gateway.stop());

  it("answers an allowed origin's preflight 204 without a key: methods, the key and money headers, max age", async () => {
    const res = await preflight(gateway, APP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['x-vendor-token', 'content-type', 'idempotency-key']),
    );
    expect(res.headers.get('access-control-max-age')).toBe('300');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/origin/i);
  });

  it("exposes the headers a vendor app reads on an allowed origin's call, and still asks for the key", async () => {
    const call = await fetch(`${gateway.url}/accounts/50001`, { headers: { Origin: APP, 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(APP);
    expect(call.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id.*RateLimit/);
    const keyless = await fetch(`${gateway.url}/accounts/50001`, { headers: { Origin: APP } });
    expect(keyless.status).toBe(401);
    expect(keyless.headers.get('access-control-allow-origin')).toBe(APP);
  });

  it('gives any other origin no CORS header, so its browser refuses the answer', async () => {
    const res = await preflight(gateway, 'https://evil.example');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const call = await fetch(`${gateway.url}/accounts/50001`, { headers: { Origin: 'https://evil.example', 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses an allowed origin written with a path at start-up', async () => {
    await expect(startTestGateway({ cors: { allowedOrigins: ['https://app.example/path'] } })).rejects.toThrow(/allowedOrigins/);
  });
});
