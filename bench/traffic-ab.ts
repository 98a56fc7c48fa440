/**
 * `npm run bench:traffic-ab`: what the gateway's own traffic counts (GET /v1/traffic without
 * Prometheus) cost a whole request. Two gateways on one private Redis, the same upstream, one with
 * the counts and one without (`--no-traffic-counts`), loaded in turn (A B A B …, 5 s each,
 * autocannon, 50 connections, the authenticated resource GET) so outside load hits both alike.
 * Prints each round and the medians. Loopback only; every process started is stopped.
 */
import { startRedisServer } from '../test/support/redis-server';
import { stopChild } from './child-process';
import { benchAccess, LOAD_CORE, median, requests, runLoad, SERVER_CORE, startServer, throughputSpec } from './rig';

const ROUNDS = 4;
const SECONDS = 5;

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  const counting = await startServer('gateway (counts)', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile]);
  const plain = await startServer('gateway (no counts)', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile, '--no-traffic-counts']);
  const request = requests(secret).resource;
  const rps = new Map<string, number[]>([
    [counting.name, []],
    [plain.name, []],
  ]);
  try {
    for (const g of [counting, plain]) await runLoad(throughputSpec(g.url, request, 2));
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const g of round % 2 === 1 ? [counting, plain] : [plain, counting]) {
        const r = await runLoad(throughputSpec(g.url, request, SECONDS));
        rps.get(g.name)?.push(r.requestsPerSecond);
        console.log(`round ${round} ${g.name}: ${r.requestsPerSecond.toFixed(0)} req/s, p99 ${r.p99Ms} ms (${r.failed} failed)`);
      }
    }
    for (const [name, values] of rps) console.log(`${name}: median ${median(values).toFixed(0)} req/s`);
  } finally {
    for (const server of [counting, plain, upstream]) await stopChild(server.child);
    await redis.stop();
  }
}

void main();
