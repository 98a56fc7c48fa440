/**
 * One gateway instance of the scale benchmark (`npm run bench:scale`): Redis mode, pointed at
 * the bench upstream, the access config taken from Redis as it is (nothing seeded).
 *
 * Reads argv: upstream URL, Redis URL, key prefix. Sends over IPC, once ready: its ports, how
 * long the start took and the longest event-loop stall while it loaded; on `stats`: the peak RSS
 * so far and the longest stall since the last `stats`.
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
  process.send?.({ peakRssMb: process.resourceUsage().maxRSS / 1024, stallMs: stalls.max / 1e6 });
  stalls.reset();
});
process.once('SIGTERM', () => process.exit(0));
