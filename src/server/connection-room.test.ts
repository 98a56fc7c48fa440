/**
 * Making room at the connection cap, on a real listener and bare sockets (and TLS): a newcomer
 * closes the least recently active connection (silent, slow headers, a body still arriving, or
 * idle since its last answer), never one with a complete request being answered; when all are,
 * the newcomer is closed.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../logging/logger';
import { createTestCa } from '../../test/support/tls-certs';
import { makeRoomAtCap } from './connection-room';
import { openListener } from './listener';

const LIMITS = { maxHeaderSize: 16_384, requestTimeoutMs: 5000, headersTimeoutMs: 2000, keepAliveTimeoutMs: 5000 };

/** A listener whose answers to `/held` wait until `release()`; everything else is answered at once. */
async function startServer(maxConnections: number): Promise<{ server: http.Server; port: number; release: () => void; dropped: () => number }> {
  const held: http.ServerResponse[] = [];
  let dropped = 0;
  const server = await openListener(
    (req, res) => {
      if (req.url === '/held') held.push(res);
      else res.end('ok');
    },
    0,
    '127.0.0.1',
    LIMITS,
    { logger: createLogger('silent'), maxConnections, makeRoomAtCap: true, onConnectionDropped: () => (dropped += 1) },
  );
  return {
    server,
    port: (server.address() as AddressInfo).port,
    release: () => {
      for (const res of held.splice(0)) res.end('released');
    },
    dropped: () => dropped,
  };
}

interface Client {
  readonly socket: net.Socket;
  /** Everything received so far. */
  text(): string;
  /** Resolves true once the server closed the connection, false if it is still open after `ms`. */
  closedWithin(ms: number): Promise<boolean>;
}

function watch(socket: net.Socket): Client {
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  return {
    socket,
    text: () => Buffer.concat(chunks).toString('latin1'),
    closedWithin: (ms) =>
      new Promise((resolve) => {
        if (closed) {
          resolve(true);
          return;
        }
        const timer = setTimeout(() => resolve(false), ms);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      }),
  };
}

/** A connection that has written `bytes` (once connected) and, when `awaitAnswer`, received an answer. */
async function connect(port: number, bytes: string, awaitAnswer = false): Promise<Client> {
  const socket = net.connect(port, '127.0.0.1');
  const client = watch(socket);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (bytes) socket.write(bytes);
  if (awaitAnswer) await Promise.race([new Promise((resolve) => socket.once('data', resolve)), client.closedWithin(2000)]);
  // Lets the server see the connection (and its bytes) before the next one arrives.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return client;
}

const GET = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: t\r\n\r\n`;

describe('makeRoomAtCap', () => {
  it('closes the least recently active connections first: silent and slow-header ones before a keep-alive one used since', async () => {
    const { server, port, dropped } = await startServer(3);
    const clients: Client[] = [];
    try {
      const partial = await connect(port, 'GET /slow HTTP/1.1\r\nHost: t\r\n');
      const silent = await connect(port, '');
      const used = await connect(port, GET('/quick'), true);
      clients.push(partial, silent, used);
      const first = await connect(port, '');
      clients.push(first);
      expect(await partial.closedWithin(500)).toBe(true);
      expect(await silent.closedWithin(100)).toBe(false);
      const second = await connect(port, '');
      clients.push(second);
      expect(await silent.closedWithin(500)).toBe(true);
      expect(await used.closedWithin(100)).toBe(false);
      expect(await first.closedWithin(100)).toBe(false);
      expect(dropped()).toBe(2);
    } finally {
      for (const client of clients) client.socket.destroy();
      server.close();
    }
  });

  it('closes an idle keep-alive connection rather than one being answered, whose answer still arrives', async () => {
    const { server, port, release } = await startServer(2);
    const clients: Client[] = [];
    try {
      const busy = await connect(port, GET('/held'));
      const idle = await connect(port, GET('/quick'), true);
      clients.push(busy, idle);
      const newcomer = await connect(port, GET('/quick'), true);
      clients.push(newcomer);
      expect(await idle.closedWithin(500)).toBe(true);
      expect(newcomer.text()).toMatch(/^HTTP\/1\.1 200 /);
      release();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(busy.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*released$/);
    } finally {
      for (const client of clients) client.socket.destroy();
      server.close();
    }
  });

  it('closes a connection whose request body is still arriving rather than the newcomer, and keeps one with a complete request', async () => {
    const { server, port, release } = await startServer(2);
    const clients: Client[] = [];
    try {
      const slowBody = await connect(port, 'POST /held HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n{');
      const busy = await connect(port, GET('/held'));
      clients.push(slowBody, busy);
      const newcomer = await connect(port, GET('/quick'), true);
      clients.push(newcomer);
      expect(await slowBody.closedWithin(500)).toBe(true);
      expect(newcomer.text()).toMatch(/^HTTP\/1\.1 200 /);
      release();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(busy.text()).toMatch(/released$/);
    } finally {
      for (const client of clients) client.socket.destroy();
      server.close();
    }
  });

  it('closes the newcomer when every connection is being answered', async () => {
    const { server, port, release, dropped } = await startServer(2);
    const clients: Client[] = [];
    try {
      const first = await connect(port, GET('/held'));
      const second = await connect(port, GET('/held'));
      clients.push(first, second);
      const newcomer = await connect(port, GET('/quick'));
      clients.push(newcomer);
      expect(await newcomer.closedWithin(500)).toBe(true);
      expect(newcomer.text()).toBe('');
      expect(dropped()).toBe(1);
      release();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(first.text()).toMatch(/released$/);
      expect(second.text()).toMatch(/released$/);
    } finally {
      for (const client of clients) client.socket.destroy();
      server.close();
    }
  });

  it('over HTTPS, keeps a connection whose request is being answered (its TLS socket is found by peer)', async () => {
    const ca = createTestCa('room-ca');
    const cert = ca.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
    const held: http.ServerResponse[] = [];
    const server = https.createServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }, (_req, res) => held.push(res));
    makeRoomAtCap(server, { maxConnections: 1 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const open = (): Promise<{ socket: tls.TLSSocket; client: Client }> =>
      new Promise((resolve) => {
        const socket = tls.connect({ port, host: '127.0.0.1', ca: readFileSync(ca.cert), servername: 'localhost' }, () =>
          resolve({ socket, client: watch(socket as unknown as net.Socket) }),
        );
        socket.on('error', () => undefined);
      });
    const busy = await open();
    const sockets: tls.TLSSocket[] = [busy.socket];
    try {
      busy.socket.write(GET('/held'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(held).toHaveLength(1);
      const raw = watch(net.connect(port, '127.0.0.1'));
      sockets.push(raw.socket as unknown as tls.TLSSocket);
      expect(await raw.closedWithin(500)).toBe(true);
      expect(await busy.client.closedWithin(100)).toBe(false);
      for (const res of held) res.end('released');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(busy.client.text()).toMatch(/^HTTP\/1\.1 200 [\s\S]*released$/);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
