/**
 * The body step in a real Express app on a loopback socket, between the real request-context
 * and route-match steps and the real error handler: pass-through, media types, size limits,
 * parsing, validation and content negotiation.
 */
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import { RouteMatcher } from '../../catalogue/matcher';
import { ROUTES } from '../../catalogue/api-catalogue';
import { loadReceiptEnums } from '../../contracts/enums';
import { createBodyContracts } from '../../contracts/registry';
import { createLogger } from '../../logging/logger';
import { context } from '../../request/context';
import { createErrorHandler } from '../../request/error-handler';
import { requestContext } from '../request-context/request-context';
import { requestContextSchema } from '../request-context/request-context.schema';
import { routeMatch } from '../route-match/route-match';
import { body } from './body';
import { bodyConfigSchema, type BodyConfig } from './body.schema';
import { listenOnLoopback } from '../../../test/support/listen';

const contracts = createBodyContracts({
  enums: loadReceiptEnums(path.resolve(__dirname, '../../../config/receipt-enums.yaml')),
  adjustmentNotesRequired: false,
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: () => Record<string, unknown>;
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sends the body in chunks without Content-Length. */
  chunked?: boolean;
}

function send(url: string, request: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: request.method ?? 'POST', headers: request.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
      });
    });
    // The server may answer and close before an unwanted body is sent in full.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (request.chunked && request.body !== undefined) {
      const payload = Buffer.from(request.body);
      for (let i = 0; i < payload.length; i += 16_384) req.write(payload.subarray(i, i + 16_384));
      req.end();
    } else {
      req.end(request.body);
    }
  });
}

/** The pipeline around the step; the terminal handler reports ctx.body, ctx.rawBody, or what is left unread. */
async function startApp(config: Partial<BodyConfig> = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(requestContext(requestContextSchema.parse({})));
  app.use(routeMatch(new RouteMatcher(ROUTES)));
  app.use(body(bodyConfigSchema.parse(config), { contracts, opaqueMaxBytes: OPAQUE_MAX_BYTES, defaultXmlNamespace: '' }));
  app.use((req, res) => {
    const parsed = context(res).body;
    if (parsed) {
      res.json({
        coreJson: parsed.coreJson,
        requestFormat: parsed.requestFormat,
        responseFormat: parsed.responseFormat,
        responseMediaType: parsed.responseMediaType,
      });
      return;
    }
    const raw = context(res).rawBody;
    if (raw) {
      res.json({ rawBody: raw.bytes.toString('utf8'), contentType: raw.contentType });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res.json({ passedThrough: Buffer.concat(chunks).toString('utf8') }));
  });
  app.use(createErrorHandler(createLogger('silent')));
  return listenOnLoopback(app);
}

const OPAQUE_MAX_BYTES = 8192;
const DEPOSIT = '/api/transaction/savings/deposit';
const depositJson = '{"accountNumber":"00012345","amount":250.10}';
const depositXml = '<ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>250.10</Amount></ReceiptPaymentDto>';
const CANONICAL = '{"accountNumber":"00012345","amount":250.10}';

describe('body step', () => {
  let app: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    app = await startApp({ maxBytes: 4096 });
  });
  afterAll(() => app.close());

  it('reads the body of a route without a body schema whole into ctx.rawBody, bytes untouched', async () => {
    const res = await send(`${app.url}/accounts/7`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"anything":  1}' });
    expect(res.json()).toEqual({ rawBody: '{"anything":  1}', contentType: 'application/json' });
  });

  it('reads a chunked body of a route without a body schema whole, so the core gets it with our framing', async () => {
    const res = await send(`${app.url}/accounts`, { headers: { 'content-type': 'application/json' }, body: `{"pad":"${'x'.repeat(5000)}"}`, chunked: true });
    expect(res.status).toBe(200);
    expect(res.json().rawBody).toBe(`{"pad":"${'x'.repeat(5000)}"}`);
  });

  it('refuses a body of a route without a body schema in a media type the route does not take (415)', async () => {
    const res = await send(`${app.url}/accounts/7`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'not json at all' });
    expect(res.status).toBe(415);
    expect(res.json()).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('refuses a body of a route without a body schema over core.maxStreamedBodyBytes (413), declared or chunked', async () => {
    const big = `{"pad":"${'x'.repeat(OPAQUE_MAX_BYTES)}"}`;
    const declared = await send(`${app.url}/accounts`, { headers: { 'content-type': 'application/json' }, body: big });
    const chunked = await send(`${app.url}/accounts`, { headers: { 'content-type': 'application/json' }, body: big, chunked: true });
    expect([declared.status, chunked.status]).toEqual([413, 413]);
  });

  it('leaves a route that takes no body alone', async () => {
    const res = await send(`${app.url}/accounts/7`, { method: 'GET' });
    expect(res.json()).toEqual({ passedThrough: '' });
  });

  it('parses and validates a JSON receipt into the canonical core JSON', async () => {
    const res = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': 'application/json; charset=utf-8' }, body: depositJson });
    expect(res.json()).toEqual({ coreJson: CANONICAL, requestFormat: 'json', responseFormat: 'json', responseMediaType: 'application/json' });
  });

  it("reads UTF-16 XML (what .NET's StringWriter writes): with a byte order mark, or named by charset", async () => {
    const declared = `<?xml version="1.0" encoding="utf-16"?>${depositXml}`;
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(declared, 'utf16le')]);
    const be = Buffer.from(declared, 'utf16le').swap16();
    const withMark = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': 'application/xml' }, body: le });
    const byCharset = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': 'application/xml; charset=utf-16' }, body: be });
    expect(withMark.json()).toMatchObject({ coreJson: CANONICAL, requestFormat: 'xml' });
    expect(byCharset.json()).toMatchObject({ coreJson: CANONICAL, requestFormat: 'xml' });
    const json = await send(`${app.url}${DEPOSIT}`, {
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body: Buffer.from(depositJson, 'utf16le'),
    });
    expect(json.status).toBe(415);
  });

  it('reads an XML receipt, a UTF-8 byte order mark included, to the same core JSON', async () => {
    const res = await send(`${app.url}${DEPOSIT}`, {
      headers: { 'content-type': 'text/xml' },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(depositXml)]),
    });
    expect(res.json()).toEqual({ coreJson: CANONICAL, requestFormat: 'xml', responseFormat: 'xml', responseMediaType: 'text/xml' });
  });

  it.each([
    ['application/json', undefined, 'application/json'],
    ['text/json', undefined, 'text/json'],
    ['application/xml', undefined, 'application/xml'],
    ['text/xml', '*/*', 'text/xml'],
    ['application/xml', 'application/json', 'application/json'],
    ['application/json', 'text/xml', 'text/xml'],
    ['text/xml', 'application/*', 'application/xml'],
    ['application/json', 'application/xml;q=0.5, text/json', 'text/json'],
    ['application/json', 'image/png', 'application/json'],
  ])('answers a %s request with Accept %s in %s', async (contentType, accept, expected) => {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (accept) headers.accept = accept;
    const res = await send(`${app.url}${DEPOSIT}`, { headers, body: contentType.endsWith('json') ? depositJson : depositXml });
    expect(res.json().responseMediaType).toBe(expected);
  });

  it.each([
    ['application/x-www-form-urlencoded', 'This operation does not accept that Content-Type.'],
    ['text/plain', 'This operation does not accept that Content-Type.'],
    ['multipart/form-data; boundary=x', 'This operation does not accept that Content-Type.'],
    ['application/json; charset=iso-8859-1', 'The body must be UTF-8.'],
  ])('refuses Content-Type %s with 415 naming the accepted types', async (contentType, detail) => {
    const res = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': contentType }, body: 'a=1' });
    expect(res.status).toBe(415);
    expect(res.json()).toMatchObject({
      code: 'unsupported_media_type',
      detail: `${detail} Send the body as one of: application/json, text/json, application/xml, text/xml (UTF-8).`,
    });
    expect(res.headers.connection).toBe('close');
  });

  it('refuses a body without Content-Type and a compressed body with 415', async () => {
    expect((await send(`${app.url}${DEPOSIT}`, { body: depositJson })).json()).toMatchObject({
      status: 415,
      detail: expect.stringMatching(/^The request has no Content-Type\./),
    });
    const gzipped = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: depositJson });
    expect(gzipped.json()).toMatchObject({ status: 415, detail: expect.stringMatching(/^Content-Encoding is not supported\./) });
  });

  it('refuses a declared Content-Length over the limit with 413 and closes the connection', async () => {
    const res = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': 'application/json' }, body: `{"notes":"${'x'.repeat(5000)}"}` });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large', detail: 'The request body is larger than 4096 bytes.' });
    expect(res.headers.connection).toBe('close');
  });

  it('refuses a chunked body once it passes the limit', async () => {
    const res = await send(`${app.url}${DEPOSIT}`, {
      headers: { 'content-type': 'application/json' },
      body: `{"notes":"${'x'.repeat(50_000)}"}`,
      chunked: true,
    });
    expect(res.status).toBe(413);
  });

  it('accepts a body just under the limit', async () => {
    const notes = 'n'.repeat(4096 - '{"cuAccountID":1,"amount":1,"notes":""}'.length);
    const res = await send(`${app.url}${DEPOSIT}`, {
      headers: { 'content-type': 'application/json' },
      body: `{"cuAccountID":1,"amount":1,"notes":"${notes}"}`,
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['application/json', '', 'The request body is empty.'],
    ['application/json', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'The request body is not valid UTF-8.'],
    ['application/json', '{"amount":', /^The JSON body is not well-formed: /],
    [
      'application/json',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
      'The JSON body nests objects and arrays deeper than 32 levels.',
    ],
    ['application/xml', '<ReceiptPaymentDto><Amount>1</ReceiptPaymentDto>', /^The XML body is not well-formed: /],
  ])('answers a malformed %s body with 400', async (contentType, payload, detail) => {
    // Accept JSON: an XML request would otherwise get its problem in XML.
    const res = await send(`${app.url}${DEPOSIT}`, { headers: { 'content-type': contentType, accept: 'application/json' }, body: payload });
    expect(res.status).toBe(400);
    expect(res.json().code).toBe('invalid_request');
    expect(res.json().detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
  });

  it('answers an invalid receipt with one 400 listing every bad field, as the XML receipt with the problem inside for an XML request', async () => {
    const res = await send(`${app.url}${DEPOSIT}`, {
      headers: { 'content-type': 'application/xml' },
      body: '<ReceiptPaymentDto><CUAccountID>x</CUAccountID><Amount>-1</Amount><PayFee>maybe</PayFee><OverridePassword>pw</OverridePassword></ReceiptPaymentDto>',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text).toMatch(/^<\?xml[^>]*\?><ReceiptPaymentDto[ >].*<ErrorMessage>.*<problem xmlns="urn:ietf:rfc:7807">.*<\/problem><\/ReceiptPaymentDto>$/s);
    for (const field of ['CUAccountID', 'PayFee', 'Amount', 'OverrideUserName']) expect(res.text).toContain(`<field>${field}</field>`);
    expect(res.text).not.toContain('pw<');
  });

  it('takes maxDepth from its config', async () => {
    const shallow = await startApp({ maxDepth: 8 });
    try {
      const deep = `<ReceiptPaymentDto>${'<x>'.repeat(8)}${'</x>'.repeat(8)}</ReceiptPaymentDto>`;
      const res = await send(`${shallow.url}${DEPOSIT}`, { headers: { 'content-type': 'application/xml', accept: 'application/json' }, body: deep });
      expect(res.json().detail).toBe('The XML body nests elements deeper than 8 levels.');
    } finally {
      await shallow.close();
    }
  });
});
