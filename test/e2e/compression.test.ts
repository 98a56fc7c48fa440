/**
 * Compression of the vendor API's answers through a real gateway: JSON and XML answers above
 * `compression.thresholdBytes` come back gzip- or br-encoded when Accept-Encoding allows (a
 * streamed list included, of known or unknown length), byte for byte the uncompressed answer once
 * decoded, always with `Vary: Accept-Encoding`; small answers, HEAD, clients that accept no
 * encoding, and answers the core already encoded are left as they are; `enabled: false` turns it off.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { startRecordingCore, type RecordingCore } from '../support/recording-core';

const DEMO = { 'X-Vendor-Token': SANDBOX_KEYS.demo };

interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The bytes as they came off the wire, still encoded. */
  readonly bytes: Buffer;
}

/** node:http, which (unlike fetch) neither adds Accept-Encoding nor decodes the answer. */
function rawCall(url: string, headers: Record<string, string>, options: { method?: string; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function decoded(answer: RawAnswer): string {
  switch (answer.headers['content-encoding']) {
    case 'gzip':
      return gunzipSync(answer.bytes).toString('utf8');
    case 'br':
      return brotliDecompressSync(answer.bytes).toString('utf8');
    case undefined:
      return answer.bytes.toString('utf8');
    default:
      throw new Error(`unexpected encoding ${String(answer.headers['content-encoding'])}`);
  }
}

describe('compression of answers, sandbox core', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(['gzip', 'br'])('sends a large streamed JSON list %s-encoded, the same bytes once decoded, with Vary: Accept-Encoding', async (encoding) => {
    const plain = await rawCall(`${gateway.url}/accounts/`, DEMO);
    const packed = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': encoding });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(packed.status).toBe(200);
    expect(packed.headers['content-encoding']).toBe(encoding);
    expect(packed.headers['content-length']).toBeUndefined();
    expect(packed.headers.vary).toMatch(/Accept-Encoding/);
    expect(packed.headers['cache-control']).toBe('no-store');
    expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(decoded(packed)).toBe(plain.bytes.toString('utf8'));
  });

  it("prefers the client's highest q-value, and sends identity to a client that accepts no encoding", async () => {
    const preferred = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': 'gzip;q=0.5, br;q=1' });
    expect(preferred.headers['content-encoding']).toBe('br');
    const none = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': 'identity' });
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(none.bytes.toString('utf8'))).toEqual(expect.any(Array));
  });

  it('leaves an answer below the threshold uncompressed, still with Vary: Accept-Encoding', async () => {
    const small = await rawCall(`${gateway.url}/accounts/50001`, { ...DEMO, 'Accept-Encoding': 'gzip, br' });
    expect(Number(small.headers['content-length'])).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toMatch(/Accept-Encoding/);
  });

  it('answers HEAD with no body and no encoding', async () => {
    const head = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': 'gzip' }, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
  });
});

describe('compression of XML answers and problems, threshold 0', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ compression: { thresholdBytes: 0 } });
  });
  afterAll(() => gateway.stop());

  it('compresses an XML receipt and a problem', async () => {
    const receipt = await rawCall(
      `${gateway.url}/api/transaction/savings/deposit`,
      { ...DEMO, 'Content-Type': 'application/xml', 'Accept-Encoding': 'gzip' },
      {
        method: 'POST',
        body: '<ReceiptPaymentDto><CUAccountID>50001</CUAccountID><Amount>1.00</Amount><ExternalRefNo>GZ-1</ExternalRefNo></ReceiptPaymentDto>',
      },
    );
    expect(receipt.status).toBe(201);
    expect(receipt.headers['content-type']).toMatch(/^application\/xml/);
    expect(receipt.headers['content-encoding']).toBe('gzip');
    expect(receipt.headers['cache-control']).toBe('no-store');
    expect(decoded(receipt)).toMatch(/^<\?xml[^>]*\?><ReceiptPaymentDto[ >].*<ReceiptNo>\d+<\/ReceiptNo>/);
    const problem = await rawCall(`${gateway.url}/accounts/`, { 'Accept-Encoding': 'gzip' });
    expect(problem.status).toBe(401);
    expect(problem.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(problem))).toMatchObject({ code: 'unauthorized' });
  });
});

describe('compression turned off', () => {
  it('sends every answer as it is with compression.enabled false', async () => {
    const gateway = await startTestGateway({ compression: { enabled: false } });
    try {
      const answer = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': 'gzip, br' });
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary ?? '').not.toMatch(/Accept-Encoding/);
    } finally {
      await gateway.stop();
    }
  });
});

describe('compression and what the core sends', () => {
  const LIST = JSON.stringify(Array.from({ length: 200 }, (_, id) => ({ id, accountNumber: `ACC-${id}`, balance: 10.5 })));
  let core: RecordingCore;
  let gateway: TestGateway;
  beforeAll(async () => {
    core = await startRecordingCore((request, res) => {
      if (request.url.startsWith('/accounts/1')) {
        // Already gzip-encoded by the core: passed on as it came, never encoded twice.
        const body = gzipSync(LIST);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
        res.end(body);
        return;
      }
      // Chunked, no Content-Length: the gateway cannot know the size and compresses as it streams.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(LIST.slice(0, 1000));
      res.end(LIST.slice(1000));
    });
    const config = testConfig({ core: { url: core.url } });
    const running = await startGateway(config, createLogger('silent'));
    gateway = Object.assign(running, { url: `http://127.0.0.1:${running.vendorPort}`, statusUrl: `http://127.0.0.1:${running.statusPort}`, config });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });

  it('never encodes an answer the core already encoded', async () => {
    const answer = await rawCall(`${gateway.url}/accounts/1`, { ...DEMO, 'Accept-Encoding': 'gzip, br' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(answer.bytes).toString('utf8')).toBe(LIST);
  });

  it('compresses a streamed answer of unknown length', async () => {
    const answer = await rawCall(`${gateway.url}/accounts/`, { ...DEMO, 'Accept-Encoding': 'gzip' });
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(answer.bytes).toString('utf8')).toBe(LIST);
  });
});
