/**
 * The whole-document upload's costs come after its checks: over raw sockets, a viewer's and an
 * oversized upload are refused from their headers alone, before a byte of body is sent, and the
 * connection is closed so the body is never read; a second upload while one is being read is
 * refused (429 with Retry-After) rather than parsed beside it.
 */
import net from 'node:net';
import request from 'supertest';
import type { Listening } from '../../../test/support/listen';
import { SANDBOX_ADMIN_TOKEN, startSandboxAdmin } from '../../../test/support/sandbox-admin';
import { rawExchange, rawRequest } from '../../../test/support/raw-http';

const TOKEN = SANDBOX_ADMIN_TOKEN;
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;

let server: Listening;
let tokens: Record<string, string>;

beforeAll(async () => {
  ({ server, tokens } = await startSandboxAdmin(['viewer', 'operator'], 'up', { maxDocumentBytes: MAX_DOCUMENT_BYTES }));
});
afterAll(() => server.close());

/** The headers of a `PUT /v1/access` that announces `length` bytes of JSON. */
const uploadHeaders = (token: string, length: number, query = '', extra: string[] = []): string =>
  rawRequest([
    `PUT /v1/access${query} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    ...extra,
  ]);

/** Opens a connection, sends `bytes`, and hands every byte the server sends to `onText` (the whole text so far). */
function connection(bytes: string, onText: (text: string, socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect(server.port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      onText(text, socket);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

describe('PUT /v1/access: checks before the body', () => {
  it('refuses a viewer’s 60 MiB upload from its headers alone (403), and closes the connection without reading a body', async () => {
    const started = performance.now();
    const exchange = await rawExchange(server.port, uploadHeaders(tokens.viewer as string, 60 * 1024 * 1024), { timeoutMs: 3000 });
    expect(exchange.responses.map((r) => r.status)).toEqual([403]);
    expect(JSON.parse(exchange.responses[0]?.body ?? '{}')).toMatchObject({ code: 'permission_denied' });
    expect(exchange.closed).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('answers a viewer’s Expect: 100-continue with 403 and never invites the body; invites an operator’s once the checks hold', async () => {
    const refused = await connection(uploadHeaders(tokens.viewer as string, 60 * 1024 * 1024, '', ['Expect: 100-continue']), () => undefined);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).not.toContain('100 Continue');

    const exported = await request(server.url).get('/v1/access').set('Authorization', `Bearer ${TOKEN}`);
    const document = JSON.stringify(exported.body);
    let sent = false;
    const accepted = await connection(
      uploadHeaders(tokens.operator as string, Buffer.byteLength(document), '?dryRun=true', ['Expect: 100-continue', 'Connection: close']),
      (text, socket) => {
        if (!sent && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
          sent = true;
          socket.write(document);
        }
      },
    );
    expect(accepted).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);

    // Every other route with a body invites it too (curl asks first for a large one).
    const vendor = JSON.stringify({ id: 'expecting', name: 'Expecting' });
    let posted = false;
    const created = await connection(
      rawRequest([
        'POST /v1/vendors HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${tokens.operator}`,
        'Content-Type: application/json',
        `Content-Length: ${vendor.length}`,
        'Expect: 100-continue',
        'Connection: close',
      ]),
      (text, socket) => {
        if (!posted && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
          posted = true;
          socket.write(vendor);
        }
      },
    );
    expect(created).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  });

  it('refuses an operator’s upload whose Content-Length is over admin.maxDocumentBytes (413) before its body', async () => {
    const exchange = await rawExchange(server.port, uploadHeaders(tokens.operator as string, MAX_DOCUMENT_BYTES + 1), { timeoutMs: 3000 });
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
    expect(exchange.closed).toBe(true);
  });

  it('reads one whole document at a time: a second upload meanwhile is 429 rate_limited with Retry-After, unread', async () => {
    const exported = await request(server.url).get('/v1/access').set('Authorization', `Bearer ${TOKEN}`);
    const document = Buffer.from(JSON.stringify(exported.body));
    // The first upload sends its headers and half its body, and holds the rest back.
    const first = net.connect(server.port, '127.0.0.1');
    const firstAnswer = new Promise<string>((resolve) => {
      let text = '';
      first.on('data', (chunk: Buffer) => (text += chunk.toString()));
      first.on('close', () => resolve(text));
      first.on('end', () => resolve(text));
    });
    first.write(uploadHeaders(tokens.operator as string, document.length, '?dryRun=true'));
    first.write(document.subarray(0, document.length >> 1));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const second = await rawExchange(server.port, uploadHeaders(tokens.operator as string, document.length, '?dryRun=true'), { timeoutMs: 3000 });
    expect(second.responses.map((r) => r.status)).toEqual([429]);
    expect(second.responses[0]?.headers['retry-after']).toBe('5');
    expect(JSON.parse(second.responses[0]?.body ?? '{}')).toMatchObject({ code: 'rate_limited' });
    expect(second.closed).toBe(true);

    first.end(document.subarray(document.length >> 1));
    expect(await firstAnswer).toMatch(/^HTTP\/1\.1 200 /);
    // Once the first is answered, the next one is read.
    const third = await request(server.url).put('/v1/access?dryRun=true').set('Authorization', `Bearer ${tokens.operator}`).send(exported.body);
    expect(third.status).toBe(200);
  });
});
