/**
 * The buffered core call against a controllable fake core on real sockets: answers (5xx
 * included) come back whole, failures come back as CoreCallError saying whether the request
 * may have reached the core, nothing is ever sent twice, and an open breaker keeps the call
 * off the core.
 */
import http from 'node:http';
import { createLogger } from '../logging/logger';
import { createMetrics } from '../metrics/metrics';
import { freePort } from '../../test/support/free-port';
import { startFakeCore, type FakeCore } from '../../test/support/fake-core';
import { CoreBreakers } from './breakers';
import { breakersSchema } from './breakers.schema';
import { CoreCallError } from './core-call-error';
import { createCoreExchange, type CoreExchange } from './exchange';

const TIMEOUT_MS = 400;

function setup(coreUrl: string, receipts: Record<string, number> = {}): { exchange: CoreExchange; breakers: CoreBreakers; agent: http.Agent } {
  const agent = new http.Agent({ keepAlive: true });
  const breakers = new CoreBreakers(breakersSchema.parse({ receipts: { timeoutMs: TIMEOUT_MS, ...receipts } }), {
    defaultTimeoutMs: 10_000,
    metrics: createMetrics(undefined, { defaultMetrics: false }),
    logger: createLogger('silent'),
  });
  return { exchange: createCoreExchange({ coreUrl, agent, breakers }), breakers, agent };
}

async function failure(promise: Promise<unknown>): Promise<CoreCallError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CoreCallError);
  return err as CoreCallError;
}

const deposit = { method: 'POST', path: '/api/transaction/savings/deposit', headers: { 'content-type': 'application/json' }, body: '{"amount":0.10}' } as const;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('coreExchange', () => {
  let core: FakeCore;
  let client: ReturnType<typeof setup>;

  beforeAll(async () => {
    core = await startFakeCore();
    client = setup(core.url);
  });
  afterAll(async () => {
    client.breakers.shutdown();
    client.agent.destroy();
    await core.close();
  });
  beforeEach(() => {
    core.behaviour = { kind: 'answer', status: 200 };
    core.resetCounts();
  });

  it('returns the whole answer and sends the body as given, with its length', async () => {
    core.behaviour = { kind: 'answer', status: 201, body: '{"receiptNumber":7}' };
    const response = await client.exchange('receipts', deposit);
    expect(response.status).toBe(201);
    expect(response.body.toString()).toBe('{"receiptNumber":7}');
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.durationSeconds).toBeGreaterThan(0);
    expect(core.requests).toEqual([expect.objectContaining({ method: 'POST', url: '/api/transaction/savings/deposit', body: '{"amount":0.10}' })]);
    expect(core.requests[0]?.headers['content-length']).toBe('15');
  });

  it("returns a 5xx answer like any other: the caller decides what the core's failure means", async () => {
    core.behaviour = { kind: 'answer', status: 500, body: '{"message":"posting failed"}' };
    const response = await client.exchange('receipts', deposit);
    expect(response.status).toBe(500);
    expect(response.body.toString()).toBe('{"message":"posting failed"}');
  });

  it('times out at the group timeout with core_timeout, requestSent true, and aborts without sending again', async () => {
    core.behaviour = { kind: 'hang' };
    const started = performance.now();
    const err = await failure(client.exchange('receipts', deposit));
    const elapsed = performance.now() - started;
    expect(err).toMatchObject({ code: 'core_timeout', status: 504, requestSent: true });
    expect(elapsed).toBeGreaterThan(TIMEOUT_MS * 0.9);
    expect(elapsed).toBeLessThan(TIMEOUT_MS * 1.1);
    await sleep(100);
    expect(core.abortedByClient).toBe(1);
    expect(core.requests).toHaveLength(1);
  });

  it('reports a connection reset after the request was read as bad_gateway, requestSent true, sent once', async () => {
    core.behaviour = { kind: 'reset' };
    const err = await failure(client.exchange('receipts', deposit));
    expect(err).toMatchObject({ code: 'bad_gateway', status: 502, requestSent: true });
    await sleep(200);
    expect(core.requests).toHaveLength(1);
  });

  it('does not retry a GET either: the buffered call is one request', async () => {
    core.behaviour = { kind: 'reset' };
    await failure(client.exchange('bankaccounts', { method: 'GET', path: '/bankaccounts/1' }));
    await sleep(200);
    expect(core.requests).toHaveLength(1);
  });
});

describe('coreExchange without a reachable core', () => {
  it('reports a refused connection as bad_gateway with requestSent false', async () => {
    const client = setup(`http://127.0.0.1:${await freePort()}`);
    try {
      const err = await failure(client.exchange('receipts', deposit));
      expect(err).toMatchObject({ code: 'bad_gateway', requestSent: false });
      expect(err.detail).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      client.breakers.shutdown();
      client.agent.destroy();
    }
  });

  it('answers core_unavailable with Retry-After and requestSent false once the breaker is open, without touching the core', async () => {
    const core = await startFakeCore({ kind: 'answer', status: 503 });
    const client = setup(core.url, { volumeThreshold: 3, resetTimeoutMs: 5000 });
    try {
      for (let i = 0; i < 3; i += 1) expect((await client.exchange('receipts', deposit)).status).toBe(503);
      expect(client.breakers.states().receipts).toBe('open');
      core.resetCounts();
      const err = await failure(client.exchange('receipts', deposit));
      expect(err).toMatchObject({ code: 'core_unavailable', status: 503, requestSent: false });
      expect(Number(err.headers?.['Retry-After'])).toBeGreaterThanOrEqual(4);
      expect(core.connections).toBe(0);
      expect(core.requests).toHaveLength(0);
    } finally {
      client.breakers.shutdown();
      client.agent.destroy();
      await core.close();
    }
  });
});
