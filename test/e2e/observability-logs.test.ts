/**
 * The log output of a whole gateway, captured through the logger's destination stream: one
 * access line per vendor request with the fields an SRE needs, and no secret anywhere (vendor
 * keys, bearer tokens and cookies, admin tokens, override passwords, TempTokens, two-factor
 * codes, a freshly issued key), whatever the request did: succeed, fail authentication, hit a
 * failing core, be refused by Node. A 5xx is logged at `error`, an expected one without a stack.
 */
import net from 'node:net';
import type { AccessDocument } from '../../src/access/model';
import { generateApiKey } from '../../src/access/api-key';
import { startGateway, type RunningGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testKey, testVendor, writeAccessFile } from '../support/access-fixture';
import { TEST_ADMIN_TOKEN, testConfig } from '../support/config';
import { startFakeCore, type FakeCore } from '../support/fake-core';
import { checkedAgainstOpenApi } from '../support/gateway';

const teller = testKey('k-teller', 'teller');

const SECRETS = {
  vendorKey: teller.secret,
  unknownKey: generateApiKey(),
  bearer: 'vendor-side-bearer-9f8e7d6c',
  cookie: 'session-cookie-5a4b3c2d',
  queryToken: 'query-token-1q2w3e4r',
  overridePassword: 'Override-Pa55word!',
  tempToken: 'temp-token-z9y8x7w6',
  twoFactorCode: '731946',
  adminToken: TEST_ADMIN_TOKEN,
  wrongAdminToken: 'wrong-admin-token-0a1b2c3d4e',
};

function accessDocument(): AccessDocument {
  return {
    vendors: [testVendor({ id: 'acme', name: 'Acme', points: 10_000, licences: [{ id: 'l', api: '*' }], keys: [teller.record] })],
    users: [{ id: 'teller', permissions: [{ id: 'p', api: '*' }] }],
  };
}

interface LogLine {
  readonly msg: string;
  readonly level: number;
  readonly [field: string]: unknown;
}

describe('log output', () => {
  const output: string[] = [];
  let core: FakeCore;
  let gateway: RunningGateway;
  let vendorUrl: string;
  let adminUrl: string;
  const vendorRequests: Array<{ requestId: string; status: number }> = [];
  let issuedSecret = '';

  const lines = (): LogLine[] => output.map((line) => JSON.parse(line) as LogLine);

  async function vendor(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(`${vendorUrl}${path}`, init);
    await res.arrayBuffer();
    vendorRequests.push({ requestId: res.headers.get('x-request-id') ?? '', status: res.status });
    return res;
  }

  beforeAll(async () => {
    core = await startFakeCore();
    const config = testConfig({ core: { url: core.url }, access: { file: writeAccessFile(accessDocument()) }, log: { level: 'debug' } });
    gateway = await checkedAgainstOpenApi(
      await startGateway(config, createLogger('debug', { write: (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)) })),
      config,
    );
    vendorUrl = `http://127.0.0.1:${gateway.vendorPort}`;
    adminUrl = `http://127.0.0.1:${gateway.adminPort}/v1`;
    const json = { 'content-type': 'application/json', 'X-Vendor-Token': SECRETS.vendorKey };

    await vendor('/accounts/1', { headers: { 'X-Vendor-Token': SECRETS.vendorKey, Authorization: `Bearer ${SECRETS.bearer}`, Cookie: SECRETS.cookie } });
    await vendor('/accounts/1', { headers: { 'X-Vendor-Token': SECRETS.unknownKey } });
    await vendor(`/accounts/1?token=${SECRETS.queryToken}`, { headers: { 'X-Vendor-Token': SECRETS.vendorKey } });
    // A savings payment: its DTO has TempToken (a deposit's has not, and would refuse it as unknown).
    await vendor('/api/transaction/savings/payment', {
      method: 'POST',
      headers: { ...json, 'Idempotency-Key': 'log-payment-1' },
      body: JSON.stringify({ cuAccountID: 1, amount: 10, overrideUserName: 'sup', overridePassword: SECRETS.overridePassword, tempToken: SECRETS.tempToken }),
    });
    await vendor('/bankaccounts/add', {
      method: 'POST',
      headers: { ...json, 'Idempotency-Key': 'log-add-1' },
      body: JSON.stringify({ CustomerId: 1, PersonId: 1, Name: 'A', AccountNumber: '12345678', SortCode: '12-34-56', TwoFactorCode: SECRETS.twoFactorCode }),
    });
    core.behaviour = { kind: 'reset' };
    await vendor('/accounts/2', { headers: { 'X-Vendor-Token': SECRETS.vendorKey, Authorization: `Bearer ${SECRETS.bearer}` } });
    core.behaviour = { kind: 'answer', status: 200 };

    await fetch(`${adminUrl}/vendors`, { headers: { Authorization: `Bearer ${SECRETS.adminToken}` } });
    await fetch(`${adminUrl}/vendors`, { headers: { Authorization: `Bearer ${SECRETS.wrongAdminToken}` } });
    const issued = await fetch(`${adminUrl}/vendors/acme/keys`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SECRETS.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'teller' }),
    });
    issuedSecret = ((await issued.json()) as { secret: string }).secret;
    await vendor('/accounts/3', { headers: { 'X-Vendor-Token': issuedSecret } });

    await new Promise<void>((resolve) => {
      const socket = net.connect(gateway.vendorPort, '127.0.0.1', () =>
        socket.write(`GET /accounts/1 HTTP/1.1\r\nHost: gw\r\nX-Vendor-Token: ${SECRETS.vendorKey}\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`),
      );
      socket.on('data', () => undefined);
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
    // The access line is written when the response closes, just after the client has it.
    await new Promise((r) => setTimeout(r, 100));
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });

  it('was captured, and the run did what it was built to do', () => {
    expect(issuedSecret).toMatch(/^cbk_/);
    // The query token is no declared parameter: 400, and still not logged. The add carries a code
    // that was never sent: 400 two_factor_invalid, and the code still must not be logged.
    expect(vendorRequests.map((r) => r.status)).toEqual([200, 401, 400, 200, 400, 502, 200]);
    expect(output.length).toBeGreaterThan(vendorRequests.length);
  });

  it.each(Object.keys(SECRETS).concat('issuedKey'))('never holds the %s', (name) => {
    const secret = name === 'issuedKey' ? issuedSecret : SECRETS[name as keyof typeof SECRETS];
    const leaking = output.filter((line) => line.includes(secret));
    expect(leaking).toEqual([]);
  });

  it('writes one access line per vendor request, with request id, API id, vendor, status, durations and size', () => {
    const access = lines().filter((line) => line.msg === 'request');
    expect(access.map((line) => line.requestId)).toEqual(vendorRequests.map((r) => r.requestId));
    expect(access[0]).toMatchObject({
      level: 30,
      requestId: vendorRequests[0]?.requestId,
      method: 'GET',
      path: '/accounts/1',
      api: 'GETaccounts/{accountId}',
      vendor: 'acme',
      status: 200,
      durationMs: expect.any(Number),
      upstreamMs: expect.any(Number),
      bytesOut: expect.any(Number),
    });
    expect(access[0]?.upstreamMs as number).toBeLessThanOrEqual(access[0]?.durationMs as number);
    expect(access[1]).toMatchObject({ api: 'GETaccounts/{accountId}', vendor: 'anonymous', status: 401 });
    expect(access[1]?.upstreamMs).toBeUndefined();
    expect(access[3]).toMatchObject({ method: 'POST', api: 'POSTapi/transaction/savings/payment', bytesIn: expect.any(Number) });
  });

  it('logs the failing core call at error level as one line with its request id, code and root cause, without a stack (an expected failure)', () => {
    const failed = output.filter((line) => line.includes('"msg":"request failed"'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0] ?? '{}')).toMatchObject({ level: 50, requestId: vendorRequests[5]?.requestId, code: 'bad_gateway', cause: 'ECONNRESET' });
    expect(failed[0]).not.toMatch(/"stack"|"err"|\\n\s+at /);
  });

  it('counts the bytes out on every access line, buffered, streamed or compressed answers alike', () => {
    const access = lines().filter((line) => line.msg === 'request');
    expect(access.map((line) => [line.status, typeof line.bytesOut === 'number' && line.bytesOut > 0])).toEqual(vendorRequests.map((r) => [r.status, true]));
  });

  it('logs the request Node refused, with its own request id', () => {
    expect(lines().find((line) => line.msg === 'request refused before parsing')).toMatchObject({
      status: 431,
      reason: 'HPE_HEADER_OVERFLOW',
      requestId: expect.any(String),
    });
  });
});
