/**
 * The gateway under benchmark: `startGateway` in Redis mode with the full vendor pipeline,
 * pointed at the bench upstream, access seeded from the runner's access file.
 *
 * Reads argv: upstream URL, Redis URL, access file; optionally `--tls <ca> <cert> <key>`,
 * `--compression '<json>'`, `--no-traffic-counts` and `--no-request-log`. Logs at `info` (the production default)
 * into /dev/null, so every request still pays for building and serialising its access-log
 * line, as in production, without the bench's terminal paying for writing it. Answers the
 * runner's tail probes (event-loop delay and GC pauses of a latency round, `tail-probe.ts`).
 */
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { answerAllocationProbe } from './allocation-probe';
import { announcePort, tlsFilesArgument, upstreamUrlArgument } from './ready';
import { answerTailProbes } from './tail-probe';

const [, , , redisUrl, accessFile] = process.argv;
// With --tls: mutual TLS to an https upstream, from the bench's private CA.
const tls = tlsFilesArgument();
// With --compression '<json>': compression settings other than the defaults (bench/compression-levels.ts).
const compressionAt = process.argv.indexOf('--compression');
const compression = compressionAt > 0 ? (JSON.parse(process.argv[compressionAt + 1] ?? '{}') as Record<string, unknown>) : undefined;
// With --no-traffic-counts: a Prometheus address (never asked during the bench) turns the gateway's own
// traffic counts off, so bench/traffic-ab.ts can measure what they cost.
const trafficCounts = !process.argv.includes('--no-traffic-counts');
// With --no-request-log: the vendor portal's request log off, so bench/request-log-ab.ts can measure what it costs.
const requestLog = !process.argv.includes('--no-request-log');
if (!redisUrl || !accessFile) throw new Error('usage: gateway <upstream url> <redis url> <access file>');

const config = loadConfig({
  env: { NODE_ENV: 'production' },
  overrides: {
    server: { host: '127.0.0.1', port: 0, adminPort: 0, statusPort: 0 },
    core: { url: upstreamUrlArgument(), ...(tls ? { tls: { caFile: tls.ca, certFile: tls.cert, keyFile: tls.key, serverName: 'localhost' } } : {}) },
    redis: { url: redisUrl, seedAccessFile: 'always' },
    access: { file: accessFile },
    admin: { token: 'bench-admin-token-not-secret-0001', ...(trafficCounts ? {} : { prometheusUrl: 'http://127.0.0.1:9' }) },
    twoFactor: { pepper: 'bench-pepper-not-secret-0123456789abcdef' },
    // A bench rig: a stand-in core with the outbox SMS provider.
    sandbox: { allowWithRealCore: true },
    ...(compression ? { compression } : {}),
    ...(requestLog ? {} : { portal: { requestLog: { enabled: false } } }),
  },
});
const logger = createLogger('info', pino.destination({ dest: '/dev/null', sync: false }));

void startGateway(config, logger).then((gateway) => announcePort(gateway.vendorPort));

// Exit normally on SIGTERM, so `--cpu-prof` (bench --profile) writes its profile.
process.once('SIGTERM', () => process.exit(0));

answerTailProbes();

// The soak asks for the heap after a full GC (it starts this process with --expose-gc);
// bench/request-log-ab.ts asks for the process's CPU time;
// bench/alloc.ts marks the start and end of its measured requests (see allocation-probe.ts).
process.on('message', (message) => {
  if (message === 'heap') {
    global.gc?.();
    process.send?.({ heapUsed: process.memoryUsage().heapUsed });
  } else if (message === 'cpu') {
    process.send?.({ cpu: process.cpuUsage() });
  } else answerAllocationProbe(message);
});
