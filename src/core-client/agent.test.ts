/**
 * The core agents' idle sockets, against a real node:http core on loopback: the gateway closes
 * them before the core would (its own lifetime, or the core's shorter Keep-Alive hint), a request
 * that must not be sent twice takes no socket near its end, and a core slower than the idle
 * lifetime still answers.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createLogger } from '../logging/logger';
import { createCoreAgents, type CoreAgents } from './agent';
import { coreClientSchema } from './core-client.schema';

interface TestCore {
  readonly url: string;
  readonly server: http.Server;
  /** Connections accepted so far. */
  connections: number;
  /** Connections the gateway ended (its FIN came first). */
  endedByClient: number;
  close(): Promise<void>;
}

async function startCore(answerAfterMs = 0): Promise<TestCore> {
  const server = http.createServer((req, res) => {
    req.resume();
    setTimeout(() => res.end('ok'), answerAfterMs);
  });
  // Never closes idle sockets itself unless a test says so.
  server.keepAliveTimeout = 0;
  const core = {
    url: '',
    server,
    connections: 0,
    endedByClient: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
  server.on('connection', (socket: Socket) => {
    core.connections++;
    socket.once('end', () => core.endedByClient++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  core.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return core;
}

function send(agents: CoreAgents, url: string, method: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: agents.current(method), headers: method === 'GET' ? {} : { 'content-length': 2 } }, (res) => {
      res.resume().once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end(method === 'GET' ? undefined : '{}');
  });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const logger = createLogger('silent');

describe('core agents and idle sockets', () => {
  let core: TestCore;
  let agents: CoreAgents;
  afterEach(async () => {
    agents.destroy();
    await core.close();
  });

  it('closes an idle socket itself after idleSocketTimeoutMs', async () => {
    core = await startCore();
    agents = createCoreAgents(core.url, coreClientSchema.parse({ idleSocketTimeoutMs: 200, idleSocketMarginMs: 50 }), { logger });
    await send(agents, core.url, 'GET');
    await pause(400);
    expect(core.endedByClient).toBe(1);
  });

  it('closes it sooner when the core announces a shorter Keep-Alive timeout, less the margin', async () => {
    core = await startCore();
    // Announces timeout=2 but closes late: only the gateway's own timer can end the socket here.
    core.server.keepAliveTimeout = 2000;
    core.server.keepAliveTimeoutBuffer = 60_000;
    agents = createCoreAgents(core.url, coreClientSchema.parse({ idleSocketTimeoutMs: 60_000, idleSocketMarginMs: 1500 }), { logger });
    await send(agents, core.url, 'GET');
    await pause(800);
    expect(core.endedByClient).toBe(1);
  });

  it('sends a POST on a new connection rather than on a socket within the margin of its end; a GET reuses that socket', async () => {
    core = await startCore();
    agents = createCoreAgents(core.url, coreClientSchema.parse({ idleSocketTimeoutMs: 1000, idleSocketMarginMs: 500 }), { logger });
    await send(agents, core.url, 'GET');
    await pause(600);
    await send(agents, core.url, 'GET');
    expect(core.connections).toBe(1);
    await pause(600);
    expect(await send(agents, core.url, 'POST')).toBe(200);
    expect(core.connections).toBe(2);
    // A fresh socket serves the next POST at once.
    await send(agents, core.url, 'POST');
    expect(core.connections).toBe(2);
  });

  it('waits for a core slower than the idle lifetime: the lifetime counts only idle time', async () => {
    core = await startCore(600);
    agents = createCoreAgents(core.url, coreClientSchema.parse({ idleSocketTimeoutMs: 200, idleSocketMarginMs: 50 }), { logger });
    expect(await send(agents, core.url, 'POST')).toBe(200);
    // And again on the reused socket, whose timer Node set when it went idle.
    expect(await send(agents, core.url, 'GET')).toBe(200);
    expect(core.connections).toBe(1);
  });
});
