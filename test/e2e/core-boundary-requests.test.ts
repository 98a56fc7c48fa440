/**
 * The boundary between vendor and core, request side: what reaches the core is exactly what
 * the gateway authorised. The gateway runs in front of the sandbox core behind a raw byte
 * recorder; every case is written on a bare socket, and after each one the recorder must show
 * no more requests than the gateway accepted, no request line hidden in the bytes, no header
 * outside the allow-list, and nothing but reads from the read-only key.
 */
import fc from 'fast-check';
import { createSandboxApp } from '../../src/sandbox/app';
import { createSandboxData, type SandboxData } from '../../src/sandbox/data';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { within } from '../support/within';
import { listenOnLoopback, type Listening } from '../support/listen';
import { rawExchange, rawRequest } from '../support/raw-http';
import { answerFrom, CORE_HEADER_ALLOW_LIST, startRecordingCore, type RecordingCore } from '../support/recording-core';

const READONLY = SANDBOX_KEYS.readonlyPartner;
const DEMO = SANDBOX_KEYS.demo;

const SMUGGLED_DEPOSIT_BODY = '{"cuAccountID":50001,"amount":1234.56,"externalRefNo":"SMUGGLED-2"}';
const SMUGGLED_DEPOSIT = rawRequest(
  [
    'POST /api/transaction/savings/deposit HTTP/1.1',
    'Host: core',
    'X-Vendor-Id: demo-vendor',
    'Content-Type: application/json',
    `Content-Length: ${SMUGGLED_DEPOSIT_BODY.length}`,
  ],
  SMUGGLED_DEPOSIT_BODY,
);
const SMUGGLED_ADD_BODY = '{"CustomerId":1,"PersonId":1,"Name":"Smuggled","AccountNumber":"99999999","SortCode":"99-99-99"}';
const SMUGGLED_ADD = rawRequest(
  ['POST /bankaccounts/add HTTP/1.1', 'Host: core', 'Content-Type: application/json', `Content-Length: ${SMUGGLED_ADD_BODY.length}`],
  SMUGGLED_ADD_BODY,
);
const SMUGGLED_DELETE = rawRequest(['DELETE /customers/10001 HTTP/1.1', 'Host: core']);

function chunked(payload: string): string {
  return `${payload.length.toString(16)}\r\n${payload}\r\n0\r\n\r\n`;
}

/** A GET of one account with the read-only key and the given extra header lines. */
function readonlyGet(extra: readonly string[], target = '/accounts/50001', body = ''): string {
  return rawRequest([`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', `X-Vendor-Token: ${READONLY}`, ...extra], body);
}

describe('requests to the core', () => {
  let data: SandboxData;
  let sandbox: Listening;
  let core: RecordingCore;
  let gateway: TestGateway;

  beforeAll(async () => {
    data = createSandboxData(42);
    sandbox = await listenOnLoopback(createSandboxApp({ data, defaultPageSize: 20, maxPageSize: 100 }));
    core = await startRecordingCore(answerFrom(sandbox.url));
    gateway = await startTestGateway({ core: { url: core.url } });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
    await sandbox.close();
  });
  beforeEach(() => core.reset());

  /** What the recorder must show after any exchange: only what the gateway accepted, and only allowed headers. */
  function expectCoreSawOnly(accepted: number): void {
    expect(core.parsed).toHaveLength(accepted);
    expect(core.requestLinesSeen()).toBe(accepted);
    expect(core.clientErrors).toBe(0);
    expect(core.headersOutside(CORE_HEADER_ALLOW_LIST)).toEqual([]);
  }

  const balance = (): string => JSON.stringify(data.accounts.get(50001));
  const bankAccounts = (): number => data.bankAccounts.size;

  describe('the exploit of the security review', () => {
    it('refuses a GET whose Connection header names Content-Length (400), and the smuggled deposit never reaches the core', async () => {
      const before = balance();
      const exchange = await rawExchange(
        gateway.vendorPort,
        readonlyGet(['Connection: Content-Length', `Content-Length: ${SMUGGLED_DEPOSIT.length}`], '/accounts/50001', SMUGGLED_DEPOSIT),
      );
      expect(exchange.responses.map((r) => r.status)).toEqual([400]);
      expect(JSON.parse(exchange.responses[0]?.body ?? '{}')).toMatchObject({ code: 'invalid_request', errors: [{ field: 'Connection' }] });
      expect(exchange.closed).toBe(true);
      expect(core.rawText()).toBe('');
      expectCoreSawOnly(0);
      expect(balance()).toBe(before);
    });

    it('refuses the chunked form (Connection: Transfer-Encoding), and the smuggled bank-account add never reaches the core', async () => {
      const before = bankAccounts();
      const exchange = await rawExchange(
        gateway.vendorPort,
        readonlyGet(['Connection: Transfer-Encoding', 'Transfer-Encoding: chunked'], '/accounts/50001', chunked(SMUGGLED_ADD)),
      );
      expect(exchange.responses.map((r) => r.status)).toEqual([400]);
      expect(exchange.closed).toBe(true);
      expectCoreSawOnly(0);
      expect(bankAccounts()).toBe(before);
    });

    it('refuses a smuggled DELETE in a GET body, with or without a Connection trick', async () => {
      for (const extra of [['Connection: Content-Length'], []]) {
        const exchange = await rawExchange(
          gateway.vendorPort,
          readonlyGet([...extra, `Content-Length: ${SMUGGLED_DELETE.length}`], '/accounts/50001', SMUGGLED_DELETE),
        );
        expect(exchange.responses.map((r) => r.status)).toEqual([400]);
      }
      expectCoreSawOnly(0);
      expect(data.customers.has(10001)).toBe(true);
    });
  });

  // Each case: the bytes, the statuses the vendor gets, and how many requests the core may parse.
  const refusedFraming: ReadonlyArray<readonly [string, string, readonly number[]]> = [
    ['Connection: Content-Length on a GET with a body', readonlyGet(['Connection: Content-Length', 'Content-Length: 5'], '/accounts/50001', 'hello'), [400]],
    ['Connection: content-length in lower case, no body', readonlyGet(['Connection: content-length']), [400]],
    ['Connection: close, Content-Length', readonlyGet(['Connection: close, Content-Length', 'Content-Length: 5'], '/accounts/50001', 'hello'), [400]],
    [
      'Connection: Transfer-Encoding with a chunked body',
      readonlyGet(['Connection: Transfer-Encoding', 'Transfer-Encoding: chunked'], '/accounts/50001', chunked('hello')),
      [400],
    ],
    ['Connection: Host', readonlyGet(['Connection: Host']), [400]],
    ['Connection: keep-alive,   HOST with spaces and capitals', readonlyGet(['Connection: keep-alive,   HOST']), [400]],
    [
      'a second Connection header naming Transfer-Encoding',
      readonlyGet(['Connection: keep-alive', 'Connection: Transfer-Encoding', 'Transfer-Encoding: chunked'], '/accounts/50001', chunked('hello')),
      [400],
    ],
    [
      'Content-Length and Transfer-Encoding together',
      readonlyGet(['Content-Length: 5', 'Transfer-Encoding: chunked'], '/accounts/50001', chunked('hello')),
      [400],
    ],
    ['two different Content-Length headers', readonlyGet(['Content-Length: 5', 'Content-Length: 6'], '/accounts/50001', 'hello!'), [400]],
    ['two equal Content-Length headers', readonlyGet(['Content-Length: 5', 'Content-Length: 5'], '/accounts/50001', 'hello'), [400]],
    ['a Content-Length list', readonlyGet(['Content-Length: 5, 5'], '/accounts/50001', 'hello'), [400]],
    ['a GET with a plain body', readonlyGet(['Content-Length: 5'], '/accounts/50001', 'hello'), [400]],
    ['a GET with a chunked body', readonlyGet(['Transfer-Encoding: chunked'], '/accounts/50001', chunked('hello')), [400]],
    ['Transfer-Encoding: chunked, identity', readonlyGet(['Transfer-Encoding: chunked, identity'], '/accounts/50001', chunked('hello')), [400]],
    ['Transfer-Encoding: xchunked', readonlyGet(['Transfer-Encoding: xchunked'], '/accounts/50001', chunked('hello')), [400]],
    ['Transfer-Encoding with a space before the colon', readonlyGet(['Transfer-Encoding : chunked'], '/accounts/50001', chunked('hello')), [400]],
    ['Transfer-Encoding with a vertical tab', readonlyGet(['Transfer-Encoding: \u000bchunked'], '/accounts/50001', chunked('hello')), [400]],
    ['two Transfer-Encoding headers', readonlyGet(['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'], '/accounts/50001', chunked('hello')), [400]],
    ['a header line folded onto the next (obs-fold)', readonlyGet(['X-Pad: a', ' Transfer-Encoding: chunked'], '/accounts/50001', chunked('hello')), [400]],
    ['a DELETE with a body', rawRequest(['DELETE /customers/1 HTTP/1.1', 'Host: x', `X-Vendor-Token: ${READONLY}`, 'Content-Length: 2'], '{}'), [400]],
    ['an absolute-form target with userinfo', readonlyGet([], 'http://user:secret@evil.example/accounts/50001'), [400]],
    ['a target with a fragment', readonlyGet([], '/accounts/50001#fragment'), [400]],
    ['a query parameter the route does not declare', readonlyGet([], '/accounts/50001?expand=all'), [400]],
    ['a declared query parameter of the wrong type', readonlyGet([], '/accounts?page=abc'), [400]],
    ['a declared query parameter given twice', readonlyGet([], '/accounts?page=1&page=2'), [400]],
    ['an encoded slash in a path parameter (no route has that path)', readonlyGet([], '/accounts/..%2f..%2fapi%2ftransaction%2fsavings%2fdeposit'), [404]],
    ['an encoded dot-dot path parameter (no route has that path)', readonlyGet([], '/accounts/%2e%2e'), [404]],
    ['a path parameter with characters outside the safe set', readonlyGet([], '/accounts/50001%0d%0aX-Injected:%201'), [400]],
    [
      'a write with the read-only key',
      rawRequest(['POST /customers HTTP/1.1', 'Host: x', `X-Vendor-Token: ${READONLY}`, 'Content-Type: application/json', 'Content-Length: 2'], '{}'),
      [403],
    ],
  ];

  it.each(refusedFraming)('refuses %s, and the core sees nothing', async (_name, bytes, statuses) => {
    const exchange = await rawExchange(gateway.vendorPort, bytes);
    expect(exchange.responses.map((r) => r.status)).toEqual(statuses);
    expect(exchange.responses.every((r) => !/at .*\.(ts|js):\d+/.test(r.body))).toBe(true);
    expectCoreSawOnly(0);
  });

  // Headers that ask a core or a proxy in front of it to route, rewrite or trust differently.
  const overrideHeaders = [
    'X-HTTP-Method-Override: POST',
    'X-HTTP-Method: DELETE',
    'X-Method-Override: PUT',
    'X-Original-URL: /api/transaction/savings/deposit',
    'X-Rewrite-URL: /api/transaction/savings/deposit',
    'X-Forwarded-Prefix: /admin',
    'True-Client-IP: 10.0.0.1',
    'X-Client-IP: 10.0.0.1',
    'X-Real-IP: 10.0.0.1',
    'Via: 1.1 trusted-proxy',
    'Forwarded: for=10.0.0.1;host=evil.example;proto=https',
    'x_vendor_id: demo-vendor',
    'X_Forwarded_Host: evil.example',
    'Authorization: Bearer vendor-side',
    'Cookie: session=1',
    'Proxy-Authorization: Basic Zm9vOmJhcg==',
    'Upgrade: h2c',
    'TE: trailers',
    'Expect: 100-continue',
  ];

  it.each(overrideHeaders)('answers a read carrying "%s" as a plain read: the core gets none of it', async (line) => {
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet([line]));
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expectCoreSawOnly(1);
    const seen = core.parsed[0];
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toBe('/accounts/50001');
    expect(Object.values(seen?.headers ?? {}).join('\n')).not.toMatch(
      /evil\.example|10\.0\.0\.1|demo-vendor|vendor-side|session=1|trusted-proxy|\/admin|deposit/,
    );
  });

  it('tells the core who called, never what the vendor claims: identity and forwarding from the gateway', async () => {
    const exchange = await rawExchange(
      gateway.vendorPort,
      readonlyGet(
        ['X-Vendor-Id: demo-vendor', 'X-Vendor-User: demo.teller', 'X-Forwarded-For: 6.6.6.6', 'X-Forwarded-Host: evil.example', 'X-Forwarded-Proto: https'],
        '/accounts/50001',
      ),
    );
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expectCoreSawOnly(1);
    expect(core.parsed[0]?.headers).toMatchObject({
      'x-vendor-id': 'readonly-partner',
      'x-vendor-user': 'partner.reader',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': `127.0.0.1:${gateway.vendorPort}`,
      'x-forwarded-proto': 'http',
    });
  });

  it('takes an absolute-form target but sends the core only the route path', async () => {
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet([], 'http://evil.example:9999/accounts/50001'));
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expectCoreSawOnly(1);
    expect(core.parsed[0]?.url).toBe('/accounts/50001');
    expect(core.rawText()).not.toContain('evil.example');
  });

  it('re-encodes the declared query parameters in their canonical form', async () => {
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet([], '/accounts?PAGE=0002&sort=%62alance&paged=TRUE&pageSize=5'));
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expectCoreSawOnly(1);
    expect(core.parsed[0]?.url).toBe('/accounts?page=2&sort=balance&paged=true&pageSize=5');
  });

  it('sends the period parameters in the core datetime form: an offset converted to UTC, fractions dropped, a date kept', async () => {
    const target = '/transactions/7001/between?from=2024-03-01T09:30:00.1234567%2B01:00&to=2024-03-31';
    await rawExchange(gateway.vendorPort, readonlyGet([], target));
    // Whether member 7001 exists is the core's business; what it was asked is ours.
    expect(core.parsed.at(-1)?.url).toBe('/transactions/7001/between?from=2024-03-01T08%3A30%3A00&to=2024-03-31');
  });

  it('sends a GET with Content-Length: 0 without any framing header', async () => {
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet(['Content-Length: 0']));
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expectCoreSawOnly(1);
    expect(core.parsed[0]?.headers['content-length']).toBeUndefined();
    expect(core.parsed[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('treats Transfer_Encoding as an unknown header: the bytes after the read are no request, and no deposit reaches the core', async () => {
    const before = balance();
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet(['Transfer_Encoding: chunked'], '/accounts/50001', chunked(SMUGGLED_DEPOSIT)));
    // Node refuses the bytes that follow the read; the read itself was valid and is with the core,
    // so its answer is the only one sent, and then the connection closes.
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expect(exchange.closed).toBe(true);
    await within(2000, () => core.parsed.length === 1);
    expectCoreSawOnly(1);
    expect(core.parsed[0]).toMatchObject({ method: 'GET', url: '/accounts/50001', body: '' });
    expect(balance()).toBe(before);
  });

  it('answers two pipelined reads in order, and the core parses exactly two', async () => {
    const exchange = await rawExchange(gateway.vendorPort, readonlyGet([]) + readonlyGet([], '/accounts/50002'));
    expect(exchange.responses.map((r) => r.status)).toEqual([200, 200]);
    expectCoreSawOnly(2);
    expect(core.parsed.map((r) => r.url)).toEqual(['/accounts/50001', '/accounts/50002']);
  });

  it('refuses a money movement whose target carries a query, an authority and a fragment: nothing is posted', async () => {
    const before = balance();
    const body = '{"cuAccountID":50001,"amount":10.00,"externalRefNo":"Q-1"}';
    for (const target of [
      '/api/transaction/savings/deposit?x=1',
      'http://evil.example:9999/api/transaction/savings/deposit?x=1#frag',
      '/api/transaction/savings/deposit#frag',
    ]) {
      const exchange = await rawExchange(
        gateway.vendorPort,
        rawRequest(
          [
            `POST ${target} HTTP/1.1`,
            'Host: x',
            `X-Vendor-Token: ${DEMO}`,
            'Content-Type: application/json',
            'Idempotency-Key: q-1',
            `Content-Length: ${body.length}`,
          ],
          body,
        ),
      );
      expect(exchange.responses.map((r) => r.status)).toEqual([400]);
    }
    expectCoreSawOnly(0);
    expect(balance()).toBe(before);
  });

  it('lets the read-only key make the core see nothing but reads of paths and queries the gateway built (generated header sets)', async () => {
    const names = [
      'Connection',
      'Content-Length',
      'Transfer-Encoding',
      'Host',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'X-Vendor-Id',
      'X-HTTP-Method-Override',
      'X-Original-URL',
      'Forwarded',
      'Via',
      'Upgrade',
      'TE',
      'Keep-Alive',
      'Trailer',
      'x_vendor_id',
      'Cookie',
      'X-Extra',
    ];
    const values = [
      'Content-Length',
      'Transfer-Encoding',
      'chunked',
      'close',
      'keep-alive',
      'POST',
      '0',
      '5',
      'evil.example',
      '/api/transaction/savings/deposit',
      'demo-vendor',
      'identity',
      'h2c, Host',
    ];
    const targets = ['/accounts/50001', '/accounts?page=2', '/customers/10001', '/accounts/50001?x=1', 'http://evil.example/accounts/50001'];
    const runs: Array<{ id: string; refused: boolean; ok: boolean }> = [];
    core.reset();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...values)), { maxLength: 5, selector: ([name]) => name.toLowerCase() }),
        fc.constantFrom(...targets),
        fc.constantFrom('', 'hello', SMUGGLED_DEPOSIT),
        async (headers, target, body) => {
          const id = `run-${runs.length}`;
          const lines = [`X-Request-Id: ${id}`, ...headers.filter(([name]) => name !== 'Host').map(([name, value]) => `${name}: ${value}`)];
          const exchange = await rawExchange(gateway.vendorPort, readonlyGet(lines, target, body), { settleMs: 50, timeoutMs: 2000 });
          // The pipeline's own answer to this request carries its id (Node's answer to bytes it cannot parse does not).
          const answer = exchange.responses.find((r) => r.headers['x-request-id'] === id);
          runs.push({ id, refused: answer !== undefined && answer.status >= 400, ok: answer?.status === 200 });
        },
      ),
      { numRuns: 60 },
    );
    // A read Node had dispatched before it refused the bytes after it may reach the core late.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(core.requestLinesSeen()).toBe(core.parsed.length);
    expect(core.clientErrors).toBe(0);
    expect(core.headersOutside(CORE_HEADER_ALLOW_LIST)).toEqual([]);
    for (const seen of core.parsed) {
      expect(seen).toMatchObject({ method: 'GET', body: '' });
      expect(['/accounts/50001', '/accounts?page=2', '/customers/10001']).toContain(seen.url);
      expect(seen.headers['x-vendor-id']).toBe('readonly-partner');
    }
    for (const run of runs) {
      const reached = core.parsed.filter((seen) => seen.headers['x-request-id'] === run.id).length;
      // Refused by the pipeline: nothing reached the core; otherwise at most the one read.
      expect(reached).toBeLessThanOrEqual(run.refused ? 0 : 1);
    }
    expect(runs.filter((run) => run.ok).length).toBeGreaterThan(0);
  });
});
