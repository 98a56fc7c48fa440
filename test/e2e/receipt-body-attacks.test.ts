/**
 * Hostile receipt bodies against the body step in a real Express app on a loopback socket
 * (request context, route match, body step, error handler: the gateway's own steps). Each
 * must be answered 400, 413 or 415 fast (goal 50 ms), the server must keep serving, and nothing
 * may reach Object.prototype.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { RouteMatcher } from '../../src/catalogue/matcher';
import { ROUTES } from '../../src/catalogue/api-catalogue';
import { loadReceiptEnums } from '../../src/contracts/enums';
import { createBodyContracts } from '../../src/contracts/registry';
import { createLogger } from '../../src/logging/logger';
import { context } from '../../src/request/context';
import { createErrorHandler } from '../../src/request/error-handler';
import { body } from '../../src/policies/body/body';
import { bodyConfigSchema } from '../../src/policies/body/body.schema';
import { requestContext } from '../../src/policies/request-context/request-context';
import { requestContextSchema } from '../../src/policies/request-context/request-context.schema';
import { routeMatch } from '../../src/policies/route-match/route-match';

// The goal is 50 ms (met when this suite runs alone on our 2-core machines); the test allows 40
// times that, since a busy CI machine took 695 ms for the 10,000-deep case, and still catches any
// case that expands, backtracks or waits (those take seconds, not milliseconds).
const BUDGET_MS = 2000;
const DEPOSIT = '/api/transaction/savings/deposit';
const PAYMENT = '/api/transaction/savings/payment';

interface Attack {
  readonly name: string;
  readonly path?: string;
  readonly contentType: string;
  readonly body: () => string | Buffer;
  readonly chunked?: boolean;
  readonly expected: number;
}

const billionLaughs =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
  ']><ReceiptPaymentDto><Notes>&lol9;</Notes></ReceiptPaymentDto>';

const ATTACKS: Attack[] = [
  { name: 'billion laughs', contentType: 'application/xml', body: () => billionLaughs, expected: 400 },
  {
    name: 'external entity (XXE)',
    contentType: 'application/xml',
    body: () => '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ReceiptPaymentDto><Notes>&xxe;</Notes></ReceiptPaymentDto>',
    expected: 400,
  },
  {
    name: 'two DOCTYPEs',
    contentType: 'text/xml',
    body: () => '<!DOCTYPE a><!DOCTYPE b><ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount></ReceiptPaymentDto>',
    expected: 400,
  },
  {
    name: 'parameter entity without DOCTYPE',
    contentType: 'application/xml',
    body: () => '<ReceiptPaymentDto><!ENTITY % p SYSTEM "http://127.0.0.1:9/x">%p;</ReceiptPaymentDto>',
    expected: 400,
  },
  {
    name: 'a million &#65;',
    contentType: 'application/xml',
    body: () => `<ReceiptPaymentDto><Notes>${'&#65;'.repeat(1_000_000)}</Notes></ReceiptPaymentDto>`,
    expected: 413,
  },
  {
    name: 'a million &#65; sent chunked',
    contentType: 'application/xml',
    body: () => `<ReceiptPaymentDto><Notes>${'&#65;'.repeat(1_000_000)}</Notes></ReceiptPaymentDto>`,
    chunked: true,
    expected: 413,
  },
  {
    name: '&#9999999; (beyond Unicode)',
    contentType: 'application/xml',
    body: () => '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Notes>&#9999999;</Notes></ReceiptPaymentDto>',
    expected: 400,
  },
  {
    name: '&#0; (a forbidden character)',
    contentType: 'application/xml',
    body: () => '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Notes>&#0;</Notes></ReceiptPaymentDto>',
    expected: 400,
  },
  { name: '<__proto__> as the root', contentType: 'application/xml', body: () => '<__proto__><polluted>yes</polluted></__proto__>', expected: 400 },
  {
    name: '<__proto__> inside the receipt',
    contentType: 'application/xml',
    body: () => '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><__proto__><polluted>yes</polluted></__proto__></ReceiptPaymentDto>',
    expected: 400,
  },
  {
    name: '<constructor><prototype> inside a list item',
    path: PAYMENT,
    contentType: 'application/xml',
    body: () =>
      '<ReceiptSavingsDepositWebDto><Fees><FeeLineDto><constructor><prototype><polluted>yes</polluted></prototype></constructor></FeeLineDto></Fees></ReceiptSavingsDepositWebDto>',
    expected: 400,
  },
  {
    name: '10,000-deep XML (over the size limit)',
    contentType: 'application/xml',
    body: () => `${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}`,
    expected: 413,
  },
  { name: '10,000-deep XML left open (under the size limit)', contentType: 'application/xml', body: () => '<a>'.repeat(10_000), expected: 400 },
  { name: '10,000-deep JSON', contentType: 'application/json', body: () => `${'['.repeat(10_000)}${']'.repeat(10_000)}`, expected: 400 },
  { name: '10,000-deep JSON objects', contentType: 'application/json', body: () => `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, expected: 400 },
  { name: 'a 10 MB body', contentType: 'application/json', body: () => `{"notes":"${'x'.repeat(10 * 1024 * 1024)}"}`, expected: 413 },
  {
    name: 'a 10 MB body sent chunked',
    contentType: 'application/json',
    body: () => `{"notes":"${'x'.repeat(10 * 1024 * 1024)}"}`,
    chunked: true,
    expected: 413,
  },
  { name: 'malformed JSON', contentType: 'application/json', body: () => '{"cuAccountID": 1, "amount": 1.0,', expected: 400 },
  { name: 'JSON with a trailing garbage', contentType: 'application/json', body: () => '{"cuAccountID":1,"amount":1} {"again":true}', expected: 400 },
  { name: 'JSON duplicate keys with different values', contentType: 'application/json', body: () => '{"amount":1,"amount":1000000}', expected: 400 },
  {
    name: 'wrong types',
    path: PAYMENT,
    contentType: 'application/json',
    body: () =>
      '{"cuAccountID":"1","accountNumber":12345,"amount":"0.10","fees":{"amount":1},"isArrears":"true","arrearsDays":[1],"receiptType":"SavingsDeposit"}',
    expected: 400,
  },
  {
    name: 'JSON __proto__ and constructor.prototype',
    contentType: 'application/json',
    body: () => '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}',
    expected: 400,
  },
  { name: 'a number too large for a decimal', contentType: 'application/json', body: () => `{"cuAccountID":1,"amount":1${'0'.repeat(400)}}`, expected: 400 },
  { name: 'an exponent amount', contentType: 'application/json', body: () => '{"cuAccountID":1,"amount":1e308}', expected: 400 },
  { name: 'invalid UTF-8', contentType: 'application/json', body: () => Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), expected: 400 },
  { name: 'form-urlencoded', contentType: 'application/x-www-form-urlencoded', body: () => 'cuAccountID=1&amount=1', expected: 415 },
  { name: 'XML declared as text/html', contentType: 'text/html', body: () => '<ReceiptPaymentDto/>', expected: 415 },
];

interface Timed {
  readonly status: number;
  readonly ms: number;
}

/** Sends a body and times the answer's arrival; the server may close before an unwanted body is all sent. */
function timedPost(url: string, attack: Pick<Attack, 'contentType' | 'chunked'>, payload: string | Buffer): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(payload);
    const headers: Record<string, string | number> = { 'content-type': attack.contentType, accept: 'application/json' };
    if (!attack.chunked) headers['content-length'] = bytes.length;
    const started = performance.now();
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      const ms = performance.now() - started;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (attack.chunked) {
      let offset = 0;
      const pump = (): void => {
        while (offset < bytes.length) {
          const chunk = bytes.subarray(offset, offset + 65_536);
          offset += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    } else {
      req.end(bytes);
    }
  });
}

describe('hostile receipt bodies', () => {
  let server: http.Server;
  let url: string;
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

  beforeAll(async () => {
    const contracts = createBodyContracts({
      enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')),
      adjustmentNotesRequired: false,
    });
    const app = express();
    app.use(requestContext(requestContextSchema.parse({})));
    app.use(routeMatch(new RouteMatcher(ROUTES)));
    app.use(body(bodyConfigSchema.parse({}), { contracts, opaqueMaxBytes: 1024 * 1024, defaultXmlNamespace: '' }));
    app.use((_req, res) => {
      res
        .status(201)
        .type('application/json')
        .send(context(res).body?.coreJson ?? '{}');
    });
    app.use(createErrorHandler(createLogger('silent')));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Warm the path up, so the budget measures the step rather than the JIT's first compile.
    for (let i = 0; i < 20; i++)
      await timedPost(
        `${url}${DEPOSIT}`,
        { contentType: 'application/xml' },
        '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount></ReceiptPaymentDto>',
      );
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it.each(ATTACKS.map((a) => [a.name, a] as const))(`answers %s with 4xx within ${BUDGET_MS} ms`, async (_name, attack) => {
    const payload = attack.body();
    const answer = await timedPost(`${url}${attack.path ?? DEPOSIT}`, attack, payload);
    expect(answer.status).toBe(attack.expected);
    expect(answer.ms).toBeLessThan(BUDGET_MS);
  });

  it('leaves Object.prototype untouched and keeps serving valid receipts', async () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const ok = await timedPost(
      `${url}${DEPOSIT}`,
      { contentType: 'application/xml' },
      '<ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>0.10</Amount></ReceiptPaymentDto>',
    );
    expect(ok.status).toBe(201);
  });
});
