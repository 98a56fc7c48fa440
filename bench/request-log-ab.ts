/**
 * `npm run bench:request-log-ab`: what the vendor portal's request log costs a request, as the
 * gateway process's CPU time per request (its `process.cpuUsage()` before and after a run, over
 * the requests of the run), which a busy shared machine disturbs far less than throughput: time
 * a process is not scheduled is not counted. Two gateways on one private Redis, the same
 * upstream, one logging and one without the log (`--no-request-log`), loaded in turn (A B, then
 * B A, …; ROUNDS rounds of SECONDS at RATE requests a second, open loop, the authenticated
 * resource GET, so both do the same work at the same pace). Prints each run, the medians, and
 * the median of each round's on/off ratio, which the bound holds to (at most 5 % more CPU per
 * request): a round's two runs are back to back, so the machine's other load touches both alike.
 *
 * The same cost counted in one process, which outside load disturbs least: CPU µs per entry of
 * `record` and the batched write to Redis (batches of FLUSH_BATCH, the entries a 250 ms flush
 * holds at 400 req/s), set against the A/B's CPU per request without the log.
 *
 * Then the Redis memory the log takes: 100,000 entries written through the Redis store into an
 * empty private Redis (10 vendors; gateway-made request ids of 36 characters, and again with the
 * longest id a vendor may send, 128), INFO used_memory before and after.
 *
 * Loopback only; every process started is stopped.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { startRedisServer } from '../test/support/redis-server';
import { RedisLogStore } from '../src/portal/request-log/redis-log-store';
import type { VendorBatch } from '../src/portal/request-log/log-store';
import { createRequestLog } from '../src/portal/request-log/create-request-log';
import type { RequestLog } from '../src/portal/request-log/request-log';
import { createLogger } from '../src/logging/logger';
import { nextMessage, stopChild } from './child-process';
import { benchAccess, LOAD_CORE, median, requests, runLoad, SERVER_CORE, startServer, type Server } from './rig';
import type { LoadSpec } from './load/spec';

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 5);
const RATE = Number(process.env.RATE ?? 400);
const BOUND = 1.05;

async function cpuMicros(server: Server): Promise<number> {
  const answer = nextMessage<{ cpu: NodeJS.CpuUsage }>(server.child, `${server.name} cpu`, 10_000);
  server.child.send('cpu');
  const { cpu } = await answer;
  return cpu.user + cpu.system;
}

/** One open-loop run: CPU µs per request of the gateway, and how many requests failed. */
async function run(server: Server, spec: LoadSpec): Promise<{ micros: number; failed: number }> {
  const before = await cpuMicros(server);
  const result = await runLoad(spec);
  const after = await cpuMicros(server);
  return { micros: (after - before) / (result.completed + result.failed), failed: result.failed };
}

async function abRounds(): Promise<number> {
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  const logging = await startServer('gateway (request log)', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile]);
  const plain = await startServer('gateway (no request log)', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile, '--no-request-log']);
  const spec = (g: Server): LoadSpec => ({
    kind: 'open-loop',
    url: g.url,
    request: requests(secret).resource,
    seconds: SECONDS,
    connections: 0,
    rate: RATE,
    warmupSeconds: 0,
  });
  const micros = new Map<Server, number[]>([
    [logging, []],
    [plain, []],
  ]);
  try {
    // Warm: the JIT has compiled the request path of both before anything is counted.
    for (const g of [logging, plain]) await runLoad({ ...spec(g), seconds: 10 });
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const g of round % 2 === 1 ? [logging, plain] : [plain, logging]) {
        const r = await run(g, spec(g));
        micros.get(g)?.push(r.micros);
        console.log(`round ${round} ${g.name}: ${r.micros.toFixed(0)} µs CPU per request (${r.failed} failed)`);
      }
    }
    const onRuns = micros.get(logging) ?? [];
    const offRuns = micros.get(plain) ?? [];
    const on = median(onRuns);
    const off = median(offRuns);
    // Each round's two runs are back to back, so their ratio cancels most of what the machine's other load does to both.
    const paired = median(onRuns.map((value, i) => value / (offRuns[i] as number)));
    const percent = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
    console.log(
      `request log A/B (${ROUNDS} rounds × ${SECONDS} s at ${RATE} req/s): medians on ${on.toFixed(0)} µs, off ${off.toFixed(0)} µs CPU per request (${percent(on / off)}); ` +
        `median of the rounds' on/off ratios ${percent(paired)} (bound +${((BOUND - 1) * 100).toFixed(0)} %): ${paired <= BOUND ? 'within' : 'OVER'}`,
    );
    return off;
  } finally {
    for (const server of [logging, plain, upstream]) await stopChild(server.child);
    await redis.stop();
  }
}

const FLUSH_BATCH = 100;
const COUNTED_ENTRIES = 50_000;

/** CPU µs per entry of record() and the batched write, in this process, after a first pass to warm it. */
async function inProcessMicros(): Promise<number> {
  const server = await startRedisServer();
  const client = new Redis(server.url);
  const log = createRequestLog(
    { enabled: true, retentionHours: 72, maxEntriesPerVendor: 100_000, maxEntriesTotal: 500_000, flushIntervalMs: 60_000 },
    { redis: client, keyPrefix: 'cost:', logger: createLogger('silent') },
  ) as RequestLog;
  const pass = async (): Promise<number> => {
    const before = process.cpuUsage();
    for (let batch = 0; batch < COUNTED_ENTRIES / FLUSH_BATCH; batch++) {
      for (let i = 0; i < FLUSH_BATCH; i++) {
        log.record('bench', {
          at: new Date().toISOString(),
          requestId: randomUUID(),
          apiId: 'GETaccounts/{accountId}',
          status: 200,
          durationMs: 1.2,
          upstreamStatus: 200,
          upstreamMs: 0.8,
          keyPrefix: 'cbk_a1B2c3D4',
        });
      }
      await log.flush();
    }
    const cpu = process.cpuUsage(before);
    return (cpu.user + cpu.system) / COUNTED_ENTRIES;
  };
  try {
    await pass();
    return Math.min(await pass(), await pass());
  } finally {
    await log.stop();
    client.disconnect();
    await server.stop();
  }
}

const ENTRIES = 100_000;
const VENDORS = 10;
const API_IDS = [
  'GETaccounts/{accountId}',
  'GETaccounts',
  'POSTapi/transaction/deposit',
  'GETcustomers/{memberId}/accounts',
  'PUTbankaccounts/{bankaccountid}',
];

/** used_memory after writing ENTRIES entries into an empty Redis, less before. */
async function redisBytes(requestId: () => string): Promise<number> {
  const server = await startRedisServer();
  const client = new Redis(server.url);
  try {
    const store = new RedisLogStore(client, 'cbg:', { retentionMs: 72 * 3_600_000, maxEntriesPerVendor: ENTRIES, maxEntriesTotal: ENTRIES * 10 });
    const used = async (): Promise<number> => Number(/used_memory:(\d+)/.exec(await client.info('memory'))?.[1]);
    const before = await used();
    const now = Date.now();
    for (let i = 0; i < ENTRIES; i += 1000) {
      const batches: VendorBatch[] = Array.from({ length: VENDORS }, (_, v) => ({
        vendorId: `vendor-${v}`,
        entries: Array.from({ length: 1000 / VENDORS }, (_, j) => {
          const k = i + j * VENDORS + v;
          const refused = k % 17 === 0;
          return {
            at: new Date(now - (ENTRIES - k) * 10).toISOString(),
            requestId: requestId(),
            apiId: API_IDS[k % API_IDS.length] as string,
            status: refused ? 404 : 200,
            durationMs: Math.round(Math.random() * 800) / 10,
            upstreamStatus: refused ? 404 : 200,
            upstreamMs: Math.round(Math.random() * 600) / 10,
            keyPrefix: 'cbk_a1B2c3D4',
            ...(refused ? { code: 'not_found' } : {}),
          };
        }),
      }));
      await store.add(batches, now);
    }
    return (await used()) - before;
  } finally {
    client.disconnect();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const offMicros = await abRounds();
  const perEntry = await inProcessMicros();
  console.log(
    `request log in one process: ${perEntry.toFixed(1)} µs CPU per entry (record + batched write, batches of ${FLUSH_BATCH}, uuid and timestamp included): ` +
      `${((perEntry / offMicros) * 100).toFixed(1)} % of the ${offMicros.toFixed(0)} µs a request takes without the log`,
  );
  const generated = await redisBytes(randomUUID);
  const longest = await redisBytes(() => `${randomUUID()}${'x'.repeat(92)}`);
  const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
  console.log(
    `request log Redis memory per ${ENTRIES.toLocaleString('en')} entries: ${mb(generated)} MB (${(generated / ENTRIES).toFixed(0)} B each) with 36-character request ids, ` +
      `${mb(longest)} MB with 128-character ones`,
  );
}

void main();
