/**
 * No answer that hides a posting: whatever else a vendor sends on a connection (stray bytes, a
 * malformed or half-sent second request, requests pipelined behind an answer that closes the
 * connection, transfer codings the gateway will not vouch for), every request that reached the
 * core gets its answer on the vendor's socket. The core here is a real HTTP server that records
 * each request it parses (and answers slowly, so that later bytes arrive while the first request
 * is still with it); each case is written on a bare socket, on a GET route and on the keyed
 * deposit route in JSON and in XML, and the X-Request-Id of every request the core saw must be
 * among the answers the socket received.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { randomUUID } from 'node:crypto';
import { createSandboxApp } from '../../src/sandbox/app';
import { createSandboxData } from '../../src/sandbox/data';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { listenOnLoopback, type Listening } from '../support/listen';
import { parseResponses, rawRequest, type RawResponse } from '../support/raw-http';
import { answerFrom, startRecordingCore, type RecordingCore } from '../support/recording-core';
import { createTestCa } from '../support/tls-certs';

const CORE_DELAY_MS = 250;
const DEPOSIT = '/api/transaction/savings/deposit';

/** A bare-socket conversation: strings are written, numbers are pauses (ms); `end` half-closes after the last part. */
type Part = string | number;

interface Conversation {
  readonly responses: readonly RawResponse[];
  readonly closed: boolean;
}

/** Opens a connection to the gateway (plain TCP or TLS) and calls back once it can be written. */
type Dial = (port: number, ready: () => void) => net.Socket;
const plain: Dial = (port, ready) => net.connect(port, '127.0.0.1', ready);

/** Writes the parts, then waits until the server closes, or until it has been quiet long enough after an answer for the core to have answered the rest. */
function converse(port: number, parts: readonly Part[], options: { end?: boolean; dial?: Dial } = {}): Promise<Conversation> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(overall);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks).toString('latin1')), closed });
    };
    const overall = setTimeout(() => finish(false), 4000);
    // Quiet only counts once something came back: a first answer may be slow on a busy machine.
    const settle = (): void => {
      clearTimeout(quiet);
      if (chunks.length > 0) quiet = setTimeout(() => finish(false), CORE_DELAY_MS * 3);
    };
    const socket = (options.dial ?? plain)(port, () => {
      void (async () => {
        for (const part of parts) {
          if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
          else if (!socket.destroyed) socket.write(part);
        }
        if (options.end && !socket.destroyed) socket.end();
        settle();
      })();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      settle();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

interface Route {
  readonly name: string;
  /** A valid request of the route; `extra` header lines; `chunked` writes the body as chunks and no Content-Length (the variant names its Transfer-Encoding). */
  request(extra?: readonly string[], options?: { chunked?: boolean; contentLength?: number; bodyPart?: number }): string;
}

function chunk(body: string): string {
  return `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

function withBody(lines: readonly string[], body: string, options: { chunked?: boolean; contentLength?: number; bodyPart?: number }): string {
  if (options.chunked) return rawRequest(lines, chunk(body));
  const sent = options.bodyPart === undefined ? body : body.slice(0, options.bodyPart);
  return rawRequest([...lines, `Content-Length: ${options.contentLength ?? Buffer.byteLength(body)}`], sent);
}

const deposit =
  (contentType: string, body: () => string): Route['request'] =>
  (extra = [], options = {}) =>
    withBody(
      [
        `POST ${DEPOSIT} HTTP/1.1`,
        'Host: 127.0.0.1',
        `X-Vendor-Token: ${SANDBOX_KEYS.demo}`,
        `Content-Type: ${contentType}`,
        `Idempotency-Key: ${randomUUID()}`,
        ...extra,
      ],
      body(),
      options,
    );

const ROUTES: readonly Route[] = [
  {
    name: 'GET /accounts/50001',
    request: (extra = [], options = {}) => {
      const lines = ['GET /accounts/50001 HTTP/1.1', 'Host: 127.0.0.1', `X-Vendor-Token: ${SANDBOX_KEYS.demo}`, ...extra];
      return options.chunked || options.contentLength !== undefined ? withBody(lines, '', options) : rawRequest(lines);
    },
  },
  { name: 'keyed JSON deposit', request: deposit('application/json', () => '{"cuAccountID":50001,"amount":0.01}') },
  {
    name: 'keyed XML deposit',
    request: deposit(
      'application/xml',
      () => '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><CUAccountID>50001</CUAccountID><Amount>0.01</Amount></ReceiptPaymentDto>',
    ),
  },
];

const UNAUTHENTICATED = rawRequest(['GET /accounts/50001 HTTP/1.1', 'Host: 127.0.0.1', 'X-Vendor-Token: not-a-key']);
const TOO_LARGE = rawRequest(
  [
    `POST ${DEPOSIT} HTTP/1.1`,
    'Host: 127.0.0.1',
    `X-Vendor-Token: ${SANDBOX_KEYS.demo}`,
    'Content-Type: application/json',
    'Idempotency-Key: too-large',
    'Content-Length: 70000',
  ],
  `{"cuAccountID":50001,"amount":0.01,"notes":"${'x'.repeat(70000 - 45)}"}`,
);
const HUGE_HEADERS = rawRequest(['GET /accounts/50001 HTTP/1.1', 'Host: 127.0.0.1', `X-Filler: ${'y'.repeat(40_000)}`]);
const BAD_SECOND = rawRequest(['GET /accounts/50001 HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 1', 'Content-Length: 2']);
const STRAY = 'GARBAGE \x00\x01 not http\r\n\r\n';
const CONNECT = 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n';
const UPGRADE = rawRequest([
  'GET /accounts/50001 HTTP/1.1',
  'Host: 127.0.0.1',
  `X-Vendor-Token: ${SANDBOX_KEYS.demo}`,
  'Connection: Upgrade',
  'Upgrade: websocket',
]);

interface Variant {
  readonly name: string;
  readonly parts: (route: Route) => readonly Part[];
  readonly end?: boolean;
  /** How many requests the core may parse at most (the rest must never reach it). */
  readonly coreAtMost: number;
  /** How many it must parse at least: the variant really put a request in front of the core. */
  readonly coreAtLeast: number;
}

const TE_REFUSED = ['gzip, chunked', 'chunked, chunked', 'identity', 'deflate', 'chunked;q=1'];

const VARIANTS: readonly Variant[] = [
  { name: 'the request alone', parts: (r) => [r.request()], coreAtLeast: 1, coreAtMost: 1 },
  { name: 'stray bytes right after a complete request', parts: (r) => [r.request() + STRAY], coreAtLeast: 0, coreAtMost: 1 },
  { name: 'stray bytes while the request is with the core', parts: (r) => [r.request(), 50, STRAY], coreAtLeast: 1, coreAtMost: 1 },
  { name: 'a malformed second request pipelined', parts: (r) => [r.request() + BAD_SECOND], coreAtLeast: 0, coreAtMost: 1 },
  { name: 'a malformed second request while the first is with the core', parts: (r) => [r.request(), 50, BAD_SECOND], coreAtLeast: 1, coreAtMost: 1 },
  { name: 'a request pipelined behind a 401', parts: (r) => [UNAUTHENTICATED + r.request()], coreAtLeast: 0, coreAtMost: 0 },
  {
    name: 'a request pipelined behind a Connection: close request',
    parts: (r) => [r.request(['Connection: close']) + r.request()],
    coreAtLeast: 1,
    coreAtMost: 1,
  },
  {
    name: 'a request pipelined behind a refused GET body (400, unread body)',
    parts: (r) => [
      rawRequest(['GET /accounts/50001 HTTP/1.1', 'Host: 127.0.0.1', `X-Vendor-Token: ${SANDBOX_KEYS.demo}`, 'Content-Length: 4'], 'abcd') + r.request(),
    ],
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  { name: 'a request sent after a 401 has been answered', parts: (r) => [UNAUTHENTICATED, 100, r.request()], coreAtLeast: 0, coreAtMost: 0 },
  {
    name: 'a 401 pipelined behind a request that is with the core',
    parts: (r) => [r.request() + UNAUTHENTICATED + r.request()],
    coreAtLeast: 1,
    coreAtMost: 1,
  },
  { name: 'a request pipelined behind a 413', parts: (r) => [TOO_LARGE + r.request()], coreAtLeast: 0, coreAtMost: 0 },
  { name: 'a request pipelined behind a 431', parts: (r) => [HUGE_HEADERS + r.request()], coreAtLeast: 0, coreAtMost: 0 },
  { name: 'two good requests pipelined', parts: (r) => [r.request() + r.request()], coreAtLeast: 2, coreAtMost: 2 },
  {
    name: 'a half-sent body, then the vendor half-closes',
    parts: (r) => [r.request([], { contentLength: 200, bodyPart: 10 })],
    end: true,
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  {
    name: 'a good request, then a half-sent one, then the vendor half-closes',
    parts: (r) => [r.request(), 30, r.request([], { contentLength: 200, bodyPart: 10 })],
    end: true,
    coreAtLeast: 0,
    coreAtMost: 1,
  },
  {
    name: 'a good request, then a half-sent one, then silence',
    parts: (r) => [r.request(), 30, r.request([], { contentLength: 200, bodyPart: 10 })],
    coreAtLeast: 1,
    coreAtMost: 1,
  },
  { name: 'stray bytes after the answer has arrived', parts: (r) => [r.request(), CORE_DELAY_MS * 3, STRAY], coreAtLeast: 1, coreAtMost: 1 },
  {
    name: 'a bad chunk size inside a chunked body',
    parts: (r) => [r.request(['Transfer-Encoding: chunked'], { chunked: true }).replace(/\r\n\r\n([0-9a-f]+)\r\n/, '\r\n\r\nzz$1\r\n')],
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  {
    name: 'a chunked body whose last chunk never comes, then half-close',
    parts: (r) => [r.request(['Transfer-Encoding: chunked'], { chunked: true }).replace(/0\r\n\r\n$/, '')],
    end: true,
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  {
    name: 'Expect: 100-continue, then stray bytes while with the core',
    parts: (r) => [r.request(['Expect: 100-continue']), 50, STRAY],
    coreAtLeast: 0,
    coreAtMost: 1,
  },
  {
    name: 'an HTTP/1.0 request with a request pipelined behind',
    parts: (r) => [r.request().replace(' HTTP/1.1\r\n', ' HTTP/1.0\r\n') + r.request()],
    coreAtLeast: 0,
    coreAtMost: 1,
  },
  { name: 'bare LF line endings', parts: (r) => [r.request().replace(/\r\n/g, '\n')], coreAtLeast: 0, coreAtMost: 1 },
  ...TE_REFUSED.map((coding) => ({
    name: `Transfer-Encoding: ${coding}, with a good request pipelined behind`,
    parts: (r: Route) => [r.request([`Transfer-Encoding: ${coding}`], { chunked: true }) + r.request()],
    coreAtLeast: 0,
    coreAtMost: 0,
  })),
  {
    name: 'Transfer-Encoding in two header lines (gzip, then chunked)',
    parts: (r) => [r.request(['Transfer-Encoding: gzip', 'Transfer-Encoding: chunked'], { chunked: true })],
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  {
    name: 'Content-Length with Transfer-Encoding: chunked',
    parts: (r) => [r.request(['Transfer-Encoding: chunked', 'Content-Length: 5'], { chunked: true }) + r.request()],
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  {
    name: 'Transfer-Encoding by obs-fold',
    parts: (r) => [r.request(['Transfer-Encoding: gzip,', ' chunked'], { chunked: true }) + r.request()],
    coreAtLeast: 0,
    coreAtMost: 0,
  },
  { name: 'CONNECT pipelined right behind a request', parts: (r) => [r.request() + CONNECT], coreAtLeast: 1, coreAtMost: 1 },
  { name: 'CONNECT while the request is with the core', parts: (r) => [r.request(), 50, CONNECT], coreAtLeast: 1, coreAtMost: 1 },
  { name: 'CONNECT while the request is with the core, then half-close', parts: (r) => [r.request(), 50, CONNECT], end: true, coreAtLeast: 1, coreAtMost: 1 },
  { name: 'an Upgrade request while the first is with the core', parts: (r) => [r.request(), 50, UPGRADE], coreAtLeast: 1, coreAtMost: 2 },
  { name: 'the vendor half-closes right after a complete request', parts: (r) => [r.request()], end: true, coreAtLeast: 1, coreAtMost: 1 },
  { name: 'the vendor half-closes while the request is with the core', parts: (r) => [r.request(), 50], end: true, coreAtLeast: 1, coreAtMost: 1 },
  { name: 'two requests pipelined, then half-close', parts: (r) => [r.request() + r.request()], end: true, coreAtLeast: 2, coreAtMost: 2 },
  {
    name: 'Transfer-Encoding: CHUNKED (mixed case, plain chunked)',
    parts: (r) => [r.request(['Transfer-Encoding: ChUnKeD'], { chunked: true })],
    coreAtLeast: 0,
    coreAtMost: 1,
  },
];

/** The route with every request it builds carrying `X-Request-Id: <tag><n>`, so the core's requests can be told apart by variant. */
function tagged(route: Route, tag: string): Route {
  let n = 0;
  return { name: route.name, request: (extra = [], options = {}) => route.request([`X-Request-Id: ${tag}${n++}`, ...extra], options) };
}

/** Runs the tasks, at most `limit` at a time. */
async function inBatches(tasks: ReadonlyArray<() => Promise<void>>, limit: number): Promise<void> {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let task = queue.shift(); task; task = queue.shift()) await task();
    }),
  );
}

describe('every request the core saw is answered on the vendor socket', () => {
  let sandbox: Listening;
  let core: RecordingCore;
  let gateway: TestGateway;
  const table: string[] = [];

  beforeAll(async () => {
    sandbox = await listenOnLoopback(createSandboxApp({ data: createSandboxData(7), defaultPageSize: 20, maxPageSize: 100 }));
    const relay = answerFrom(sandbox.url);
    core = await startRecordingCore((request, res) => void setTimeout(() => relay(request, res), CORE_DELAY_MS));
    gateway = await startTestGateway({ core: { url: core.url } });
    // Warm the road to the core, so the variants time no cold start.
    await fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/50001`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
    await sandbox.close();
    if (process.env.FRAMING_TABLE) process.stdout.write(`${table.join('\n')}\n`);
  });

  describe.each(ROUTES.map((route, index) => ({ route, name: route.name, prefix: `r${index}-` })))('on $name', ({ route, prefix }) => {
    const conversations = new Map<string, Conversation>();
    const coreSaw = (tag: string): string[] => core.parsed.map((request) => String(request.headers['x-request-id'])).filter((id) => id.startsWith(tag));

    // The variants run side by side (each on its own connection, told apart by X-Request-Id); the tests below judge them one by one.
    beforeAll(async () => {
      await inBatches(
        VARIANTS.map((variant, v) => async () => {
          conversations.set(variant.name, await converse(gateway.vendorPort, variant.parts(tagged(route, `${prefix}v${v}-`)), { end: variant.end ?? false }));
        }),
        8,
      );
      // Requests still on their way to the core when a socket went: give them time to land.
      await new Promise((r) => setTimeout(r, CORE_DELAY_MS * 2));
    }, 60_000);

    it.each(VARIANTS.map((variant, v) => ({ ...variant, tag: `${prefix}v${v}-` })))('$name', (variant) => {
      const conversation = conversations.get(variant.name) as Conversation;
      const saw = coreSaw(variant.tag);
      const answered = new Set(conversation.responses.map((response) => response.headers['x-request-id']));
      table.push(
        `| ${route.name} | ${variant.name} | core saw ${saw.length} | vendor got ${conversation.responses.map((r) => r.status).join(', ') || 'nothing'}${conversation.closed ? ', then close' : ''} |`,
      );
      expect(saw.filter((id) => !answered.has(id))).toEqual([]);
      expect(saw.length).toBeLessThanOrEqual(variant.coreAtMost);
      expect(saw.length).toBeGreaterThanOrEqual(variant.coreAtLeast);
    });

    it('answered every request of these variants that the core saw at all', () => {
      const answered = new Set([...conversations.values()].flatMap((c) => c.responses.map((response) => response.headers['x-request-id'])));
      expect(coreSaw(prefix).filter((id) => !answered.has(id))).toEqual([]);
    });
  });
});

describe('CONNECT, and a vendor that half-closes, over plain TCP and TLS', () => {
  const ca = createTestCa('answer-for-every-posting');
  const serverCert = ca.issue('localhost', { ips: ['127.0.0.1'] });
  const overTls: Dial = (port, ready) => tls.connect({ port, host: '127.0.0.1', servername: 'localhost', ca: readFileSync(ca.cert) }, ready);
  const keyedDeposit = ROUTES[1] as Route;
  const CASES: readonly Variant[] = [
    { name: 'the deposit alone', parts: (r) => [r.request()], coreAtLeast: 1, coreAtMost: 1 },
    { name: 'CONNECT in the same write as the deposit', parts: (r) => [r.request() + CONNECT], coreAtLeast: 1, coreAtMost: 1 },
    { name: 'CONNECT while the deposit is with the core', parts: (r) => [r.request(), 50, CONNECT], coreAtLeast: 1, coreAtMost: 1 },
    { name: 'half-close right after the deposit', parts: (r) => [r.request()], end: true, coreAtLeast: 1, coreAtMost: 1 },
    { name: 'half-close while the deposit is with the core', parts: (r) => [r.request(), 50], end: true, coreAtLeast: 1, coreAtMost: 1 },
  ];
  let sandbox: Listening;
  let core: RecordingCore;
  const gateways: Record<'plain' | 'TLS', TestGateway | undefined> = { plain: undefined, TLS: undefined };

  beforeAll(async () => {
    sandbox = await listenOnLoopback(createSandboxApp({ data: createSandboxData(7), defaultPageSize: 20, maxPageSize: 100 }));
    const relay = answerFrom(sandbox.url);
    core = await startRecordingCore((request, res) => void setTimeout(() => relay(request, res), CORE_DELAY_MS));
    gateways.plain = await startTestGateway({ core: { url: core.url } });
    gateways.TLS = await startTestGateway({ core: { url: core.url }, server: { tls: { certFile: serverCert.cert, keyFile: serverCert.key } } });
  });
  afterAll(async () => {
    await Promise.all(Object.values(gateways).map((gateway) => gateway?.stop()));
    await core.close();
    await sandbox.close();
  });

  describe.each([
    { transport: 'plain' as const, dial: plain },
    { transport: 'TLS' as const, dial: overTls },
  ])('over $transport', ({ transport, dial }) => {
    it.each(CASES)('$name: the vendor gets the answer of the deposit the core saw', async (variant) => {
      const gateway = gateways[transport] as TestGateway;
      const id = `${transport}-${randomUUID()}`;
      const request: Route = {
        name: keyedDeposit.name,
        request: (extra = [], options = {}) => keyedDeposit.request([`X-Request-Id: ${id}`, ...extra], options),
      };
      const conversation = await converse(gateway.vendorPort, variant.parts(request), { end: variant.end ?? false, dial });
      const saw = core.parsed.filter((parsed) => parsed.headers['x-request-id'] === id).length;
      expect(saw).toBeGreaterThanOrEqual(variant.coreAtLeast);
      expect(conversation.responses.filter((response) => response.headers['x-request-id'] === id).map((response) => response.status)).toEqual([201]);
    });

    it('a CONNECT on its own is refused with a 400 problem, and the connection closes', async () => {
      const gateway = gateways[transport] as TestGateway;
      const conversation = await converse(gateway.vendorPort, [CONNECT], { dial });
      expect(conversation.responses.map((response) => response.status)).toEqual([400]);
      expect(JSON.parse((conversation.responses[0] as RawResponse).body)).toMatchObject({ code: 'invalid_request' });
      expect(conversation.closed).toBe(true);
    });

    it('a half-close with nothing in flight is answered by a close', async () => {
      const gateway = gateways[transport] as TestGateway;
      const conversation = await converse(gateway.vendorPort, [10], { end: true, dial });
      expect(conversation).toEqual({ responses: [], closed: true });
    });
  });

  it('stops quickly with half-closed, CONNECT and abandoned-handshake connections left open', async () => {
    const left: net.Socket[] = [];
    for (const gateway of Object.values(gateways) as TestGateway[]) {
      const connect = net.connect(gateway.vendorPort, '127.0.0.1', () => connect.write(CONNECT));
      const halfClosed = net.connect(gateway.vendorPort, '127.0.0.1', () => halfClosed.end());
      // A TLS ClientHello that never finishes (a few bytes of a record), then FIN.
      const abandoned = net.connect(gateway.vendorPort, '127.0.0.1', () => abandoned.end(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40])));
      left.push(connect, halfClosed, abandoned);
    }
    for (const socket of left) socket.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await Promise.all(Object.values(gateways).map((gateway) => gateway?.stop()));
    gateways.plain = undefined;
    gateways.TLS = undefined;
    for (const socket of left) socket.destroy();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
