/**
 * A core behind a raw byte recorder, for boundary tests: a TCP relay on its own loopback port
 * keeps every byte the gateway sends and passes it to a real HTTP server (the sandbox core, or
 * any handler), which records every request it parsed. A test can then hold the gateway to
 * what it promised: the core parsed no more requests than the gateway accepted, no request
 * line hid in the bytes, and no header outside the allow-list arrived.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ParsedCoreRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface RecordingCore {
  readonly url: string;
  /** Requests the core's HTTP server parsed, in order. */
  readonly parsed: ParsedCoreRequest[];
  /** Times the core's HTTP parser refused the bytes it got (malformed or unframed requests). */
  readonly clientErrors: number;
  /** Every byte the gateway sent, all connections in arrival order. */
  rawText(): string;
  /** Request lines (`METHOD target HTTP/1.x`) found anywhere in the raw bytes, bodies included. */
  requestLinesSeen(): number;
  /** Headers of parsed requests outside `allowed` (lower case), as `name` entries. */
  headersOutside(allowed: ReadonlySet<string>): string[];
  reset(): void;
  close(): Promise<void>;
}

const REQUEST_LINE = /(?:^|\r?\n)[A-Z]{3,10} \S+ HTTP\/\d\.\d\r?\n/g;

/** The headers the core may receive from the gateway: its own words and the framing it sets. */
export const CORE_HEADER_ALLOW_LIST: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'content-type',
  'content-length',
  'accept',
  'accept-encoding',
  'x-request-id',
  'traceparent',
  'x-vendor-id',
  'x-vendor-user',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);

export type CoreResponder = (request: ParsedCoreRequest, res: http.ServerResponse) => void;

export async function startRecordingCore(respond: CoreResponder = echoAnswer): Promise<RecordingCore> {
  const parsed: ParsedCoreRequest[] = [];
  const raw: Buffer[] = [];
  let clientErrors = 0;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const inner = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      parsed.push(request);
      respond(request, res);
    });
  });
  inner.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Parse errors only: a reset (the gateway cutting an abandoned call) is no malformed request.
    if (err.code?.startsWith('HPE_')) clientErrors += 1;
    socket.destroy();
  });
  inner.on('connection', track);
  await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
  const innerPort = (inner.address() as AddressInfo).port;

  const relay = net.createServer((from) => {
    track(from);
    const to = net.connect(innerPort, '127.0.0.1');
    track(to);
    from.on('data', (chunk: Buffer) => raw.push(chunk));
    from.pipe(to);
    to.pipe(from);
    from.on('error', () => to.destroy());
    to.on('error', () => from.destroy());
    from.on('close', () => to.destroy());
    to.on('close', () => from.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const port = (relay.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    parsed,
    get clientErrors() {
      return clientErrors;
    },
    rawText: () => Buffer.concat(raw).toString('latin1'),
    requestLinesSeen: () => Buffer.concat(raw).toString('latin1').match(REQUEST_LINE)?.length ?? 0,
    headersOutside: (allowed) => parsed.flatMap((request) => Object.keys(request.headers).filter((name) => !allowed.has(name))),
    reset() {
      parsed.length = 0;
      raw.length = 0;
      clientErrors = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise((resolve) => relay.close(resolve)), new Promise((resolve) => inner.close(resolve))]);
    },
  };
}

/** Answers as a JSON echo of what the core received. */
export const echoAnswer: CoreResponder = (request, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: request.method, url: request.url }));
};

/** Passes each request on, as it was parsed, to a real core (the sandbox) and its answer back. */
export function answerFrom(coreUrl: string): CoreResponder {
  return (request, res) => {
    const out = http.request(`${coreUrl}${request.url}`, { method: request.method, headers: request.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(request.body);
  };
}
