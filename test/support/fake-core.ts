/**
 * A controllable stand-in for the core on a fixed loopback port, for resilience tests: it can
 * answer (any status, after any delay), hang, reset the connection after reading the request,
 * or go down entirely (the port refuses connections) and come back on the same port.
 *
 * It counts TCP connections and records every request it read, so a test can prove that the
 * gateway did not touch it (breaker open) or never sent a request twice.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface CoreRequestSeen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type CoreBehaviour =
  | { readonly kind: 'answer'; readonly status: number; readonly delayMs?: number; readonly body?: string }
  /** Reads the request, then never answers. */
  | { readonly kind: 'hang' }
  /** Reads the whole request, then resets the connection: a failure after the request was sent. */
  | { readonly kind: 'reset' };

export interface FakeCore {
  readonly url: string;
  readonly port: number;
  readonly requests: CoreRequestSeen[];
  /** TCP connections accepted since start (or the last `resetCounts`). */
  readonly connections: number;
  /** How to treat requests once `queued` is empty. */
  behaviour: CoreBehaviour;
  /** One behaviour per coming request, first in first out, before `behaviour` applies again. */
  readonly queued: CoreBehaviour[];
  /** Connections aborted by the gateway before the answer (e.g. on its timeout). */
  readonly abortedByClient: number;
  resetCounts(): void;
  /** Closes the port: connections are refused until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

const OK: CoreBehaviour = { kind: 'answer', status: 200 };

export async function startFakeCore(initial: CoreBehaviour = OK): Promise<FakeCore> {
  const requests: CoreRequestSeen[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let abortedByClient = 0;
  let server: http.Server | null = null;
  let port = 0;

  const core: FakeCore = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    requests,
    get connections() {
      return connections;
    },
    get abortedByClient() {
      return abortedByClient;
    },
    behaviour: initial,
    queued: [],
    resetCounts() {
      requests.length = 0;
      connections = 0;
      abortedByClient = 0;
    },
    down: () => stop(),
    up: () => start(),
    close: () => stop(),
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = core.queued.shift() ?? core.behaviour;
      res.once('close', () => {
        if (!res.writableFinished) abortedByClient += 1;
      });
      if (behaviour.kind === 'hang') return;
      if (behaviour.kind === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      const answer = (): void => {
        if (res.destroyed) return;
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.end(behaviour.body ?? JSON.stringify({ method: req.method, url: req.url }));
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  };

  async function start(): Promise<void> {
    const next = http.createServer(handle);
    next.on('connection', (socket: Socket) => {
      connections += 1;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    server = next;
    port = (next.address() as AddressInfo).port;
  }

  async function stop(): Promise<void> {
    const running = server;
    if (!running) return;
    server = null;
    await new Promise<void>((resolve) => {
      running.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  }

  await start();
  return core;
}
