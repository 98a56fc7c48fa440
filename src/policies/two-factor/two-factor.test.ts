/**
 * The two-factor steps in a real Express app on loopback, between the real request-context,
 * route-match, authenticate, authorize, body and idempotency steps, in front of the sandbox
 * core. A small terminal step stands in for the gateway's core call: it sends ctx.body.coreJson
 * to the sandbox, records what it sent and settles the idempotency claim.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import express, { type RequestHandler } from 'express';
import Redis from 'ioredis';
import { AccessCache } from '../../access/cache';
import type { AccessDocument } from '../../access/model';
import { MemoryAccessStore } from '../../access/access-store';
import { ROUTES } from '../../catalogue/api-catalogue';
import { RouteMatcher } from '../../catalogue/matcher';
import { bankAccountContracts } from '../../contracts/bank-accounts';
import { createLogger, type Logger } from '../../logging/logger';
import { context } from '../../request/context';
import { createErrorHandler } from '../../request/error-handler';
import { createSandboxApp } from '../../sandbox/app';
import { createSandboxData } from '../../sandbox/data';
import { createSmsProvider } from '../../sms/create-provider';
import { OutboxSmsProvider } from '../../sms/outbox';
import type { SmsProvider } from '../../sms/provider';
import { smsSchema } from '../../sms/sms.schema';
import { testKey } from '../../../test/support/access-fixture';
import { startRedisServer } from '../../../test/support/redis-server';
import { authenticate } from '../authenticate/authenticate';
import { authenticateSchema } from '../authenticate/authenticate.schema';
import { authorize } from '../authorize/authorize';
import { body } from '../body/body';
import { bodyConfigSchema } from '../body/body.schema';
import { idempotency } from '../idempotency/idempotency';
import { MemoryIdempotencyStore } from '../idempotency/memory-idempotency-store';
import { requestContext } from '../request-context/request-context';
import { requestContextSchema } from '../request-context/request-context.schema';
import { routeMatch } from '../route-match/route-match';
import { twoFactor } from './two-factor';
import { twoFactorSchema, type TwoFactorConfig } from './two-factor.schema';
import { listenOnLoopback } from '../../../test/support/listen';
import { TestRedisClients } from '../../../test/support/redis-clients';

const keyA = testKey('key-a', 'user.a');
const keyB = testKey('key-b', 'user.b');
const BANK_ACCOUNT_APIS = ['POSTbankaccounts/*', 'GET*'];
const ACCESS: AccessDocument = {
  vendors: [
    { id: 'vendor-a', name: 'Vendor A', status: 'active', licences: BANK_ACCOUNT_APIS.map((api, i) => ({ id: `la${i}`, api })), keys: [keyA.record] },
    { id: 'vendor-b', name: 'Vendor B', status: 'active', licences: BANK_ACCOUNT_APIS.map((api, i) => ({ id: `lb${i}`, api })), keys: [keyB.record] },
  ],
  users: [
    { id: 'user.a', permissions: BANK_ACCOUNT_APIS.map((api, i) => ({ id: `pa${i}`, api })) },
    { id: 'user.b', permissions: BANK_ACCOUNT_APIS.map((api, i) => ({ id: `pb${i}`, api })) },
  ],
} as AccessDocument;

const X = 10001;
const Y = 10004;
const MOBILE = '07400 123456';
const E164 = '+447400123456';
const T0 = Date.UTC(2025, 6, 1, 9, 0, 0);
/** Generous send limits, for tests about codes rather than sends. */
const UNLIMITED = [{ points: 1000, durationSeconds: 60 }];

interface Harness {
  readonly url: string;
  readonly outbox: OutboxSmsProvider | null;
  /** coreJson of each request the stand-in core call sent to the sandbox. */
  readonly coreBodies: string[];
  readonly logLines: string[];
  readonly clock: { now: number };
  close(): Promise<void>;
}

interface HarnessOptions {
  readonly config?: Partial<TwoFactorConfig>;
  readonly redis?: Redis | null;
  readonly sms?: SmsProvider;
}

/** Stand-in for the gateway's buffered core call: coreJson to the core, its answer to the vendor. */
function coreCall(coreUrl: string, coreBodies: string[]): RequestHandler {
  return async function standInCoreCall(req, res) {
    const ctx = context(res);
    const coreJson = ctx.body?.coreJson;
    if (coreJson !== undefined) coreBodies.push(coreJson);
    const answer = await fetch(`${coreUrl}${req.originalUrl}`, {
      method: req.method,
      headers: coreJson === undefined ? {} : { 'content-type': 'application/json' },
      body: coreJson,
    });
    const text = Buffer.from(await answer.arrayBuffer());
    const contentType = answer.headers.get('content-type') ?? 'application/json';
    await context(res).idempotencyGuard.complete({ status: answer.status, contentType, body: text });
    res.status(answer.status).type(contentType).send(text);
  };
}

async function listen(app: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  return listenOnLoopback(app);
}

function capturingLogger(lines: string[]): Logger {
  return createLogger(
    'debug',
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
}

async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logLines: string[] = [];
  const logger = capturingLogger(logLines);
  const clock = { now: T0 };
  const core = await listen(createSandboxApp({ data: createSandboxData(42) }));
  const access = new AccessCache(new MemoryAccessStore(ACCESS), logger);
  await access.start();
  const outbox = options.sms ? null : new OutboxSmsProvider(100);
  const config = twoFactorSchema.parse({
    sendLimitsPerNumber: UNLIMITED,
    sendLimitsPerCustomer: UNLIMITED,
    ...(options.redis ? { pepper: 'a-test-pepper-that-is-long-enough-0001' } : {}),
    ...options.config,
  });
  const steps = twoFactor(config, {
    redis: options.redis ?? null,
    keyPrefix: `test-${randomUUID()}:`,
    sms: options.sms ?? (outbox as OutboxSmsProvider),
    logger,
    now: () => clock.now,
  });
  const coreBodies: string[] = [];
  const app = express();
  app.use(
    requestContext(requestContextSchema.parse({})),
    routeMatch(new RouteMatcher(ROUTES)),
    authenticate(authenticateSchema.parse({}), { access }),
    authorize({ access }),
    body(bodyConfigSchema.parse({}), { contracts: new Map(bankAccountContracts().map((c) => [c.id, c])), opaqueMaxBytes: 1024 * 1024 }),
    steps.verification,
    idempotency({ header: 'Idempotency-Key', retentionSeconds: 3600, inFlightTimeoutMs: 30_000 }, {
      store: new MemoryIdempotencyStore({ inFlightMs: 30_000, retentionMs: 3_600_000 }),
      logger,
      fingerprintKey: 'test-fingerprint-key',
    }),
    steps.check,
    coreCall(core.url, coreBodies),
  );
  app.use(createErrorHandler(logger));
  const gateway = await listen(app);
  return {
    url: gateway.url,
    outbox,
    coreBodies,
    logLines,
    clock,
    async close() {
      access.stop();
      await gateway.close();
      await core.close();
    },
  };
}

interface Call {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

async function call(h: Harness, method: string, path: string, key: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Call> {
  const response = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'X-Vendor-Token': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const verify = (h: Harness, customerId = X, key = keyA.secret, extra: Record<string, unknown> = {}) =>
  call(h, 'POST', '/bankaccounts/verification', key, { CustomerId: customerId, MobileNumber: MOBILE, ...extra });

const addBody = (code: string, customerId = X, accountNumber = '87654321') => ({
  CustomerId: customerId,
  PersonId: customerId,
  Name: 'A TESTER',
  AccountNumber: accountNumber,
  SortCode: '20-00-00',
  TwoFactorCode: code,
});

const add = (h: Harness, code: string, options: { customerId?: number; key?: string; headers?: Record<string, string>; accountNumber?: string } = {}) =>
  call(h, 'POST', '/bankaccounts/add', options.key ?? keyA.secret, addBody(code, options.customerId, options.accountNumber), options.headers);

function latestCode(h: Harness): string {
  const text = h.outbox?.list(1)[0]?.text ?? '';
  const code = /\b(\d{6})\b/.exec(text)?.[1];
  if (!code) throw new Error('no code in the outbox');
  return code;
}

/** A six-digit code that is certainly not `code`. */
const otherThan = (code: string): string => String(((Number(code) - 100_000 + 1) % 900_000) + 100_000);

describe('two-factor steps (memory store)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('sends a generated code by SMS, answers 200 without it, and lets the add through to the core without it', async () => {
    const sent = await verify(h);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ status: 'sent', expiresInSeconds: 600 });
    expect(sent.headers.get('cache-control')).toBe('no-store');
    expect(h.outbox?.list()).toEqual([{ id: expect.any(String), sentAt: expect.any(String), to: E164, text: expect.stringMatching(/^Your code to add a bank account is \d{6}\. It expires in 10 minutes\. Never share it\.$/) }]);
    const code = latestCode(h);
    expect(JSON.stringify(sent.body)).not.toContain(code);
    expect(h.coreBodies).toEqual([]);

    const added = await add(h, code);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ Name: 'A TESTER', AccountNumber: '87654321', SortCode: '200000', DateClosed: null });
    expect(h.coreBodies).toEqual(['{"CustomerId":10001,"PersonId":10001,"Name":"A TESTER","AccountNumber":"87654321","SortCode":"200000"}']);
    const list = await call(h, 'GET', `/customers/${X}/bankaccounts`, keyA.secret);
    expect(list.body).toContainEqual(added.body);
  });

  it("sends the vendor's own code when the body has one", async () => {
    expect((await verify(h, X, keyA.secret, { Code: '012345' })).status).toBe(200);
    expect(latestCode(h)).toBe('012345');
    expect((await add(h, '012345')).status).toBe(201);
  });

  it('refuses a landline or a 070 number with 400 naming MobileNumber, and sends nothing', async () => {
    for (const number of ['020 7946 0000', '07011 123456']) {
      const refused = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: number });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request', errors: [{ field: 'MobileNumber', message: expect.stringContaining('mobile') }] });
    }
    expect(h.outbox?.list()).toEqual([]);
  });

  it('accepts a code once', async () => {
    await verify(h);
    const code = latestCode(h);
    expect((await add(h, code)).status).toBe(201);
    const again = await add(h, code, { accountNumber: '11112222' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'two_factor_invalid' });
  });

  it('locks after five wrong codes: the right one then gets 429 two_factor_locked', async () => {
    await verify(h);
    const code = latestCode(h);
    for (let i = 0; i < 5; i++) {
      const wrong = await add(h, otherThan(code));
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ code: 'two_factor_invalid', detail: expect.not.stringMatching(/expired|wrong|attempt|\d of \d/i) });
    }
    const locked = await add(h, code);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ code: 'two_factor_locked' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(h.coreBodies).toEqual([]);
  });

  it('does not unlock or reset the count on a new send', async () => {
    await verify(h);
    for (let i = 0; i < 3; i++) expect((await add(h, otherThan(latestCode(h)))).status).toBe(400);
    await verify(h);
    const second = latestCode(h);
    for (let i = 0; i < 2; i++) expect((await add(h, otherThan(second))).status).toBe(400);
    expect((await add(h, second)).status).toBe(429);

    const sends = h.outbox?.list().length;
    const resend = await verify(h);
    expect(resend.status).toBe(429);
    expect(resend.body).toMatchObject({ code: 'two_factor_locked' });
    expect(h.outbox?.list().length).toBe(sends);
    expect((await add(h, second)).status).toBe(429);
  });

  it('refuses a code at the end of its lifetime (the clock is injected)', async () => {
    await verify(h);
    const code = latestCode(h);
    h.clock.now = T0 + 600_000;
    expect((await add(h, code)).body).toMatchObject({ code: 'two_factor_invalid' });

    h.clock.now = T0 + 1_000_000;
    await verify(h);
    h.clock.now += 599_000;
    expect((await add(h, latestCode(h))).status).toBe(201);
  });

  it("does not let vendor B use vendor A's code, and B's tries do not spend it", async () => {
    await verify(h, X, keyA.secret);
    const code = latestCode(h);
    expect((await add(h, code, { key: keyB.secret })).body).toMatchObject({ code: 'two_factor_invalid' });
    expect((await add(h, code, { key: keyA.secret })).status).toBe(201);
  });

  it("does not let customer X's code add an account for customer Y", async () => {
    await verify(h, X);
    const code = latestCode(h);
    expect((await add(h, code, { customerId: Y })).body).toMatchObject({ code: 'two_factor_invalid' });
    expect((await add(h, code, { customerId: X })).status).toBe(201);
  });

  it('frees the idempotency key after a wrong code, and replays the add after success', async () => {
    await verify(h);
    const code = latestCode(h);
    const headers = { 'Idempotency-Key': 'add-1' };
    expect((await add(h, otherThan(code), { headers })).status).toBe(400);
    const first = await add(h, code, { headers });
    expect(first.status).toBe(201);
    const replay = await add(h, code, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(h.coreBodies).toHaveLength(1);
  });

  it('never writes a code or a whole mobile number to the log', async () => {
    await verify(h, X, keyA.secret, { Code: '246813' });
    await add(h, '135792');
    await add(h, '246813');
    const log = h.logLines.join('');
    expect(log).toContain('two-factor code sent');
    expect(log).toContain('two-factor code refused');
    expect(log).toContain('two-factor code accepted');
    expect(log).toContain('+*********456');
    for (const secret of ['246813', '135792', '7400123456', '7400 123456']) expect(log).not.toContain(secret);
  });
});

describe('two-factor send limits', () => {
  it('allows one send per number and per customer a minute by default, answering 429 with Retry-After', async () => {
    const h = await startHarness({ config: { sendLimitsPerNumber: twoFactorSchema.parse({}).sendLimitsPerNumber, sendLimitsPerCustomer: twoFactorSchema.parse({}).sendLimitsPerCustomer } });
    try {
      expect((await verify(h, X)).status).toBe(200);
      const sameNumber = await verify(h, Y);
      expect(sameNumber.status).toBe(429);
      expect(sameNumber.body).toMatchObject({ code: 'rate_limited' });
      expect(Number(sameNumber.headers.get('retry-after'))).toBeGreaterThan(50);
      const sameCustomer = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07400 654321' });
      expect(sameCustomer.status).toBe(429);
      expect((await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: Y, MobileNumber: '07400 654321' })).status).toBe(200);
      expect(h.outbox?.list()).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('allows five sends an hour to one number', async () => {
    const h = await startHarness({ config: { sendLimitsPerNumber: [{ points: 5, durationSeconds: 3600 }] } });
    try {
      for (let i = 0; i < 5; i++) expect((await verify(h)).status).toBe(200);
      const refused = await verify(h);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3500);
    } finally {
      await h.close();
    }
  });
});

describe('two-factor with the HTTP SMS provider', () => {
  it('answers 502 after the retries when the provider keeps failing, and leaves no code pending nor a send spent', async () => {
    const received: string[] = [];
    let failing = true;
    const provider = await listen((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        received.push(text);
        res.writeHead(failing ? 500 : 200).end();
      });
    });
    const sms = createSmsProvider(smsSchema.parse({ provider: 'http', http: { url: provider.url, bearerToken: 'token-0123456789', retryBackoffMs: 10, maxRetries: 2 } })).provider;
    const defaults = twoFactorSchema.parse({});
    const h = await startHarness({ sms, config: { sendLimitsPerNumber: defaults.sendLimitsPerNumber, sendLimitsPerCustomer: defaults.sendLimitsPerCustomer } });
    try {
      const failed = await verify(h);
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ code: 'sms_provider_failed' });
      expect(received).toHaveLength(3);
      const unsentCode = /\b(\d{6})\b/.exec((JSON.parse(received[0] as string) as { text: string }).text)?.[1] as string;
      expect((await add(h, unsentCode)).body).toMatchObject({ code: 'two_factor_invalid' });

      failing = false;
      expect((await verify(h)).status).toBe(200);
      expect(received).toHaveLength(4);
      const log = h.logLines.join('');
      expect(log).toContain('SMS provider failed 3 time(s); last: HTTP 500');
      for (const secret of [unsentCode, '7400123456', 'token-0123456789']) expect(log).not.toContain(secret);
    } finally {
      await h.close();
      await provider.close();
    }
  });
});

describe('two-factor steps (Redis store)', () => {
  const clients = new TestRedisClients();
  const redisClient = (url: string): Promise<Redis> => clients.ready(url);
  afterAll(() => clients.disconnectAll());

  it('runs the flow with codes shared through Redis, and locks there too', async () => {
    const h = await startHarness({ redis: await redisClient(process.env.TEST_REDIS_URL as string) });
    try {
      await verify(h);
      const code = latestCode(h);
      expect((await add(h, code)).status).toBe(201);
      await verify(h, Y);
      for (let i = 0; i < 5; i++) expect((await add(h, otherThan(latestCode(h)), { customerId: Y })).status).toBe(400);
      expect((await add(h, latestCode(h), { customerId: Y })).status).toBe(429);
    } finally {
      await h.close();
    }
  });

  it('answers 503 store_unavailable when Redis is gone', async () => {
    const server = await startRedisServer();
    const h = await startHarness({ redis: await redisClient(server.url) });
    try {
      await verify(h);
      const code = latestCode(h);
      await server.stop();
      const sent = await verify(h);
      expect(sent.status).toBe(503);
      expect(sent.body).toMatchObject({ code: 'store_unavailable' });
      const added = await add(h, code);
      expect(added.status).toBe(503);
      expect(added.body).toMatchObject({ code: 'store_unavailable' });
    } finally {
      await h.close();
      await server.stop();
    }
  });
});
