/**
 * Connection turns on a real listener and bare sockets: pipelined requests run one after the
 * other, none runs behind an answer that closed the connection, a parse error behind a request
 * being answered lets that answer out and then closes, and a connection that piles up requests
 * is closed after the one being answered.
 */
import net from 'node:net';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../logging/logger';
import { parseResponses } from '../../test/support/raw-http';
import { inFlightRequests, openListener } from './listener';

const LIMITS = { maxHeaderSize: 16_384, requestTimeoutMs: 5000, headersTimeoutMs: 2000, keepAliveTimeoutMs: 5000 };

interface Seen {
  readonly url: string;
  readonly startedWhileBusy: boolean;
}

async function startServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ server: http.Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  let busy = 0;
  const server = await openListener(
    (req, res) => {
      seen.push({ url: req.url ?? '', startedWhileBusy: busy > 0 });
      busy += 1;
      res.once('finish', () => (busy -= 1));
      answer(req, res);
    },
    0,
    '127.0.0.1',
    LIMITS,
    { logger: createLogger('silent') },
  );
  return { server, port: (server.address() as AddressInfo).port, seen };
}

function send(port: number, bytes: string, waitMs = 400): Promise<{ statuses: number[]; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let closed = false;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    setTimeout(() => {
      socket.destroy();
      resolve({ statuses: parseResponses(Buffer.concat(chunks).toString('latin1')).map((r) => r.status), closed });
    }, waitMs);
  });
}

const get = (path: string, extra = ''): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const slowly = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  setTimeout(() => {
    if (req.url === '/close') res.setHeader('Connection', 'close');
    res.end('ok');
  }, 50);
};

describe('connection turns', () => {
  let running: Awaited<ReturnType<typeof startServer>>;
  beforeEach(async () => {
    running = await startServer(slowly);
  });
  afterEach(() => new Promise((resolve) => running.server.close(resolve)));

  it('runs pipelined requests one at a time, in order', async () => {
    const { statuses } = await send(running.port, get('/a') + get('/b') + get('/c'));
    expect(statuses).toEqual([200, 200, 200]);
    expect(running.seen).toEqual([
      { url: '/a', startedWhileBusy: false },
      { url: '/b', startedWhileBusy: false },
      { url: '/c', startedWhileBusy: false },
    ]);
  });

  it('never runs a request pipelined behind an answer that closed the connection', async () => {
    const { statuses, closed } = await send(running.port, get('/close') + get('/after'));
    expect(statuses).toEqual([200]);
    expect(closed).toBe(true);
    expect(running.seen.map((s) => s.url)).toEqual(['/close']);
    // The skipped request is not left in flight, where it would hold a drain until its time is over.
    expect(inFlightRequests(running.server)).toBe(0);
  });

  it('sends the answer of a request being answered when bytes after it are no HTTP, then closes without a 400', async () => {
    const { statuses, closed } = await send(running.port, `${get('/a')}NOT HTTP\r\n\r\n`);
    expect(statuses).toEqual([200]);
    expect(closed).toBe(true);
  });

  it('answers bad bytes with 400 when nothing is being answered', async () => {
    const { statuses, closed } = await send(running.port, 'NOT HTTP\r\n\r\n');
    expect(statuses).toEqual([400]);
    expect(closed).toBe(true);
  });

  it('closes a connection that piles up requests after the one being answered, running none of the pile', async () => {
    const { statuses, closed } = await send(running.port, Array.from({ length: 40 }, (_, i) => get(`/p${i}`)).join(''));
    expect(statuses).toEqual([200]);
    expect(closed).toBe(true);
    expect(running.seen.map((s) => s.url)).toEqual(['/p0']);
  });
});
