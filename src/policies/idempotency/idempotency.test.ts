/**
 * The idempotency step in a real Express app, in front of a terminal step that posts to a
 * counting core over loopback, with the memory store and with a real Redis: one posting per
 * key whatever the concurrency, byte-identical replays, 422 on reuse, 409 while in flight and
 * once the outcome is unknown, and 503 rather than an unguarded posting when Redis is gone.
 */
import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import Redis from 'ioredis';
import { ROUTES } from '../../catalogue/api-catalogue';
import { GatewayError } from '../../errors/error-catalogue';
import { createLogger } from '../../logging/logger';
import { context, newContext, setContext } from '../../request/context';
import { createErrorHandler } from '../../request/error-handler';
import { startEchoCore, type EchoCore } from '../../../test/support/echo-core';
import { startRedisServer, type RedisServerHandle } from '../../../test/support/redis-server';
import { within } from '../../../test/support/within';
import { createIdempotencyStore, idempotency } from './idempotency';
import type { IdempotencyConfig } from './idempotency.schema';
import { MemoryIdempotencyStore } from './memory-idempotency-store';
import { RedisIdempotencyStore } from './redis-idempotency-store';
import type { IdempotencyStore, IdempotencyTimings } from './idempotency-store';
import { TestRedisClients, whenReady } from '../../../test/support/redis-clients';

const DEPOSIT = 'POSTapi/transaction/savings/deposit';
const PAYMENT = 'POSTapi/transaction/savings/payment';
const CORE_TIMEOUT_MS = 1000;
const logger = createLogger('silent');

interface Harness {
  readonly url: string;
  readonly core: EchoCore;
  readonly replays: string[];
  send(body: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: Buffer; code: string | undefined }>;
  close(): Promise<void>;
}

/** The core: counts postings, answers 201 after the delay the request asks for, with a body unique to the posting. */
function startCountingCore(): Promise<EchoCore> {
  let postings = 0;
  return startEchoCore((req, res) => {
    const receiptNo = ++postings;
    setTimeout(
      () => {
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
        res.end(`{"receiptNo":${receiptNo},"postedAt":"${process.hrtime.bigint()}","amount":${/"amount":([\d.]+)/.exec(req.body)?.[1] ?? 'null'}}`);
      },
      Number(req.headers['x-test-delay'] ?? 0),
    );
  });
}

/**
 * The terminal step as exchange settles the after-core duties: never sent when the core is not
 * reached, answered before sending the answer, unknown when the core may have posted; or no
 * settle at all, leaving it to the end of the response.
 */
function terminal(core: EchoCore): RequestHandler {
  return async function postToCore(req, res, next) {
    const { afterCore } = context(res);
    res.setHeader('X-Test-Guarded', String(afterCore.steps.includes('idempotency')));
    const mode = req.get('x-test-core') ?? 'post';
    if (mode === 'refuse') {
      await afterCore.settle({ kind: 'neverSent' });
      next(new GatewayError('core_unavailable', 'The breaker is open.'));
      return;
    }
    if (mode === 'fail-before-core') {
      next(new GatewayError('invalid_request', 'A step before the core refused.'));
      return;
    }
    afterCore.coreCallStarted();
    if (mode === 'forget') {
      res.status(202).end();
      return;
    }
    try {
      const answer = await fetch(`${core.url}/api/transaction/savings/deposit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test-delay': req.get('x-test-delay') ?? '0' },
        body: context(res).body?.coreJson,
        signal: AbortSignal.timeout(CORE_TIMEOUT_MS),
      });
      const response = { status: answer.status, contentType: answer.headers.get('content-type') ?? '', body: Buffer.from(await answer.arrayBuffer()) };
      await afterCore.settle({ kind: 'answered', response });
      res.status(response.status).setHeader('Content-Type', response.contentType);
      res.end(response.body);
    } catch (error) {
      await afterCore.settle({ kind: 'unknown' });
      next(new GatewayError('core_timeout', 'The core did not answer in time.', { cause: error }));
    }
  };
}

function configFor(timings: IdempotencyTimings, requireKey: IdempotencyConfig['requireKey'] = 'never'): IdempotencyConfig {
  return { header: 'Idempotency-Key', retentionSeconds: timings.retentionMs / 1000, inFlightTimeoutMs: timings.inFlightMs, requireKey };
}

async function startHarness(store: IdempotencyStore, timings: IdempotencyTimings, requireKey: IdempotencyConfig['requireKey'] = 'never'): Promise<Harness> {
  const core = await startCountingCore();
  const replays: string[] = [];
  const app = express();
  app.use(express.text({ type: () => true }));
  // What the earlier steps leave: the route, the authenticated vendor and the parsed body.
  app.use(function parsedReceipt(req, res, next) {
    const apiId = req.get('x-test-api') ?? DEPOSIT;
    const coreJson = String(req.body);
    setContext(res, {
      ...newContext('test'),
      route: ROUTES.find((r) => r.apiId === apiId) ?? null,
      params: {},
      principal: { vendorId: req.get('x-test-vendor') ?? 'acme', vendorName: 'Acme', keyId: 'key-1', userId: 'u1', certificateThumbprints: [] },
      body: {
        value: JSON.parse(coreJson) as Record<string, unknown>,
        coreJson,
        requestFormat: 'json',
        responseFormat: 'json',
        responseMediaType: 'application/json',
        responseXmlNamespace: '',
      },
    });
    next();
  });
  app.use(
    idempotency(configFor(timings, requireKey), {
      store,
      logger,
      onReplay: (apiId) => replays.push(apiId),
      fingerprintKey: 'test-fingerprint-key',
      sandboxMode: false,
    }),
  );
  app.use(terminal(core));
  app.use(createErrorHandler(logger));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    core,
    replays,
    async send(body, headers = {}) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      const bytes = Buffer.from(await response.arrayBuffer());
      const code = response.headers.get('content-type')?.startsWith('application/problem+json')
        ? (JSON.parse(bytes.toString()) as { code: string }).code
        : undefined;
      return { status: response.status, headers: response.headers, body: bytes, code };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await core.close();
    },
  };
}

const redisClients = new TestRedisClients();
const redisClient = (url: string): Redis => redisClients.create(url);
afterAll(() => redisClients.disconnectAll());

let prefixCounter = 0;
const TIMINGS: IdempotencyTimings = { inFlightMs: 5000, retentionMs: 3_600_000 };
const receipt = (amount: string, extra = ''): string => `{"cuAccountID":50001,"amount":${amount}${extra}}`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const stores: Array<[string, (timings: IdempotencyTimings) => Promise<IdempotencyStore>]> = [
  ['memory', async (timings) => new MemoryIdempotencyStore(timings)],
  [
    'redis',
    async (timings) => {
      const client = redisClient(process.env.TEST_REDIS_URL as string);
      await whenReady(client);
      return new RedisIdempotencyStore(client, { keyPrefix: `test:${process.pid}:${++prefixCounter}:`, timings });
    },
  ],
];

describe.each(stores)('idempotency with the %s store', (_name, createStore) => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness(await createStore(TIMINGS), TIMINGS);
  });
  afterEach(() => harness.close());

  it('posts 50 concurrent identical requests with one key exactly once: one 201, the rest 409 in progress or replays', async () => {
    const headers = { 'Idempotency-Key': 'concurrent-1', 'x-test-delay': '300' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => harness.send(receipt('10.00'), headers)));
    expect(harness.core.requests).toHaveLength(1);
    const originals = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(originals).toHaveLength(1);
    const others = responses.filter((r) => !originals.includes(r));
    for (const r of others) {
      if (r.status === 409) expect(r.code).toBe('idempotency_in_progress');
      else expect([r.status, r.headers.get('idempotent-replayed'), r.body.equals(originals[0]!.body)]).toEqual([201, 'true', true]);
    }
    const late = await harness.send(receipt('10.00'), headers);
    expect([late.status, late.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(harness.core.requests).toHaveLength(1);
  });

  it('replays the stored response byte for byte, with its content type and Idempotent-Replayed, and counts the replay', async () => {
    const first = await harness.send(receipt('0.10'), { 'Idempotency-Key': 'replay-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await harness.send(receipt('0.10'), { 'Idempotency-Key': 'replay-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.body.equals(first.body)).toBe(true);
    expect(harness.core.requests).toHaveLength(1);
    expect(harness.replays).toEqual([DEPOSIT]);
  });

  it('refuses the same key with a different body with 422 idempotency_key_reused, and posts nothing', async () => {
    await harness.send(receipt('10.00'), { 'Idempotency-Key': 'reused-1' });
    const other = await harness.send(receipt('10.01'), { 'Idempotency-Key': 'reused-1' });
    expect([other.status, other.code]).toEqual([422, 'idempotency_key_reused']);
    expect(harness.core.requests).toHaveLength(1);
  });

  it("uses the body's externalRefNo as the key when the header is absent", async () => {
    const body = receipt('25.00', ',"externalRefNo":"PAYPOINT-1"');
    await harness.send(body);
    const again = await harness.send(body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await harness.send(receipt('26.00', ',"externalRefNo":"PAYPOINT-1"'))).code).toBe('idempotency_key_reused');
    expect(harness.core.requests).toHaveLength(1);
  });

  it('lets a request with no key through unguarded, so an identical one posts again', async () => {
    const first = await harness.send(receipt('5.00'));
    const second = await harness.send(receipt('5.00'));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.headers.get('x-test-guarded')).toBe('false');
    expect(harness.core.requests).toHaveLength(2);
  });

  it('scopes a key by vendor and by API id', async () => {
    const key = { 'Idempotency-Key': 'scoped-1' };
    await harness.send(receipt('1.00'), key);
    expect((await harness.send(receipt('1.00'), { ...key, 'x-test-vendor': 'globex' })).headers.get('idempotent-replayed')).toBeNull();
    expect((await harness.send(receipt('1.00'), { ...key, 'x-test-api': PAYMENT })).headers.get('idempotent-replayed')).toBeNull();
    expect(harness.core.requests).toHaveLength(3);
    expect((await harness.send(receipt('1.00'), key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 outcome_unknown after a core timeout and never sends that key again', async () => {
    const key = { 'Idempotency-Key': 'timeout-1' };
    const first = await harness.send(receipt('7.00'), { ...key, 'x-test-delay': String(CORE_TIMEOUT_MS + 500) });
    expect([first.status, first.code]).toEqual([504, 'core_timeout']);
    expect(harness.core.requests).toHaveLength(1);
    for (let i = 0; i < 3; i++) expect((await harness.send(receipt('7.00'), key)).code).toBe('outcome_unknown');
    expect(harness.core.requests).toHaveLength(1);
  });

  it('frees the key when the core was never reached, so a retry posts', async () => {
    const key = { 'Idempotency-Key': 'refused-1' };
    expect((await harness.send(receipt('8.00'), { ...key, 'x-test-core': 'refuse' })).code).toBe('core_unavailable');
    expect(harness.core.requests).toHaveLength(0);
    expect((await harness.send(receipt('8.00'), key)).status).toBe(201);
    expect(harness.core.requests).toHaveLength(1);
  });

  it('frees the key when the request ends in an error before its core call, so a retry posts', async () => {
    const key = { 'Idempotency-Key': 'failed-early-1' };
    expect((await harness.send(receipt('8.50'), { ...key, 'x-test-core': 'fail-before-core' })).status).toBe(400);
    expect(harness.core.requests).toHaveLength(0);
    // Freed as never sent when the answer closed, a moment after the vendor read it.
    await within(2000, async () => (await harness.send(receipt('8.50'), key)).status === 201);
    expect(harness.core.requests).toHaveLength(1);
  });

  it('keeps a claim whose core call started but never settled in progress, never free to post again', async () => {
    const key = { 'Idempotency-Key': 'forgotten-1' };
    expect((await harness.send(receipt('9.00'), { ...key, 'x-test-core': 'forget' })).status).toBe(202);
    const retry = await harness.send(receipt('9.00'), key);
    expect([retry.status, retry.code, retry.headers.get('retry-after')]).toEqual([409, 'idempotency_in_progress', '1']);
    expect(harness.core.requests).toHaveLength(0);
  });

  it('answers 409 in progress while the first call is still with the core after its vendor went away, then replays its answer', async () => {
    const key = { 'Idempotency-Key': 'gone-1' };
    const gone = new AbortController();
    const first = fetch(harness.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-delay': '800', ...key },
      body: receipt('11.00'),
      signal: gone.signal,
    }).catch(() => 'aborted');
    await within(2000, () => harness.core.requests.length === 1);
    gone.abort();
    expect(await first).toBe('aborted');
    // The core still holds the first request: the retry must neither post again nor hear "unknown".
    const early = await harness.send(receipt('11.00'), key);
    expect([early.status, early.code]).toEqual([409, 'idempotency_in_progress']);
    await within(3000, async () => (await harness.send(receipt('11.00'), key)).headers.get('idempotent-replayed') === 'true');
    expect(harness.core.requests).toHaveLength(1);
  });

  it('refuses a malformed key header with 400 naming the header', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9', 'first, second', '"a,b"']) {
      const response = await harness.send(receipt('1.00'), { 'Idempotency-Key': bad });
      expect([response.status, response.code]).toEqual([400, 'invalid_request']);
    }
    expect((await harness.send(receipt('1.00'), { 'Idempotency-Key': '"quoted-key"' })).status).toBe(201);
    expect(harness.core.requests).toHaveLength(1);
  });
});

describe.each(stores)('a claim left by a crashed instance, %s store', (_name, createStore) => {
  it('answers 409 in progress until its in-flight time ends, then outcome_unknown, never posting', async () => {
    const timings = { inFlightMs: 1200, retentionMs: 3_600_000 };
    const store = await createStore(timings);
    const harness = await startHarness(store, timings);
    try {
      const body = receipt('11.00');
      const key = { 'Idempotency-Key': 'crash-1' };
      // What an instance that died mid-request leaves behind: its claim of this key, never settled.
      expect(
        await store.claim(sha256(`acme\n${DEPOSIT}\ncrash-1`), createHmac('sha256', 'test-fingerprint-key').update(body).digest(), 'dead-instance'),
      ).toEqual({ kind: 'claimed' });
      expect((await harness.send(body, key)).code).toBe('idempotency_in_progress');
      await within(3000, async () => (await harness.send(body, key)).code === 'outcome_unknown');
      expect((await harness.send(body, key)).code).toBe('outcome_unknown');
      expect((await harness.send(receipt('11.01'), key)).code).toBe('idempotency_key_reused');
      expect(harness.core.requests).toHaveLength(0);
    } finally {
      await harness.close();
    }
  });
});

describe('idempotency with Redis gone', () => {
  let server: RedisServerHandle;
  let client: Redis;
  let harness: Harness;
  beforeAll(async () => {
    server = await startRedisServer();
    client = redisClient(server.url);
    await whenReady(client);
    harness = await startHarness(new RedisIdempotencyStore(client, { keyPrefix: 'test:down:', timings: TIMINGS }), TIMINGS);
  });
  afterAll(async () => {
    await harness.close();
    client.disconnect();
    await server.stop();
  });

  it('refuses a keyed receipt with 503 store_unavailable instead of posting it unguarded, and guards again once Redis is back', async () => {
    await server.stop(true);
    const refused = await harness.send(receipt('12.00'), { 'Idempotency-Key': 'down-1' });
    expect([refused.status, refused.code, refused.headers.get('retry-after')]).toEqual([503, 'store_unavailable', '1']);
    const unkeyed = await harness.send(receipt('12.00'));
    expect(unkeyed.status).toBe(201);
    expect(harness.core.requests).toHaveLength(1);

    await server.start();
    await within(5000, () => client.status === 'ready');
    expect((await harness.send(receipt('12.00'), { 'Idempotency-Key': 'down-1' })).status).toBe(201);
    expect((await harness.send(receipt('12.00'), { 'Idempotency-Key': 'down-1' })).headers.get('idempotent-replayed')).toBe('true');
    expect(harness.core.requests).toHaveLength(2);
  });

  it('still delivers the core answer when Redis fails before it can be stored', async () => {
    const pending = harness.send(receipt('13.00'), { 'Idempotency-Key': 'down-2', 'x-test-delay': '400' });
    await within(2000, () => harness.core.requests.length === 3);
    await server.stop(true);
    const answered = await pending;
    expect(answered.status).toBe(201);
    await server.start();
    await within(5000, () => client.status === 'ready');
  });
});

describe('idempotency.requireKey', () => {
  it.each([
    ['always', true],
    ['never', false],
  ] as const)('with %s, refuses money movement without a key: %s', async (requireKey, refused) => {
    const harness = await startHarness(new MemoryIdempotencyStore(TIMINGS), TIMINGS, requireKey);
    try {
      const answer = await harness.send(receipt('3.00'));
      if (refused) {
        expect([answer.status, answer.code]).toEqual([400, 'invalid_request']);
        expect(JSON.parse(answer.body.toString()).errors).toEqual([{ field: 'Idempotency-Key', message: 'required (or an externalRefNo in the body)' }]);
        expect(harness.core.requests).toHaveLength(0);
      } else {
        expect(answer.status).toBe(201);
      }
      // A body's externalRefNo is a key as good as the header.
      expect((await harness.send(receipt('3.00', ',"externalRefNo":"REF-REQ-1"'))).status).toBe(201);
    } finally {
      await harness.close();
    }
  });
});

describe('idempotency step set-up', () => {
  it('builds the Redis store when there is a Redis client and the memory store otherwise', () => {
    const client = redisClient(process.env.TEST_REDIS_URL as string);
    const config = { header: 'Idempotency-Key', retentionSeconds: 86_400, inFlightTimeoutMs: 30_000, requireKey: 'never' as const };
    expect(createIdempotencyStore(config, client, 'cbg:')).toBeInstanceOf(RedisIdempotencyStore);
    expect(createIdempotencyStore(config, null, 'cbg:')).toBeInstanceOf(MemoryIdempotencyStore);
  });
});
