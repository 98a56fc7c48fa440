/**
 * The boundary between vendor and core, answer side and trust: what the vendor gets back from
 * the core is an allow-list; a core failure never shows its insides; a buffered answer has a
 * size cap; the forwarding headers the core reads come from the gateway (trusted proxies,
 * `server.publicUrl`), never from a vendor; and a vendor's slow upload is not the core's time.
 */
import http from 'node:http';
import { createSandboxApp } from '../../src/sandbox/app';
import { createSandboxData } from '../../src/sandbox/data';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { testKey, testVendor, writeAccessFile } from '../support/access-fixture';
import { SANDBOX_KEYS, checkedAgainstOpenApi, startTestGateway, type TestGateway } from '../support/gateway';
import { listenOnLoopback, type Listening } from '../support/listen';
import { rawExchange, rawRequest } from '../support/raw-http';
import { answerFrom, echoAnswer, startRecordingCore, type CoreResponder, type RecordingCore } from '../support/recording-core';
import { within } from '../support/within';
import { call } from '../support/http-call';

const DEMO = { 'X-Vendor-Token': SANDBOX_KEYS.demo };
const DEPOSIT = '/api/transaction/savings/deposit';
const DEPOSIT_BODY = '{"cuAccountID":50001,"amount":10.00,"externalRefNo":"B-1"}';

/** The core's answer for the next request: switched by each test. */
let respond: CoreResponder = echoAnswer;

describe("the core's answers", () => {
  let core: RecordingCore;
  let gateway: TestGateway;
  const logLines: string[] = [];

  beforeAll(async () => {
    core = await startRecordingCore((request, res) => respond(request, res));
    const config = testConfig({ core: { url: core.url, maxBufferedResponseBytes: 2048 }, log: { level: 'debug' } });
    const running = await checkedAgainstOpenApi(
      await startGateway(config, createLogger('debug', { write: (chunk: string) => logLines.push(...chunk.split('\n').filter(Boolean)) })),
      config,
    );
    gateway = Object.assign(running, { url: `http://127.0.0.1:${running.vendorPort}`, statusUrl: `http://127.0.0.1:${running.statusPort}`, config });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });
  beforeEach(() => core.reset());

  it('warns at start that, with a real core and neither server.publicUrl nor a trusted proxy, the links it writes name its own address', () => {
    expect(logLines.some((line) => /"level":40/.test(line) && line.includes('server.publicUrl is not set'))).toBe(true);
  });

  it("replaces a core 5xx on a streamed route with 502 bad_gateway: no stack trace, cookie or internal header, the core's body logged at debug", async () => {
    respond = (_request, res) => {
      res.writeHead(500, { 'content-type': 'text/plain', 'set-cookie': 'core-session=abc', 'x-core-host': 'cbs-node-7.internal' });
      res.end('java.lang.NullPointerException at com.bank.core.Accounts.read(Accounts.java:42) host=cbs-node-7.internal');
    };
    const answer = await call(`${gateway.url}/accounts/50001`, { headers: DEMO });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'bad_gateway', status: 502 });
    expect(answer.body).not.toMatch(/NullPointer|cbs-node|Accounts\.java/);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-core-host']).toBeUndefined();
    await within(1000, () => logLines.some((line) => line.includes('NullPointerException')));
    const logged = JSON.parse(logLines.find((line) => line.includes('NullPointerException')) ?? '{}') as Record<string, unknown>;
    expect(logged).toMatchObject({ requestId: answer.headers['x-request-id'], coreStatus: 500 });
  });

  it("passes back only the allow-listed headers of the core's answer, and never lets customer data be cached", async () => {
    respond = (_request, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': '19',
        etag: '"v1"',
        'cache-control': 'public, max-age=3600',
        'set-cookie': 'core-session=abc',
        'x-core-node': 'cbs-node-7',
        server: 'CoreBank/9.1',
        via: '1.1 core-lb',
        'x-powered-by': 'CoreBank',
        'access-control-allow-origin': '*',
      });
      res.end('{"AccountId":50001}');
    };
    const answer = await call(`${gateway.url}/accounts/50001`, { headers: DEMO });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('{"AccountId":50001}');
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', etag: '"v1"', 'cache-control': 'no-store', 'content-length': '19' });
    for (const name of ['set-cookie', 'x-core-node', 'server', 'via', 'x-powered-by', 'access-control-allow-origin'])
      expect(answer.headers[name]).toBeUndefined();
  });

  it("makes the core's strong ETag weak on an answer the gateway compresses, and keeps it on the identity answer", async () => {
    const list = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ AccountId: 50_000 + i, Description: 'Share Account' })));
    respond = (_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(list)), etag: '"v1"' });
      res.end(list);
    };
    const gzip = await call(`${gateway.url}/accounts`, { headers: { ...DEMO, 'Accept-Encoding': 'gzip' } });
    expect([gzip.status, gzip.headers['content-encoding'], gzip.headers.etag]).toEqual([200, 'gzip', 'W/"v1"']);
    const identity = await call(`${gateway.url}/accounts`, { headers: DEMO });
    expect([identity.status, identity.headers['content-encoding'], identity.headers.etag]).toEqual([200, undefined, '"v1"']);
  });

  it('tells a money movement whose core failed with a 5xx that its outcome is unknown, and never sends that key again', async () => {
    respond = (_request, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<h1>core down for maintenance on cbs-node-7</h1>');
    };
    const headers = { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': 'five-hundred-1' };
    const first = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
    expect(first.status).toBe(502);
    expect(JSON.parse(first.body).detail).toMatch(/outcome is unknown/);
    expect(first.body).not.toContain('cbs-node-7');
    const retry = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
    expect(JSON.parse(retry.body)).toMatchObject({ code: 'outcome_unknown' });
    expect(core.parsed).toHaveLength(1);
  });

  it.each([
    ['a path that reads as another host', 201, '/.//evil.example/phish', undefined],
    ['an absolute URL to another host', 201, 'https://evil.example/phish', undefined],
    ['a refusal pointing somewhere', 400, '/accounts/50001', undefined],
    ['a created record on the core', 201, '/bankaccounts/7', '/bankaccounts/7'],
  ])(
    "passes a money movement's Location only as a gateway path on a 201, for the first answer and its replay (%s)",
    async (_label, status, location, expected) => {
      respond = (_request, res) => {
        res.writeHead(status, { 'content-type': 'application/json', location });
        res.end('{"receiptNo":0,"errorMessage":null}');
      };
      const headers = { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': `location-${status}-${location}` };
      const first = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
      expect(first.status).toBe(status);
      expect(first.headers.location).toBe(expected);
      if (status === 201) {
        const replay = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.headers.location).toBe(expected);
      }
    },
  );

  it('answers a core 4xx on a bank-account write that is not a DTO as a catalogue problem: no HTML, host or path, with code and requestId', async () => {
    const account = { Id: 7, CustomerId: 10004, PersonId: 10004, Name: 'A TESTER', AccountNumber: '87654321', SortCode: '200000', DateClosed: null };
    const refusals: Array<[string, number, string]> = [
      [
        'text/html',
        400,
        '<html><body><h1>Bad Request</h1><pre>at Cbs.BankAccounts.Update() in D:\\cbs\\src\\BankAccounts.cs:line 88 on cbs-app-03.internal</pre></body></html>',
      ],
      ['application/problem+json', 404, '{"type":"about:blank","title":"Not Found","status":404}'],
    ];
    for (const [contentType, status, text] of refusals) {
      respond = (request, res) => {
        if (request.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([account]));
        else res.writeHead(status, { 'content-type': contentType }).end(text);
      };
      const rename = { CustomerId: 10004, PersonId: 10004, Name: 'RENAMED', AccountNumber: '87654321', SortCode: '200000' };
      const answer = await call(`${gateway.url}/bankaccounts/7`, {
        method: 'PUT',
        headers: { ...DEMO, 'content-type': 'application/json' },
        body: JSON.stringify(rename),
      });
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.body)).toMatchObject({ code: status === 404 ? 'not_found' : 'invalid_request', requestId: answer.headers['x-request-id'] });
      expect(answer.body).not.toMatch(/<html|cbs-app|BankAccounts\.cs|about:blank/);
    }
  });

  it.each(['7e0', '0x7', '7.0', '0b111'])(
    'refuses PUT /bankaccounts/%s with 400 naming the path id: the core never gets a write for another spelling of account 7',
    async (pathId) => {
      const account = { Id: 7, CustomerId: 10004, PersonId: 10004, Name: 'A TESTER', AccountNumber: '87654321', SortCode: '200000', DateClosed: null };
      respond = (request, res) => {
        if (request.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([account]));
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(account));
      };
      const rename = { CustomerId: 10004, PersonId: 10004, Name: 'RENAMED', AccountNumber: '87654321', SortCode: '200000' };
      const answer = await call(`${gateway.url}/bankaccounts/${pathId}`, {
        method: 'PUT',
        headers: { ...DEMO, 'content-type': 'application/json' },
        body: JSON.stringify(rename),
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_request', errors: [{ field: 'bankaccountid' }] });
      expect(core.parsed.filter((request) => request.method === 'PUT')).toEqual([]);
    },
  );

  it('answers a core 4xx on a receipt as the receipt with errorMessage and the problem alongside, never its HTML, and keeps an override', async () => {
    respond = (_request, res) => {
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end('<html><pre>System.NullReferenceException at D:\\cbs\\Receipts.cs:42 on cbs-app-03.internal</pre></html>');
    };
    const headers = { ...DEMO, 'content-type': 'application/json' };
    const refused = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers: { ...headers, 'Idempotency-Key': 'html-400' }, body: DEPOSIT_BODY });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body)).toMatchObject({
      code: 'invalid_request',
      requestId: refused.headers['x-request-id'],
      errorMessage: expect.any(String),
      externalRefNo: 'B-1',
    });
    expect(refused.body).not.toMatch(/<html|cbs-app|Receipts\.cs|NullReference/);

    const override = { hasOverride: true, transactionOverrides: [{ cuTransactionOverrideID: 9, description: 'Large deposit' }] };
    respond = (_request, res) => {
      res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify(override));
    };
    const needsOverride = await call(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { ...headers, 'Idempotency-Key': 'override-422' },
      body: DEPOSIT_BODY,
    });
    expect(needsOverride.status).toBe(422);
    expect(JSON.parse(needsOverride.body)).toMatchObject({
      code: 'unprocessable_content',
      requestId: needsOverride.headers['x-request-id'],
      hasOverride: true,
      transactionOverrides: [{ cuTransactionOverrideID: 9 }],
    });
  });

  const XML_DEPOSIT =
    '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><CUAccountID>50001</CUAccountID><Amount>10.00</Amount><ExternalRefNo>B-1</ExternalRefNo></ReceiptPaymentDto>';
  const INSIDES = /stackTrace|StackTrace|C:\\src|sqlText|select \* from|internalHost|<Item>/;
  /** The answer with the problem's own `errors` taken out: what is left must carry no member of the core's own. */
  const withoutProblemErrors = (text: string): string => text.replace(/<errors><i>.*?<\/errors>(?=<\/problem>)/s, '');

  it.each([
    ['a 400 JSON with a message and a stack trace', 400, { message: 'Npgsql failed', stackTrace: 'at X() in C:\\src\\x.cs' }],
    ['a 422 JSON with only errors', 422, { errors: [{ field: 'x', message: 'upstream refused' }] }],
    ['a 409 JSON with neither errorMessage nor overrides', 409, { internalHost: 'db01.corp', sqlText: 'select * from receipts' }],
  ])("answers %s on a receipt as a catalogue problem, never echoing the core's other members (JSON and XML)", async (_label, status, coreBody) => {
    respond = (_request, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(coreBody));
    const json = await call(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': `odd-json-${status}` },
      body: DEPOSIT_BODY,
    });
    expect(json.status).toBe(status);
    expect(json.body).not.toMatch(INSIDES);
    const answer = JSON.parse(json.body) as Record<string, unknown>;
    expect(answer).toMatchObject({ requestId: json.headers['x-request-id'], status });
    expect(answer.message).toBeUndefined();
    expect(answer.stackTrace).toBeUndefined();
    const xml = await call(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/xml', accept: 'application/xml', 'Idempotency-Key': `odd-xml-${status}` },
      body: XML_DEPOSIT,
    });
    expect(xml.status).toBe(status);
    expect(xml.body).not.toMatch(INSIDES);
    expect(xml.body).toContain('<requestId>');
    expect(withoutProblemErrors(xml.body)).not.toMatch(/<message>|<errors>/);
  });

  it("keeps only the receipt's own members of a core refusal that is a receipt, nested overrides included (JSON and XML)", async () => {
    const refusal = {
      errorMessage: 'Duplicate receipt',
      receiptNo: 0,
      internalHost: 'db01.corp',
      stackTrace: 'at X() in C:\\src\\x.cs',
      transactionOverrides: [{ cuTransactionOverrideID: 9, description: 'Large deposit', sqlText: 'select * from overrides' }],
    };
    respond = (_request, res) => res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify(refusal));
    const json = await call(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': 'receipt-409-json' },
      body: DEPOSIT_BODY,
    });
    expect(json.status).toBe(409);
    expect(JSON.parse(json.body)).toMatchObject({
      code: 'conflict',
      errorMessage: 'Duplicate receipt',
      transactionOverrides: [{ cuTransactionOverrideID: 9, description: 'Large deposit' }],
    });
    expect(json.body).not.toMatch(INSIDES);
    const xml = await call(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/xml', accept: 'application/xml', 'Idempotency-Key': 'receipt-409-xml' },
      body: XML_DEPOSIT,
    });
    expect(xml.status).toBe(409);
    expect(xml.body).toContain('<ErrorMessage>Duplicate receipt</ErrorMessage>');
    expect(xml.body).toContain('<Description>Large deposit</Description>');
    expect(xml.body).not.toMatch(INSIDES);
  });

  it.each([
    ['an HTML 200', 200, { 'content-type': 'text/html' }, '<html>posted on core-01.internal</html>'],
    ['a text/plain 201', 201, { 'content-type': 'text/plain' }, 'created on core-01.internal'],
    ['a 200 with no content type', 200, {}, 'core-01.internal'],
    ['an application/x-core-dump 200', 200, { 'content-type': 'application/x-core-dump' }, 'db01 dump'],
    ['a 302 with an HTML body', 302, { 'content-type': 'text/html', location: 'http://core-01.internal:8080/admin' }, '<a>core-01.internal</a>'],
    ['a JSON 200 that is no object', 200, { 'content-type': 'application/json' }, '"posted"'],
  ])("answers %s on a receipt as 502 with the outcome unknown, never stored as the key's success", async (label, status, headers, text) => {
    respond = (_request, res) => res.writeHead(status, headers).end(text);
    const request = {
      method: 'POST',
      headers: { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': `not-a-receipt-${label}` },
      body: DEPOSIT_BODY,
    };
    const first = await call(`${gateway.url}${DEPOSIT}`, request);
    expect(first.status).toBe(502);
    expect(JSON.parse(first.body)).toMatchObject({ code: 'bad_gateway', requestId: first.headers['x-request-id'] });
    expect(JSON.parse(first.body).detail).toMatch(/outcome is unknown/);
    expect(first.body).not.toMatch(/core-01\.internal|db01 dump/);
    expect(first.headers.location).toBeUndefined();
    const retry = await call(`${gateway.url}${DEPOSIT}`, request);
    expect(JSON.parse(retry.body)).toMatchObject({ code: 'outcome_unknown' });
    expect(core.parsed).toHaveLength(1);
  });

  it.each([
    ['an HTML page', 'text/html', '<html>updated on core-01.internal</html>', /<html|core-01/],
    // lossless-json refuses a key twice with two values; the text as it came carries what the core echoed.
    ['JSON naming a key twice', 'application/json', '{"Id":7,"TempToken":"SECRET-TT","OverridePassword":"SECRET-PW","Id":8}', /SECRET/],
  ])('answers a 200 to a bank-account write that is %s as 502 bad_gateway, never its text', async (_label, contentType, text, leak) => {
    const account = { Id: 7, CustomerId: 10004, PersonId: 10004, Name: 'A TESTER', AccountNumber: '87654321', SortCode: '200000', DateClosed: null };
    respond = (request, res) => {
      if (request.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([account]));
      else res.writeHead(200, { 'content-type': contentType }).end(text);
    };
    const rename = { CustomerId: 10004, PersonId: 10004, Name: 'RENAMED', AccountNumber: '87654321', SortCode: '200000' };
    const answer = await call(`${gateway.url}/bankaccounts/7`, {
      method: 'PUT',
      headers: { ...DEMO, 'content-type': 'application/json' },
      body: JSON.stringify(rename),
    });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'bad_gateway' });
    expect(answer.body).not.toMatch(leak);
  });

  it.each([
    ['with a Content-Length', true],
    ['chunked', false],
  ])('answers 502 to a buffered answer over core.maxBufferedResponseBytes (%s), and never sends that key again', async (_label, declared) => {
    const big = JSON.stringify({ receiptNumber: 1, padding: 'x'.repeat(5000) });
    respond = (_request, res) => {
      res.writeHead(
        200,
        declared ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) } : { 'content-type': 'application/json' },
      );
      if (declared) res.end(big);
      else for (let i = 0; i < big.length; i += 500) res.write(big.slice(i, i + 500));
      if (!declared) res.end();
    };
    const headers = { ...DEMO, 'content-type': 'application/json', 'Idempotency-Key': `too-large-${String(declared)}` };
    const first = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
    expect(first.status).toBe(502);
    expect(JSON.parse(first.body)).toMatchObject({ code: 'bad_gateway' });
    expect(first.body).not.toContain('padding');
    const retry = await call(`${gateway.url}${DEPOSIT}`, { method: 'POST', headers, body: DEPOSIT_BODY });
    expect(JSON.parse(retry.body)).toMatchObject({ code: 'outcome_unknown' });
    expect(core.parsed).toHaveLength(1);
  });
});

describe('where a call came from, as the core is told', () => {
  let sandbox: Listening;
  let core: RecordingCore;

  beforeAll(async () => {
    sandbox = await listenOnLoopback(createSandboxApp({ data: createSandboxData(42), defaultPageSize: 20, maxPageSize: 100 }));
    core = await startRecordingCore(answerFrom(sandbox.url));
  });
  afterAll(async () => {
    await core.close();
    await sandbox.close();
  });
  beforeEach(() => core.reset());

  const spoofed = {
    ...DEMO,
    Host: 'evil.example',
    'X-Forwarded-For': '6.6.6.6, 7.7.7.7',
    'X-Forwarded-Host': 'evil.example, api.bank.example',
    'X-Forwarded-Proto': 'https',
  };

  async function forwardedSeen(overrides: Parameters<typeof startTestGateway>[0]): Promise<{ seen: http.IncomingHttpHeaders; page: string; port: number }> {
    const gateway = await startTestGateway({ core: { url: core.url }, ...overrides });
    try {
      const answer = await call(`${gateway.url}/banks?paged=true&pageSize=2`, { headers: spoofed });
      expect(answer.status).toBe(200);
      return { seen: core.parsed[0]?.headers ?? {}, page: answer.body, port: gateway.vendorPort };
    } finally {
      await gateway.stop();
    }
  }

  it('believes no forwarded header and no Host by default: the listener and the socket say where the call came from', async () => {
    const { seen, page, port } = await forwardedSeen({});
    expect(seen).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': `127.0.0.1:${port}`, 'x-forwarded-proto': 'http' });
    expect(page).not.toContain('evil.example');
    expect(page).toContain(`http://127.0.0.1:${port}/banks?`);
  });

  it('believes X-Forwarded-* from a trusted proxy: the client before it, and the host and scheme that proxy wrote last', async () => {
    const { seen, page } = await forwardedSeen({ server: { trustedProxies: ['127.0.0.0/8'] } });
    expect(seen).toMatchObject({ 'x-forwarded-for': '7.7.7.7', 'x-forwarded-host': 'api.bank.example', 'x-forwarded-proto': 'https' });
    expect(page).toContain('https://api.bank.example/banks?');
    expect(page).not.toContain('evil.example');
  });

  it('ignores X-Forwarded-* from an address outside server.trustedProxies', async () => {
    const { seen, port } = await forwardedSeen({ server: { trustedProxies: ['10.0.0.0/8'] } });
    expect(seen).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': `127.0.0.1:${port}`, 'x-forwarded-proto': 'http' });
  });

  it('takes scheme and host from server.publicUrl when set, whatever a proxy or vendor says', async () => {
    const { seen, page } = await forwardedSeen({ server: { trustedProxies: ['127.0.0.0/8'], publicUrl: 'https://gateway.bank.example' } });
    expect(seen).toMatchObject({ 'x-forwarded-for': '7.7.7.7', 'x-forwarded-host': 'gateway.bank.example', 'x-forwarded-proto': 'https' });
    expect(page).toContain('https://gateway.bank.example/banks?');
  });
});

describe("a vendor's slow upload", () => {
  const writer = testKey('k-writer', 'writer');
  let core: RecordingCore;
  let gateway: TestGateway;

  beforeAll(async () => {
    core = await startRecordingCore();
    const access = writeAccessFile({
      vendors: [testVendor({ id: 'acme', name: 'Acme', points: 10_000, licences: [{ id: 'l', api: '*' }], keys: [writer.record] })],
      users: [{ id: 'writer', permissions: [{ id: 'p', api: '*' }] }],
    });
    gateway = await startTestGateway({
      // headersTimeoutMs as long as the request timeout: the status port shares these limits, and on a
      // loaded CI machine a 500 ms headers timeout answered the health read itself 408, with no body.
      server: { requestTimeoutMs: 1000, headersTimeoutMs: 1000 },
      core: { url: core.url, breakers: { resources: { timeoutMs: 200, volumeThreshold: 1, errorThresholdPercentage: 1 } } },
      access: { file: access },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });

  /** A POST whose declared body stops after its first byte; resolves with the status the gateway sent. */
  function trickle(): Promise<number> {
    const body = '{"Name":"Ada Lovelace"}';
    return rawExchange(
      gateway.vendorPort,
      rawRequest(
        ['POST /customers HTTP/1.1', 'Host: x', `X-Vendor-Token: ${writer.secret}`, 'Content-Type: application/json', `Content-Length: ${body.length}`],
        body.slice(0, 1),
      ),
      { timeoutMs: 4000 },
    ).then((exchange) => exchange.responses[0]?.status ?? 0);
  }

  it("answers 408 once server.requestTimeoutMs is over, never calls the core, and leaves the core's breaker closed", async () => {
    const statuses = await Promise.all([trickle(), trickle(), trickle()]);
    expect(statuses).toEqual([408, 408, 408]);
    expect(core.parsed).toHaveLength(0);
    const ready = await call(`${gateway.statusUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect((JSON.parse(ready.body) as { breakers: Record<string, string> }).breakers.resources).toBe('closed');
    const next = await call(`${gateway.url}/customers`, {
      method: 'POST',
      headers: { 'X-Vendor-Token': writer.secret, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(next.status).toBe(200);
    expect(core.parsed).toHaveLength(1);
  });
});
