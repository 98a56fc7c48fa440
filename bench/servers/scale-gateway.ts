/**
 * One gateway instance of the scale benchmark (`npm run bench:scale`): Redis mode, pointed at
 * the bench upstream, the access config taken from Redis as it is (nothing seeded).
 *
 * Reads argv: upstream URL, Redis URL, key prefix; optionally `--request-log <entries>`: holds a
 * full ring of that many request summaries, as the vendor portal's request log will (the memory
 * budget, bench/memory-budget.ts). Sends over IPC, once ready: its ports, how long the start took
 * and the longest event-loop stall while it loaded; on `stats`: the peak and present RSS, the
 * ring's heap and the longest stall since the last `stats`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { upstreamUrlArgument } from './ready';

const [, , , redisUrl, keyPrefix] = process.argv;
if (!redisUrl || keyPrefix === undefined) throw new Error('usage: scale-gateway <upstream url> <redis url> <key prefix>');

const started = performance.now();
const ringAt = process.argv.indexOf('--request-log');
const ringMb = ringAt > 0 ? holdRequestLog(Number(process.argv[ringAt + 1])) : 0;

/**
 * A full ring of `entries` request summaries of about 300 bytes each (ids, route, status,
 * timings, a 64-character request id), each its own object and strings as a real log's would be;
 * returns the heap it took, MiB. Kept for the process's life.
 */
function holdRequestLog(entries: number): number {
  const before = process.memoryUsage().heapUsed;
  const ring: object[] = [];
  for (let i = 0; i < entries; i++) {
    ring.push({
      at: new Date(Date.now() - i).toISOString(),
      requestId: `${i.toString(16).padStart(8, '0')}-req-${'x'.repeat(50)}`,
      vendorId: `vendor-${i % 40}`,
      keyId: `key-${i}`,
      method: i % 3 === 0 ? 'POST' : 'GET',
      path: `/api/transaction/savings/deposit/${i}`,
      status: 200,
      durationMs: i % 97,
      coreMs: i % 89,
      bytes: 300 + (i % 1000),
    });
  }
  (globalThis as { requestLog?: object[] }).requestLog = ring;
  return (process.memoryUsage().heapUsed - before) / 2 ** 20;
}
const stalls = monitorEventLoopDelay({ resolution: 5 });
stalls.enable();

const config = loadConfig({
  env: { NODE_ENV: 'production' },
  overrides: {
    server: { host: '127.0.0.1', port: 0, adminPort: 0, statusPort: 0 },
    core: { url: upstreamUrlArgument() },
    redis: { url: redisUrl, keyPrefix, seedAccessFile: 'never' },
    admin: { token: 'bench-admin-token-not-secret-0001' },
    twoFactor: { pepper: 'bench-pepper-not-secret-0123456789abcdef' },
    sandbox: { allowWithRealCore: true },
  },
});
const logger = createLogger('info', pino.destination({ dest: '/dev/null', sync: false }));

void startGateway(config, logger).then((gateway) => {
  process.send?.({ vendorPort: gateway.vendorPort, adminPort: gateway.adminPort, readyMs: performance.now() - started, loadStallMs: stalls.max / 1e6 });
  stalls.reset();
});

process.on('message', (message) => {
  if (message !== 'stats') return;
  process.send?.({ peakRssMb: process.resourceUsage().maxRSS / 1024, rssMb: process.memoryUsage().rss / 2 ** 20, ringMb, stallMs: stalls.max / 1e6 });
  stalls.reset();
});
process.once('SIGTERM', () => process.exit(0));
