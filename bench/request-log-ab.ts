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
import { nextMessage, stopChild } from './child-process';
import { benchAccess, LOAD_CORE, median, requests, runLoad, SERVER_CORE, startServer, type Server } from './rig';
import type { LoadSpec } from './load/spec';

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 6);
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

async function abRounds(): Promise<void> {
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
  } finally {
    for (const server of [logging, plain, upstream]) await stopChild(server.child);
    await redis.stop();
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
  await abRounds();
  const generated = await redisBytes(randomUUID);
  const longest = await redisBytes(() => `${randomUUID()}${'x'.repeat(92)}`);
  const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
  console.log(
    `request log Redis memory per ${ENTRIES.toLocaleString('en')} entries: ${mb(generated)} MB (${(generated / ENTRIES).toFixed(0)} B each) with 36-character request ids, ` +
      `${mb(longest)} MB with 128-character ones`,
  );
}

void main();
