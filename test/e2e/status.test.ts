/** The status port: liveness, readiness (and its turn to 503 at shutdown), metrics. */
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

describe('status port', () => {
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

  it('says the event loop runs on /health/live', async () => {
    const res = await fetch(`${gateway.statusUrl}/health/live`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('reports the loaded access config and the mode on /health/ready', async () => {
    const res = await fetch(`${gateway.statusUrl}/health/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ready',
      shuttingDown: false,
      mode: { accessStore: 'memory', core: 'remote' },
      accessConfig: { loaded: true, version: 1, ageSeconds: expect.any(Number) },
    });
  });

  it('does not serve health or metrics on the vendor port', async () => {
    const res = await fetch(`${gateway.url}/metrics`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(res.status).toBe(404);
  });

  it('counts answered requests per API id, status and vendor on /metrics', async () => {
    // Read to the end: a request is counted when its answer has been written, which the last byte proves.
    await (await fetch(`${gateway.url}/accounts/5`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } })).text();
    await (await fetch(`${gateway.url}/accounts/5`)).text();
    const text = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(text).toMatch(/gateway_requests_total\{api="GETaccounts\/\{accountId\}",status="200",vendor="demo-vendor"\} 1/);
    expect(text).toMatch(/gateway_auth_failures_total\{reason="missing"\} 1/);
    expect(text).toMatch(/gateway_access_config_version 1/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('readiness during shutdown', () => {
  it('turns 503 as soon as stop begins, while an in-flight request still drains', async () => {
    let release: () => void = () => undefined;
    const core = await startEchoCore((_req, res) => {
      release = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const gateway = await startTestGateway({ core: { url: core.url } });
    const inFlight = fetch(`${gateway.url}/accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    while (core.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const stopping = gateway.stop();
    const ready = await fetch(`${gateway.statusUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', shuttingDown: true });
    release();
    expect((await inFlight).status).toBe(200);
    await stopping;
    await core.close();
  });
});
