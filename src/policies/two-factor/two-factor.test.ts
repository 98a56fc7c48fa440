/**
 * The two-factor steps in a real Express app on loopback, between the real request-context,
 * route-match, authenticate, authorize, request-target, body, idempotency and exchange steps,
 * in front of the sandbox core behind a recorder (what the core received). The sandbox's
 * customers X and Y hold the test mobile numbers.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import Redis from 'ioredis';
import { AccessCache } from '../../access/cache';
import type { AccessDocument } from '../../access/model';
import { MemoryAccessStore } from '../../access/access-store';
import { ROUTES } from '../../catalogue/api-catalogue';
import { RouteMatcher } from '../../catalogue/matcher';
import { bankAccountContracts } from '../../contracts/bank-accounts';
import { createLogger, type Logger } from '../../logging/logger';
import { createErrorHandler } from '../../request/error-handler';
import { createSandboxApp } from '../../sandbox/app';
import { createSandboxData, type SandboxData } from '../../sandbox/data';
import { createSmsProvider } from '../../sms/create-provider';
import { OutboxSmsProvider } from '../../sms/outbox';
import type { SmsProvider } from '../../sms/provider';
import { smsSchema } from '../../sms/sms.schema';
import { testKey } from '../../../test/support/access-fixture';
import { answerFrom, startRecordingCore, type ParsedCoreRequest } from '../../../test/support/recording-core';
import { createCoreAgents } from '../../core-client/agent';
import { CoreBreakers } from '../../core-client/breakers';
import { breakersSchema } from '../../core-client/breakers.schema';
import { createCoreClient } from '../../core-client/core-client';
import { coreClientSchema } from '../../core-client/core-client.schema';
import { createForwardedResolver } from '../../core-client/forwarded';
import { createMetrics } from '../../metrics/metrics';
import { exchange } from '../exchange/exchange';
import { forward } from '../forward/forward';
import { requestTarget } from '../request-target/request-target';
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
import { within } from '../../../test/support/within';

const keyA = testKey('key-a', 'user.a');
const keyB = testKey('key-b', 'user.b');
/** Vendor C holds every licence; its user may not read customers. Vendor D holds no licence to read them. */
const keyC = testKey('key-c', 'user.c');
const keyD = testKey('key-d', 'user.d');
const BANK_ACCOUNT_APIS = ['POSTbankaccounts/*', 'PUTbankaccounts/*', 'GET*'];
const WITHOUT_CUSTOMER_READS = ['POSTbankaccounts/*', 'PUTbankaccounts/*', 'GETcustomers/{memberId}/bankaccounts'];
const grants = (prefix: string, apis: readonly string[]) => apis.map((api, i) => ({ id: `${prefix}${i}`, api }));
const ACCESS: AccessDocument = {
  vendors: [
    { id: 'vendor-a', name: 'Vendor A', status: 'active', licences: grants('la', BANK_ACCOUNT_APIS), keys: [keyA.record] },
    { id: 'vendor-b', name: 'Vendor B', status: 'active', licences: grants('lb', BANK_ACCOUNT_APIS), keys: [keyB.record] },
    { id: 'vendor-c', name: 'Vendor C', status: 'active', licences: grants('lc', BANK_ACCOUNT_APIS), keys: [keyC.record] },
    { id: 'vendor-d', name: 'Vendor D', status: 'active', licences: grants('ld', WITHOUT_CUSTOMER_READS), keys: [keyD.record] },
  ],
  users: [
    { id: 'user.a', permissions: grants('pa', BANK_ACCOUNT_APIS) },
    { id: 'user.b', permissions: grants('pb', BANK_ACCOUNT_APIS) },
    { id: 'user.c', permissions: grants('pc', WITHOUT_CUSTOMER_READS) },
    { id: 'user.d', permissions: grants('pd', BANK_ACCOUNT_APIS) },
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
  readonly data: SandboxData;
  /** Bodies of the writes the core received. */
  readonly coreBodies: string[];
  /** Targets of the reads the gateway made of the core. */
  coreReads(): string[];
  /** Vendors whose SMS budget refused a send. */
  readonly budgetExhausted: string[];
  readonly logLines: string[];
  readonly clock: { now: number };
  breakerStates(): Record<string, string>;
  close(): Promise<void>;
}

interface HarnessOptions {
  readonly config?: Partial<TwoFactorConfig>;
  readonly redis?: Redis | null;
  readonly sms?: SmsProvider;
  /** Sandbox mode: a vendor's own Code is taken. */
  readonly sandboxMode?: boolean;
  /** Answers a core request instead of the sandbox when it returns true. */
  readonly intercept?: (request: ParsedCoreRequest, res: http.ServerResponse) => boolean;
  readonly breakers?: Record<string, unknown>;
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

/** The sandbox data, with X and Y holding the test mobiles (Telephone2 and Telephone3) and consenting to SMS. */
function sandboxData(): SandboxData {
  const data = createSandboxData(42);
  for (const customerId of [X, Y]) {
    Object.assign(data.customers.get(customerId) as object, { Telephone2: 447400123456, Telephone3: 447400654321, SmsConsentGiven: true });
  }
  return data;
}

async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const logLines: string[] = [];
  const logger = capturingLogger(logLines);
  const clock = { now: T0 };
  const data = sandboxData();
  const sandbox = await listen(createSandboxApp({ data }));
  const toSandbox = answerFrom(sandbox.url);
  const core = await startRecordingCore((request, res) => {
    if (!options.intercept?.(request, res)) toSandbox(request, res);
  });
  const access = new AccessCache(new MemoryAccessStore(ACCESS), logger);
  await access.start();
  const outbox = options.sms ? null : new OutboxSmsProvider(100);
  const config = twoFactorSchema.parse({
    sendLimitsPerNumber: UNLIMITED,
    sendLimitsPerCustomer: UNLIMITED,
    ...(options.redis ? { pepper: 'a-test-pepper-that-is-long-enough-0001' } : {}),
    ...options.config,
  });
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  const agents = createCoreAgents(core.url, coreClientSchema.parse({}), { logger });
  const breakers = new CoreBreakers(breakersSchema.parse(options.breakers ?? {}), { defaultTimeoutMs: 5000, metrics, logger });
  const coreClient = createCoreClient({
    coreUrl: core.url,
    agents,
    breakers,
    config: coreClientSchema.parse({}),
    forwarded: createForwardedResolver({ trustedProxies: [], publicUrl: null }),
    logger,
  });
  const budgetExhausted: string[] = [];
  const steps = twoFactor(config, {
    redis: options.redis ?? null,
    keyPrefix: `test-${randomUUID()}:`,
    sms: options.sms ?? (outbox as OutboxSmsProvider),
    logger,
    coreClient,
    access,
    sandboxMode: options.sandboxMode ?? false,
    onBudgetExhausted: (vendorId) => budgetExhausted.push(vendorId),
    now: () => clock.now,
  });
  const contracts = new Map(bankAccountContracts().map((c) => [c.id, c]));
  const app = express();
  app.use(
    requestContext(requestContextSchema.parse({})),
    routeMatch(new RouteMatcher(ROUTES)),
    authenticate(authenticateSchema.parse({}), { access }),
    authorize({ access }),
    requestTarget(),
    body(bodyConfigSchema.parse({}), { contracts, opaqueMaxBytes: 1024 * 1024, defaultXmlNamespace: '' }),
    steps.verification,
    idempotency(
      { header: 'Idempotency-Key', retentionSeconds: 3600, inFlightTimeoutMs: 30_000, requireKey: 'never' },
      {
        store: new MemoryIdempotencyStore({ inFlightMs: 30_000, retentionMs: 3_600_000 }),
        logger,
        fingerprintKey: 'test-fingerprint-key',
        sandboxMode: false,
      },
    ),
    steps.check,
    exchange({ coreClient, contracts }),
    forward({ coreClient }),
  );
  app.use(createErrorHandler(logger));
  const gateway = await listen(app);
  return {
    url: gateway.url,
    outbox,
    data,
    get coreBodies() {
      return core.parsed.filter((request) => request.method !== 'GET').map((request) => request.body);
    },
    coreReads: () => core.parsed.filter((request) => request.method === 'GET').map((request) => request.url),
    budgetExhausted,
    logLines,
    clock,
    breakerStates: () => breakers.states(),
    async close() {
      access.stop();
      breakers.shutdown();
      agents.destroy();
      await gateway.close();
      await core.close();
      await sandbox.close();
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
    expect(h.outbox?.list()).toEqual([
      {
        id: expect.any(String),
        sentAt: expect.any(String),
        to: E164,
        text: expect.stringMatching(/^Your code to add a bank account is \d{6}\. It expires in 10 minutes\. Never share it\.$/),
      },
    ]);
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

  it("refuses a vendor's own Code with a real core (400 naming Code), and sends nothing", async () => {
    const refused = await verify(h, X, keyA.secret, { Code: '012345' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ field: 'Code' }] });
    expect(h.outbox?.list()).toEqual([]);
  });

  it("takes a Code of null as absent, and the vendor's own Code in sandbox mode", async () => {
    expect((await verify(h, X, keyA.secret, { Code: null })).status).toBe(200);
    const sandbox = await startHarness({ sandboxMode: true });
    try {
      expect((await verify(sandbox, X, keyA.secret, { Code: '012345' })).status).toBe(200);
      expect(latestCode(sandbox)).toBe('012345');
      expect((await add(sandbox, '012345')).status).toBe(201);
    } finally {
      await sandbox.close();
    }
  });

  it('sends a code only to a mobile number the core holds for the customer (400 naming MobileNumber)', async () => {
    const mule = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: 10004 + 5, MobileNumber: '+44 7911 123460' });
    expect(mule.status).toBe(400);
    expect(mule.body).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'MobileNumber', message: 'is not a mobile number the bank holds for this customer' }],
    });
    expect(h.outbox?.list()).toEqual([]);
    expect(h.coreReads()).toEqual(['/customers/10009']);
  });

  it('answers a customer the core does not know as it answers a number the bank does not hold, and tells no consent only for the right number', async () => {
    const unknown = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: 99999, MobileNumber: MOBILE });
    const notHeld = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07911 123460' });
    const withoutRequestId = ({ requestId: _id, ...rest }: Record<string, unknown>) => rest;
    expect(unknown.status).toBe(400);
    expect(withoutRequestId(unknown.body)).toEqual(withoutRequestId(notHeld.body));
    expect(unknown.body).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'MobileNumber', message: 'is not a mobile number the bank holds for this customer' }],
    });
    Object.assign(h.data.customers.get(Y) as object, { SmsConsentGiven: false });
    const wrongNumberNoConsent = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: Y, MobileNumber: '07911 123460' });
    expect(withoutRequestId(wrongNumberNoConsent.body)).toEqual(withoutRequestId(notHeld.body));
    Object.assign(h.data.customers.get(Y) as object, { SmsConsentGiven: false });
    const noConsent = await verify(h, Y);
    expect(noConsent.body).toMatchObject({ code: 'invalid_request', errors: [{ field: 'CustomerId', message: 'has not consented to SMS' }] });
    expect(h.outbox?.list()).toEqual([]);
  });

  it('leaves a code usable when the core refuses the add (4xx), so the corrected retry may use it', async () => {
    await verify(h);
    const code = latestCode(h);
    const refused = await call(h, 'POST', '/bankaccounts/add', keyA.secret, { ...addBody(code), PersonId: 99999 });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.body).not.toMatchObject({ code: 'two_factor_invalid' });
    expect((await add(h, code)).status).toBe(201);
  });

  it("refuses a number in Ofcom's drama range with a real core (400 naming MobileNumber), and takes it in sandbox mode", async () => {
    Object.assign(h.data.customers.get(X) as object, { Telephone2: 447700900123 });
    const refused = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07700 900123' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request', errors: [{ field: 'MobileNumber', message: expect.stringContaining('drama range') }] });
    expect(h.outbox?.list()).toEqual([]);
    const sandbox = await startHarness({ sandboxMode: true });
    try {
      Object.assign(sandbox.data.customers.get(X) as object, { Telephone2: 447700900123 });
      expect((await call(sandbox, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07700 900123' })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
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
    const details = [];
    for (let i = 0; i < 5; i++) {
      const wrong = await add(h, otherThan(code));
      expect(wrong.status).toBe(400);
      expect(wrong.body.code).toBe('two_factor_invalid');
      details.push(String(wrong.body.detail));
    }
    // Each wrong try says the code sent is still good and the lock rule (never the tries left); the fifth, that it locked the customer.
    for (const detail of details.slice(0, 4)) expect(detail).toMatch(/The code sent stays valid until .* After 5 wrong codes for a customer, from any vendor/);
    expect(details[4]).toContain('That wrong code reached the limit of 5 for this customer: the code sent is void');
    expect(details.join(' ')).not.toContain(code);
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

  it('says on a wrong code whether the code sent is still valid, and until when, from the real state', async () => {
    await verify(h);
    const code = latestCode(h);
    h.clock.now = T0 + 60_000;
    const live = await add(h, otherThan(code));
    expect(live.body).toMatchObject({
      code: 'two_factor_invalid',
      detail: expect.stringContaining(
        'The code sent stays valid until 2025-07-01T09:10:00Z (540 s more): ask the customer for it again, and request a new one only if it expired. After 5 wrong codes for a customer',
      ),
    });
    h.clock.now = T0 + 600_000;
    const expired = await add(h, code);
    expect(expired.body).toMatchObject({
      code: 'two_factor_invalid',
      detail: expect.stringContaining('No code sent to you for this customer is still valid (it expired, was used, or none was sent): request a new one'),
    });
    h.clock.now = T0 + 1_000_000;
    await verify(h);
    expect((await add(h, latestCode(h))).status).toBe(201);
    expect(String((await add(h, latestCode(h), { accountNumber: '11112222' })).body.detail)).toContain('No code sent to you for this customer is still valid');
  });

  it("tells vendor B nothing of vendor A's live code on B's wrong try", async () => {
    await verify(h, X, keyA.secret);
    const code = latestCode(h);
    const other = await add(h, code, { key: keyB.secret });
    expect(other.body).toMatchObject({ code: 'two_factor_invalid', detail: expect.stringContaining('No code sent to you for this customer is still valid') });
    expect(String((await add(h, otherThan(code), { key: keyA.secret })).body.detail)).toContain('The code sent stays valid until');
  });

  it("does not let vendor B use vendor A's code, and B's tries do not spend it", async () => {
    await verify(h, X, keyA.secret);
    const code = latestCode(h);
    expect((await add(h, code, { key: keyB.secret })).body).toMatchObject({ code: 'two_factor_invalid' });
    expect((await add(h, code, { key: keyA.secret })).status).toBe(201);
  });

  it("locks the customer for every vendor: vendor B's wrong codes lock out vendor A's right one", async () => {
    await verify(h, X, keyA.secret);
    const code = latestCode(h);
    for (let i = 0; i < 5; i++) expect((await add(h, otherThan(code), { key: keyB.secret })).status).toBe(400);
    const locked = await add(h, code, { key: keyA.secret });
    expect([locked.status, locked.body.code]).toEqual([429, 'two_factor_locked']);
  });

  it('needs a code sent to the customer to point an account elsewhere with PUT, and none to close it', async () => {
    await verify(h);
    const added = await add(h, latestCode(h));
    const id = Number(added.body.Id);
    expect(Number.isInteger(id)).toBe(true);
    const update = { CustomerId: X, PersonId: X, Name: 'A TESTER', AccountNumber: '87654321', SortCode: '20-00-00' };

    const redirect = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, AccountNumber: '99990000' });
    expect(redirect.status).toBe(400);
    expect(redirect.body).toMatchObject({ errors: [{ field: 'TwoFactorCode', message: 'required to change AccountNumber or SortCode' }] });
    const writes = h.coreBodies.length;

    const wrong = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, SortCode: '11-22-33', TwoFactorCode: '123456' });
    expect(wrong.body).toMatchObject({ code: 'two_factor_invalid' });
    expect(h.coreBodies).toHaveLength(writes);

    h.clock.now += 61_000;
    await verify(h, X, keyA.secret, { AccountNumber: '99990000', SortCode: '20-00-00' });
    const allowed = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, AccountNumber: '99990000', TwoFactorCode: latestCode(h) });
    expect(allowed.status).toBe(200);
    expect(h.coreBodies.at(-1)).not.toContain('TwoFactorCode');

    const closed = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, AccountNumber: '99990000', DateClosed: '2025-07-01T09:00:00' });
    expect(closed.status).toBe(200);

    // A record read with GET goes back as it was: its Id is taken (and must be the path's).
    const read = (await call(h, 'GET', `/bankaccounts/${id}`, keyA.secret)).body;
    const sentBack = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...read, CustomerId: X, PersonId: X });
    expect(sentBack.status).toBe(200);
    expect(h.coreBodies.at(-1)).not.toContain('"Id"');
    const elsewhere = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...read, Id: id + 1, CustomerId: X, PersonId: X });
    expect(elsewhere.body).toMatchObject({ errors: [{ field: 'Id', message: 'must be the Id in the path' }] });

    const moved = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, CustomerId: Y, PersonId: Y, AccountNumber: '99990000' });
    expect(moved.body).toMatchObject({ errors: [{ field: 'CustomerId', message: 'has no bank account with this Id' }] });
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
    await verify(h);
    const code = latestCode(h);
    await add(h, otherThan(code));
    await add(h, code);
    const log = h.logLines.join('');
    expect(log).toContain('two-factor code sent');
    expect(log).toContain('two-factor code refused');
    expect(log).toContain('two-factor code accepted');
    expect(log).toContain('+*********456');
    for (const secret of [code, otherThan(code), '7400123456', '7400 123456']) expect(log).not.toContain(secret);
  });
});

const ACCOUNT = { AccountNumber: '87654321', SortCode: '20-00-00' };
const MULE = { AccountNumber: '13572468', SortCode: '99-88-77' };

/** Adds an account for X with a code sent to add one; answers its Id and the update body that keeps it as it is. */
async function accountOfX(h: Harness): Promise<{ id: number; update: Record<string, unknown> }> {
  await verify(h, X);
  const added = await add(h, latestCode(h));
  expect(added.status).toBe(201);
  h.clock.now += 61_000;
  return { id: Number(added.body.Id), update: { CustomerId: X, PersonId: X, Name: 'A TESTER', ...ACCOUNT } };
}

describe('dynamic linking: a code allows only what it was sent for', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('does not let a code sent to add a bank account redirect an existing one', async () => {
    const { id, update } = await accountOfX(h);
    await verify(h);
    const code = latestCode(h);
    const writes = h.coreBodies.length;
    const redirect = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, ...MULE, TwoFactorCode: code });
    expect([redirect.status, redirect.body.code]).toEqual([400, 'two_factor_invalid']);
    expect(h.coreBodies).toHaveLength(writes);
    const read = await call(h, 'GET', `/bankaccounts/${id}`, keyA.secret);
    expect(read.body).toMatchObject({ AccountNumber: ACCOUNT.AccountNumber, SortCode: '200000' });
  });

  it('names the last four digits of the destination in the SMS, and takes the code for an add or an update to exactly that destination', async () => {
    const { id, update } = await accountOfX(h);
    const sent = await verify(h, X, keyA.secret, { AccountNumber: '11112222', SortCode: '10 20 30' });
    expect(sent.status).toBe(200);
    expect(h.outbox?.list(1)[0]?.text).toMatch(
      /^Your code to add or switch to the bank account ending 2222 is \d{6}\. It expires in 10 minutes\. Never share it\.$/,
    );
    const code = latestCode(h);
    const swaps = [
      { ...update, AccountNumber: '11112223', SortCode: '102030' },
      { ...update, AccountNumber: '11112222', SortCode: '102031' },
      { ...update, ...MULE },
    ];
    for (const body of swaps) {
      const refused = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...body, TwoFactorCode: code });
      expect([refused.status, refused.body.code]).toEqual([400, 'two_factor_invalid']);
    }
    // Three wrong tries spent, the code is still there for its own destination (five lock).
    const taken = await call(h, 'PUT', `/bankaccounts/${id}`, keyA.secret, { ...update, AccountNumber: '11112222', SortCode: '10-20-30', TwoFactorCode: code });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ AccountNumber: '11112222', SortCode: '102030' });
  });

  it('refuses the add of another destination than the one the code was sent for', async () => {
    await verify(h, X, keyA.secret, ACCOUNT);
    const code = latestCode(h);
    expect((await add(h, code, { accountNumber: MULE.AccountNumber })).body).toMatchObject({ code: 'two_factor_invalid' });
    expect(h.coreBodies).toEqual([]);
    expect((await add(h, code)).status).toBe(201);
  });

  it('refuses half a destination (400 naming the missing half), and sends nothing', async () => {
    const half = await verify(h, X, keyA.secret, { AccountNumber: '11112222' });
    expect(half.body).toMatchObject({ code: 'invalid_request', errors: [{ field: 'SortCode' }] });
    const other = await verify(h, X, keyA.secret, { SortCode: '102030' });
    expect(other.body).toMatchObject({ code: 'invalid_request', errors: [{ field: 'AccountNumber' }] });
    expect(h.outbox?.list()).toEqual([]);
  });

  it("does not let vendor B use vendor A's destination code, nor customer Y's account take X's", async () => {
    const { id, update } = await accountOfX(h);
    await verify(h, X, keyA.secret, MULE);
    const code = latestCode(h);
    expect((await call(h, 'PUT', `/bankaccounts/${id}`, keyB.secret, { ...update, ...MULE, TwoFactorCode: code })).body).toMatchObject({
      code: 'two_factor_invalid',
    });
    expect((await add(h, code, { customerId: Y, accountNumber: MULE.AccountNumber })).body).toMatchObject({ code: 'two_factor_invalid' });
  });
});

describe('absolute code lifetimes', () => {
  /** A 30-s code (the shortest lifetime the config takes) on the step's clock. */
  const short = { codeTtlSeconds: 30 };
  const refusedByCore = (h: Harness, code: string) => call(h, 'POST', '/bankaccounts/add', keyA.secret, { ...addBody(code), PersonId: 99999 });

  it.each([
    ['memory', false],
    ['Redis', true],
  ])('keeps the original expiry when a core refusal hands the code back (%s store)', async (_name, withRedis) => {
    const redis = withRedis ? await new TestRedisClients().ready(process.env.TEST_REDIS_URL as string) : null;
    const h = await startHarness({ config: short, redis });
    try {
      await verify(h);
      const code = latestCode(h);
      h.clock.now = T0 + 25_000;
      expect((await refusedByCore(h, code)).status).toBe(400);
      h.clock.now = T0 + 29_000;
      expect((await refusedByCore(h, code)).status).toBe(400);
      h.clock.now = T0 + 30_000;
      expect((await add(h, code)).body).toMatchObject({ code: 'two_factor_invalid' });
      h.clock.now = T0 + 65_000;
      expect((await add(h, code)).body).toMatchObject({ code: 'two_factor_invalid' });
      expect(h.coreBodies.filter((body) => body.includes('"PersonId":10001'))).toEqual([]);
    } finally {
      await h.close();
      redis?.disconnect();
    }
  });

  it('spends a code after three hand-backs', async () => {
    const h = await startHarness();
    try {
      await verify(h);
      const code = latestCode(h);
      for (let i = 0; i < 4; i++) expect((await refusedByCore(h, code)).body).not.toMatchObject({ code: 'two_factor_invalid' });
      expect((await add(h, code)).body).toMatchObject({ code: 'two_factor_invalid' });
    } finally {
      await h.close();
    }
  });
});

describe('verification is no oracle of customers and their numbers', () => {
  it('needs the licence and permission to read the customer (403), and asks the core nothing without them', async () => {
    const h = await startHarness();
    try {
      const notPermitted = await verify(h, X, keyC.secret);
      expect([notPermitted.status, notPermitted.body.code]).toEqual([403, 'permission_denied']);
      expect(String(notPermitted.body.detail)).toContain('GETcustomers/{id}');
      const notLicensed = await verify(h, X, keyD.secret);
      expect([notLicensed.status, notLicensed.body.code]).toEqual([403, 'licence_required']);
      expect(h.coreReads()).toEqual([]);
      expect(h.outbox?.list()).toEqual([]);
      expect((await verify(h, X, keyA.secret)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it("counts misses against the customer's limit and the vendor's budget, never against the number", async () => {
    const h = await startHarness({
      config: {
        sendLimitsPerCustomer: [{ points: 2, durationSeconds: 3600 }],
        sendLimitsPerNumber: [{ points: 1, durationSeconds: 3600 }],
        sendLimitsPerVendor: [{ points: 4, durationSeconds: 3600 }],
      },
    });
    try {
      // Probing customer X with numbers that are not X's: two misses spend X's limit.
      for (const guess of ['07911 123460', '07911 123461'])
        expect((await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: guess })).status).toBe(400);
      const limited = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07911 123462' });
      expect([limited.status, limited.body.code]).toEqual([429, 'sms_rate_limited']);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
      // Unknown customers spend the vendor's budget too.
      for (const customerId of [99997, 99998])
        expect((await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: customerId, MobileNumber: MOBILE })).status).toBe(400);
      const spent = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: 99999, MobileNumber: MOBILE });
      expect([spent.status, spent.body.code]).toEqual([429, 'sms_rate_limited']);
      expect(h.budgetExhausted).toEqual(['vendor-a']);
      // The number's owner still gets a code: a stranger's misses did not spend the number's limit.
      expect((await verify(h, Y, keyB.secret)).status).toBe(200);
      expect(h.outbox?.list()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe("the two-factor customer lookup's own breaker group", () => {
  it('hands a code back when the core was never reached (breaker open), and keeps it spent when the core may have acted (5xx)', async () => {
    let failAdds = true;
    const h = await startHarness({
      breakers: { bankaccounts: { volumeThreshold: 2, resetTimeoutMs: 60_000, firstProbeDelayMs: 300 } },
      intercept: (request, res) => {
        if (!failAdds || request.method !== 'POST' || request.url !== '/bankaccounts/add') return false;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
        return true;
      },
    });
    try {
      for (let i = 0; i < 2; i++) {
        await verify(h);
        const sent = latestCode(h);
        expect((await add(h, sent)).status).toBe(502);
        expect((await add(h, sent)).body.code).toBe('two_factor_invalid');
      }
      expect(h.breakerStates().bankaccounts).toBe('open');
      await verify(h);
      const code = latestCode(h);
      expect((await add(h, code)).body.code).toBe('core_unavailable');
      failAdds = false;
      await within(3000, () => h.breakerStates().bankaccounts === 'half-open');
      expect((await add(h, code)).status).toBe(201);
    } finally {
      await h.close();
    }
  });

  it('opens customers when customer lookups fail, while adds still go through bankaccounts', async () => {
    let failLookups = true;
    const h = await startHarness({
      breakers: { customers: { volumeThreshold: 2, resetTimeoutMs: 60_000, firstProbeDelayMs: 60_000 }, bankaccounts: { volumeThreshold: 2 } },
      sandboxMode: true,
      intercept: (request, res) => {
        if (!failLookups || request.method !== 'GET' || !/^\/customers\/\d+$/.test(request.url)) return false;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
        return true;
      },
    });
    try {
      failLookups = false;
      expect((await verify(h, X, keyA.secret, { Code: '012345' })).status).toBe(200);
      failLookups = true;
      for (let i = 0; i < 3; i++) expect((await verify(h, Y)).status).toBeGreaterThanOrEqual(500);
      expect(h.breakerStates()).toMatchObject({ customers: 'open', bankaccounts: 'closed' });
      const refused = await verify(h, Y);
      expect([refused.status, refused.body.code]).toEqual([503, 'core_unavailable']);
      expect((await add(h, '012345')).status).toBe(201);
      expect(h.breakerStates()).toMatchObject({ customers: 'open', bankaccounts: 'closed' });
    } finally {
      await h.close();
    }
  });
});

describe('two-factor send limits', () => {
  it('allows one send per number and per customer a minute by default, answering 429 with Retry-After', async () => {
    const h = await startHarness({
      config: { sendLimitsPerNumber: twoFactorSchema.parse({}).sendLimitsPerNumber, sendLimitsPerCustomer: twoFactorSchema.parse({}).sendLimitsPerCustomer },
    });
    try {
      expect((await verify(h, X)).status).toBe(200);
      const sameNumber = await verify(h, Y);
      expect(sameNumber.status).toBe(429);
      expect(sameNumber.body).toMatchObject({ code: 'sms_rate_limited' });
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

describe("a vendor's SMS budget", () => {
  it('refuses sends past twoFactor.sendLimitsPerVendor with 429, reports the vendor, and leaves other vendors their own budget', async () => {
    const h = await startHarness({ config: { sendLimitsPerVendor: [{ points: 2, durationSeconds: 3600 }] } });
    try {
      expect((await verify(h, X)).status).toBe(200);
      expect((await verify(h, Y)).status).toBe(200);
      const spent = await call(h, 'POST', '/bankaccounts/verification', keyA.secret, { CustomerId: X, MobileNumber: '07400 654321' });
      expect([spent.status, spent.body.code]).toEqual([429, 'sms_rate_limited']);
      expect(String(spent.body.detail)).toContain('SMS budget');
      expect(h.budgetExhausted).toEqual(['vendor-a']);
      expect((await call(h, 'POST', '/bankaccounts/verification', keyB.secret, { CustomerId: Y, MobileNumber: '07400 654321' })).status).toBe(200);
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
    const sms = createSmsProvider(
      smsSchema.parse({ provider: 'http', http: { url: provider.url, bearerToken: 'token-0123456789', retryBackoffMs: 10, maxRetries: 2 } }),
    ).provider;
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
      const first = await add(h, otherThan(latestCode(h)), { customerId: Y });
      expect(first.body).toMatchObject({ code: 'two_factor_invalid', detail: expect.stringContaining('The code sent stays valid until 2025-07-01T09:10:00Z') });
      for (let i = 1; i < 5; i++) expect((await add(h, otherThan(latestCode(h)), { customerId: Y })).status).toBe(400);
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
