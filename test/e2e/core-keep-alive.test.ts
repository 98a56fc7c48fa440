/**
 * Keep-alive to the core without the race: a core that closes idle sockets after a short time
 * (here 0.5 s or 1 s, with or without a Keep-Alive hint) gets deposits from the whole gateway in
 * waves, with idle gaps around its own keep-alive timeout. A socket the core is closing must never
 * carry a deposit: every deposit is answered 2xx, and the sockets are still reused within a wave.
 *
 * The core is the sandbox app behind a plain node:http server that counts its connections.
 */
import http from 'node:http';
import { createSandboxApp } from '../../src/sandbox/app';
import { createSandboxData } from '../../src/sandbox/data';
import { SANDBOX_KEYS, startTestGateway } from '../support/gateway';
import { listenOnLoopback } from '../support/listen';

const DEPOSIT_BODY = '{"cuAccountID":50001,"amount":0.01}';
/** Deposits under way at once within a wave: each a worker sending its share back to back. */
const WORKERS = 40;

interface CoreIdlePolicy {
  /** server.keepAliveTimeout (0: none, and no Keep-Alive hint). */
  readonly keepAliveTimeoutMs: number;
  /** Idle time after which the core drops a socket itself, when it sends no hint. */
  readonly silentIdleCloseMs?: number;
}

interface Run {
  readonly statuses: Map<number | string, number>;
  readonly deposits: number;
  readonly coreConnections: number;
}

function gapAround(ms: number): number {
  return ms - 20 + Math.random() * 40;
}

async function depositWaves(policy: CoreIdlePolicy, core: Record<string, unknown>, waves: number, perWave: number, gapMs: number): Promise<Run> {
  const sandbox = createSandboxApp({ data: createSandboxData(7), defaultPageSize: 20, maxPageSize: 100 });
  const listening = await listenOnLoopback(sandbox);
  const server = listening.server;
  server.keepAliveTimeout = policy.keepAliveTimeoutMs;
  // Node's server waits keepAliveTimeoutBuffer past what it announces; a core closing on time does not.
  server.keepAliveTimeoutBuffer = 0;
  let coreConnections = 0;
  server.on('connection', (socket) => {
    coreConnections++;
    if (policy.silentIdleCloseMs) socket.setTimeout(policy.silentIdleCloseMs, () => socket.destroy());
  });
  const gateway = await startTestGateway({ core: { url: listening.url, maxFreeSockets: 256, ...core }, rateLimit: { defaultPoints: 100_000 } });
  const vendor = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
  const statuses = new Map<number | string, number>();
  const count = (key: number | string): void => void statuses.set(key, (statuses.get(key) ?? 0) + 1);
  let sequence = 0;
  const deposit = (): Promise<void> =>
    new Promise((resolve) => {
      const key = `keep-alive-${process.pid}-${sequence++}`;
      const req = http.request(
        `${gateway.url}/api/transaction/savings/deposit`,
        {
          method: 'POST',
          agent: vendor,
          headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json', 'Idempotency-Key': key, 'content-length': DEPOSIT_BODY.length },
        },
        (res) => {
          count(res.statusCode ?? 0);
          res.resume().once('end', resolve);
        },
      );
      req.once('error', (err) => {
        count(err.message);
        resolve();
      });
      req.end(DEPOSIT_BODY);
    });
  try {
    for (let wave = 0; wave < waves; wave++) {
      if (wave > 0) await new Promise((resolve) => setTimeout(resolve, gapAround(gapMs)));
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          for (let i = 0; i < perWave / WORKERS; i++) await deposit();
        }),
      );
    }
  } finally {
    vendor.destroy();
    await gateway.stop();
    await listening.close();
  }
  return { statuses, deposits: waves * perWave, coreConnections };
}

function failures(run: Run): Record<string, number> {
  return Object.fromEntries([...run.statuses].filter(([status]) => typeof status !== 'number' || status >= 300));
}

describe('keep-alive sockets to a core that closes idle ones', () => {
  it('answers 1,000 deposits in waves 0.5 s apart when the core drops sockets idle for 0.5 s without a hint', async () => {
    const run = await depositWaves({ keepAliveTimeoutMs: 0, silentIdleCloseMs: 500 }, { idleSocketTimeoutMs: 200, idleSocketMarginMs: 100 }, 5, 200, 500);
    expect(failures(run)).toEqual({});
    // Still keep-alive: a wave's deposits share the sockets of its workers.
    expect(run.coreConnections).toBeLessThan(run.deposits / 2);
  }, 30_000);

  it("honours the core's Keep-Alive: timeout=1 over a longer idleSocketTimeoutMs, for deposits in waves 1 s apart", async () => {
    const run = await depositWaves({ keepAliveTimeoutMs: 1000 }, { idleSocketTimeoutMs: 60_000, idleSocketMarginMs: 400 }, 3, 120, 1000);
    expect(failures(run)).toEqual({});
    expect(run.coreConnections).toBeLessThan(run.deposits / 2);
  }, 30_000);

  it('answers deposits in waves 0.5 s apart when the core closes at 0.5 s and says Keep-Alive: timeout=0', async () => {
    const run = await depositWaves({ keepAliveTimeoutMs: 500 }, {}, 2, 80, 500);
    expect(failures(run)).toEqual({});
  }, 30_000);
});
