/**
 * The golden receipt fixtures (test/fixtures/receipts) through the whole gateway: the core
 * must receive exactly the canonical JSON, and the vendor must get the golden answer back,
 * XML in and XML out, XML in and JSON out, JSON in and JSON out. A refusal (the override's 422)
 * carries the catalogue problem alongside the golden receipt: its members in JSON
 * (application/problem+json), its <problem> element as the receipt's last child in XML.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const fixture = (name: string): string => readFileSync(path.resolve(__dirname, '../fixtures/receipts', name), 'utf8');
const compactXml = (xml: string): string =>
  xml
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/>\s+</g, '><')
    .trim();
const compactJson = (json: string): string => stringifyLossless(parseLossless(json)) as string;
const PROBLEM_XML = /<problem xmlns="urn:ietf:rfc:7807">.*?<code>unprocessable_content<\/code><requestId>[^<]+<\/requestId><\/problem>(?=<\/[A-Za-z]+>$)/;
const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'requestId'];

const OPERATIONS = [
  ['deposit', 'api/transaction/savings/deposit', 'deposit.response', 201],
  ['payment', 'api/transaction/savings/payment', 'payment.override.response', 422],
  ['reversal', 'api/transaction/loan/reversal', 'reversal.response', 201],
] as const;

describe.each(OPERATIONS)('golden %s through the gateway', (name, operation, answerName, status) => {
  let core: EchoCore;
  let gateway: TestGateway;

  beforeAll(async () => {
    core = await startEchoCore((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(fixture(`${answerName}.json`));
    });
    gateway = await startTestGateway({ core: { url: core.url } });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });
  beforeEach(() => {
    core.requests.length = 0;
  });

  let calls = 0;
  // The fixtures carry an ExternalRefNo; each call gets its own key so none is a replay.
  const post = (body: string, contentType: string, accept?: string) =>
    fetch(`${gateway.url}/${operation}`, {
      method: 'POST',
      headers: {
        'X-Vendor-Token': SANDBOX_KEYS.demo,
        'content-type': contentType,
        'Idempotency-Key': `golden-${name}-${++calls}`,
        ...(accept ? { accept } : {}),
      },
      body,
    });

  it('sends the core the canonical JSON and answers the golden XML to an XML request', async () => {
    const res = await post(fixture(`${name}.request.xml`), 'application/xml');
    expect(core.requests[0]?.body).toBe(fixture(`${name}.core.json`).trim());
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const text = await res.text();
    if (status >= 400) expect(text).toMatch(PROBLEM_XML);
    expect(text.replace(PROBLEM_XML, '')).toBe(compactXml(fixture(`${answerName}.xml`)));
  });

  it('answers the golden JSON to an XML request that accepts JSON', async () => {
    const res = await post(fixture(`${name}.request.xml`), 'text/xml', 'application/json');
    expect(res.headers.get('content-type')).toMatch(status >= 400 ? /^application\/problem\+json/ : /^application\/json/);
    const members = parseLossless(await res.text()) as Record<string, unknown>;
    if (status >= 400) {
      expect(members).toMatchObject({ code: 'unprocessable_content', requestId: res.headers.get('x-request-id') });
      for (const member of PROBLEM_MEMBERS) delete members[member];
    }
    expect(stringifyLossless(members)).toBe(compactJson(fixture(`${answerName}.json`)));
  });

  it('sends the same canonical JSON for the JSON request', async () => {
    const res = await post(fixture(`${name}.request.json`), 'application/json');
    expect(res.status).toBe(status);
    expect(core.requests[0]?.body).toBe(fixture(`${name}.core.json`).trim());
  });
});
