/**
 * The compression step as a unit, over real HTTP: an Express app of the step and a handler that
 * answers as the test asks (type, length, ETag, Content-Encoding, streamed or not), called with
 * node:http, which neither adds Accept-Encoding nor decodes the answer.
 */
import http from 'node:http';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import express, { type Request, type Response } from 'express';
import { listenOnLoopback, type Listening } from '../../../test/support/listen';
import { compressAnswers } from './compression';
import { compressionSchema } from './compression.schema';

const THRESHOLD = 1024;

interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The bytes as they came off the wire, still encoded. */
  readonly bytes: Buffer;
}

function rawCall(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function decoded(answer: RawAnswer): string {
  const encoding = answer.headers['content-encoding'];
  if (encoding === undefined) return answer.bytes.toString('utf8');
  if (encoding === 'gzip') return gunzipSync(answer.bytes).toString('utf8');
  if (encoding === 'br') return brotliDecompressSync(answer.bytes).toString('utf8');
  if (encoding === 'deflate') return inflateSync(answer.bytes).toString('utf8');
  throw new Error(`unexpected encoding ${encoding}`);
}

/** A JSON (or XML) text of exactly `bytes` bytes. */
function jsonOf(bytes: number): string {
  return `{"pad":"${'x'.repeat(bytes - 10)}"}`;
}
function xmlOf(bytes: number): string {
  return `<a>${'x'.repeat(bytes - 7)}</a>`;
}

interface Answering {
  type?: string;
  bytes?: number;
  status?: number;
  etag?: string;
  /** Written in a few chunks with no Content-Length. */
  streamed?: boolean;
  /** Sent gzip-encoded already, with this Content-Encoding, as a core would. */
  preEncoded?: boolean;
  /** Written in one write() with its Content-Length, then end() with nothing: a piped answer of one chunk. */
  oneChunk?: boolean;
  cacheControl?: string;
}

function target(answering: Answering): string {
  return `/answer?plan=${encodeURIComponent(JSON.stringify(answering))}`;
}

/** The handler after the step: answers as the query's plan says; X-Wrapped tells whether the compression package wrapped the response. */
function answerAsPlanned(req: Request, res: Response): void {
  const plan = JSON.parse(String(req.query.plan)) as Answering;
  const bytes = plan.bytes ?? 2000;
  const text = plan.type?.includes('xml') ? xmlOf(bytes) : jsonOf(bytes);
  res.status(plan.status ?? 200);
  if (plan.type !== undefined) res.setHeader('Content-Type', plan.type);
  if (plan.etag !== undefined) res.setHeader('ETag', plan.etag);
  if (plan.cacheControl !== undefined) res.setHeader('Cache-Control', plan.cacheControl);
  res.setHeader('X-Wrapped', String('flush' in res));
  if (plan.streamed) {
    const third = Math.ceil(text.length / 3);
    res.write(text.slice(0, third));
    setTimeout(() => {
      res.write(text.slice(third, 2 * third));
      setTimeout(() => res.end(text.slice(2 * third)), 5);
    }, 5);
    return;
  }
  const body = plan.preEncoded ? gzipSync(text) : Buffer.from(text);
  if (plan.preEncoded) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', body.length);
  if (plan.oneChunk) {
    res.write(body);
    setTimeout(() => res.end(), 5);
    return;
  }
  res.end(body);
}

describe('compression step', () => {
  let server: Listening;
  beforeAll(async () => {
    const step = compressAnswers(compressionSchema.parse({ thresholdBytes: THRESHOLD }));
    if (step === null) throw new Error('compression is on by default');
    const app = express();
    app.set('etag', false);
    app.use(step);
    app.get('/answer', answerAsPlanned);
    server = await listenOnLoopback(app);
  });
  afterAll(() => server.close());

  const call = (answering: Answering, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> =>
    rawCall(`${server.url}${target(answering)}`, headers, method);

  it('is no step at all with compression.enabled false', () => {
    expect(compressAnswers(compressionSchema.parse({ enabled: false }))).toBeNull();
  });

  it.each(['gzip', 'br', 'deflate'])(
    'encodes a JSON answer above the threshold with %s, the same bytes once decoded, its Content-Length the compressed size',
    async (encoding) => {
      const answer = await call({ type: 'application/json' }, { 'Accept-Encoding': encoding });
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers['content-length']).toBe(String(answer.bytes.length));
      expect(answer.bytes.length).toBeLessThan(2000);
      expect(decoded(answer)).toBe(jsonOf(2000));
    },
  );

  it.each([
    ['gzip, br;q=0.5', 'gzip'],
    ['br;q=0.2, gzip;q=0.4, deflate', 'deflate'],
    ['gzip;q=0.1, br', 'br'],
    ['deflate, gzip, br', 'br'],
  ])("follows the client's preference in Accept-Encoding %j: %s", async (accept, chosen) => {
    const answer = await call({ type: 'application/json' }, { 'Accept-Encoding': accept });
    expect(answer.headers['content-encoding']).toBe(chosen);
    expect(decoded(answer)).toBe(jsonOf(2000));
  });

  it.each([
    'application/json; charset=utf-8',
    'text/json',
    'application/xml; charset=utf-8',
    'text/xml',
    'application/problem+json',
    'application/problem+xml',
    'application/vnd.bank.receipt+json',
  ])('encodes %s too', async (type) => {
    const answer = await call({ type }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(decoded(answer)).toBe(type.includes('xml') ? xmlOf(2000) : jsonOf(2000));
  });

  it.each([502, 404])('encodes a problem answer (status %s) like any other', async (status) => {
    const answer = await call({ type: 'application/problem+json', status }, { 'Accept-Encoding': 'gzip' });
    expect(answer.status).toBe(status);
    expect(answer.headers['content-encoding']).toBe('gzip');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['text/html; charset=utf-8', 'text/html; charset=utf-8'],
    ['application/octet-stream', 'application/octet-stream'],
    ['application/x-ndjson', 'application/x-ndjson'],
    ['application/jsonl', 'application/jsonl'],
    ['none', undefined],
  ])('leaves an answer of Content-Type %s as it is, with no Vary', async (_label, type) => {
    const answer = await call({ type }, { 'Accept-Encoding': 'gzip, br' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe('2000');
    expect(answer.headers.vary).toBeUndefined();
    expect(answer.bytes.toString('utf8')).toBe(jsonOf(2000));
  });

  it('leaves an answer one byte below the threshold as it is, still with Vary: Accept-Encoding', async () => {
    const answer = await call({ type: 'application/json', bytes: THRESHOLD - 1 }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe(String(THRESHOLD - 1));
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.bytes.toString('utf8')).toBe(jsonOf(THRESHOLD - 1));
  });

  it('encodes an answer exactly at the threshold', async () => {
    const answer = await call({ type: 'application/json', bytes: THRESHOLD }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(decoded(answer)).toBe(jsonOf(THRESHOLD));
  });

  it('encodes a streamed answer of unknown length as it flows, however short', async () => {
    const answer = await call({ type: 'application/json', bytes: 300, streamed: true }, { 'Accept-Encoding': 'br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(decoded(answer)).toBe(jsonOf(300));
  });

  it.each(['gzip', 'br', 'deflate'])(
    'encodes a piped answer whose one chunk is its whole Content-Length in one piece with %s: compressed Content-Length, not chunked',
    async (encoding) => {
      const answer = await call({ type: 'application/json', bytes: 5000, oneChunk: true, etag: '"v1"' }, { 'Accept-Encoding': encoding });
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.headers['content-length']).toBe(String(answer.bytes.length));
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.headers.etag).toBe('W/"v1"');
      expect(decoded(answer)).toBe(jsonOf(5000));
    },
  );

  it.each([
    ['buffered', {}],
    ['one chunk', { oneChunk: true }],
  ])('streams a %s answer above compression.wholeBodyMaxBytes, chunked, with no Content-Length', async (_how, how) => {
    const bytes = compressionSchema.parse({}).wholeBodyMaxBytes + 1;
    const answer = await call({ type: 'application/json', bytes, ...how }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(decoded(answer)).toBe(jsonOf(bytes));
  });

  it.each([
    ['*', 'br'],
    ['identity;q=0.5, gzip', 'gzip'],
    ['gzip;q=0, *;q=0.5', 'br'],
  ])('encodes for an Accept-Encoding of %j with the coding the compression package would choose: %s', async (accept, chosen) => {
    const answer = await call({ type: 'application/json' }, { 'Accept-Encoding': accept });
    expect(answer.headers['content-encoding']).toBe(chosen);
    expect(decoded(answer)).toBe(jsonOf(2000));
  });

  it.each([
    ['buffered', {}],
    ['one chunk', { oneChunk: true }],
  ])('leaves a %s answer with Cache-Control: no-transform as it is', async (_how, how) => {
    const answer = await call({ type: 'application/json', cacheControl: 'private, no-transform', ...how }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.bytes.toString('utf8')).toBe(jsonOf(2000));
  });

  it('sends Vary: Accept-Encoding with an encoded answer', async () => {
    const answer = await call({ type: 'application/xml' }, { 'Accept-Encoding': 'deflate' });
    expect(answer.headers['content-encoding']).toBe('deflate');
    expect(answer.headers.vary).toBe('Accept-Encoding');
  });

  it('answers HEAD with no encoding and the identity Content-Length', async () => {
    const answer = await call({ type: 'application/json' }, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe('2000');
    expect(answer.bytes.length).toBe(0);
  });

  it('passes an answer the core already encoded as it came: its Content-Encoding and bytes, whatever the client prefers', async () => {
    const answer = await call({ type: 'application/json', preEncoded: true }, { 'Accept-Encoding': 'br, gzip;q=0.5' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.bytes.equals(gzipSync(jsonOf(2000)))).toBe(true);
    expect(answer.headers['content-length']).toBe(String(answer.bytes.length));
  });

  it('skips its wrapping for a client without Accept-Encoding: identity, no Vary, the ETag left strong', async () => {
    const answer = await call({ type: 'application/json', etag: '"v1"' });
    expect(answer.headers['x-wrapped']).toBe('false');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe('2000');
    expect(answer.headers.vary).toBeUndefined();
    expect(answer.headers.etag).toBe('"v1"');
  });

  it('sends identity to a client that accepts only identity, with Vary: Accept-Encoding and the ETag left strong', async () => {
    const answer = await call({ type: 'application/json', etag: '"v1"' }, { 'Accept-Encoding': 'identity' });
    expect(answer.headers['x-wrapped']).toBe('true');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers.etag).toBe('"v1"');
  });

  it("makes an encoded answer's strong ETag weak", async () => {
    const answer = await call({ type: 'application/json', etag: '"v1"' }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers.etag).toBe('W/"v1"');
  });

  it("leaves an encoded answer's weak ETag as it was", async () => {
    const answer = await call({ type: 'application/json', etag: 'W/"v1"' }, { 'Accept-Encoding': 'br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.etag).toBe('W/"v1"');
  });

  it.each([
    ['below the threshold', { type: 'application/json', bytes: 100 }],
    ['not JSON or XML', { type: 'text/plain' }],
  ])('keeps the strong ETag of an answer it did not encode (%s)', async (_why, answering) => {
    const answer = await call({ ...answering, etag: '"v1"' }, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.etag).toBe('"v1"');
  });
});

describe('compression step, compression.wholeBodyMaxBytes 0', () => {
  let server: Listening;
  beforeAll(async () => {
    const step = compressAnswers(compressionSchema.parse({ wholeBodyMaxBytes: 0 }));
    if (step === null) throw new Error('compression is on by default');
    const app = express();
    app.use(step);
    app.get('/answer', answerAsPlanned);
    server = await listenOnLoopback(app);
  });
  afterAll(() => server.close());

  it('streams even a buffered answer: chunked, no Content-Length, the same bytes once decoded', async () => {
    const answer = await rawCall(`${server.url}${target({ type: 'application/json' })}`, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(decoded(answer)).toBe(jsonOf(2000));
  });
});

describe('compression step, levels', () => {
  // A list of varied records: each level and quality gives bytes of its own.
  const list = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, balance: ((i * 7919) % 100_000) / 100, name: `account ${i * 31}` })));
  let server: Listening;
  beforeAll(async () => {
    const step = compressAnswers(compressionSchema.parse({ gzipLevel: 9, brotliQuality: 11 }));
    if (step === null) throw new Error('compression is on by default');
    const app = express();
    app.use(step);
    app.get('/list', (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Content-Length', Buffer.byteLength(list));
      res.end(list);
    });
    server = await listenOnLoopback(app);
  });
  afterAll(() => server.close());

  it('gzips at compression.gzipLevel: the bytes zlib gives at that level and not at another', async () => {
    const answer = await rawCall(`${server.url}/list`, { 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.bytes.equals(gzipSync(list, { level: 9 }))).toBe(true);
    expect(answer.bytes.equals(gzipSync(list, { level: 1 }))).toBe(false);
  });

  it('encodes br at compression.brotliQuality', async () => {
    const answer = await rawCall(`${server.url}/list`, { 'Accept-Encoding': 'br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.bytes.equals(brotliCompressSync(list, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))).toBe(true);
  });

  it('defaults to the measured gzip level 1 and brotli quality 4', () => {
    expect(compressionSchema.parse({})).toMatchObject({ gzipLevel: 1, brotliQuality: 4 });
  });
});
