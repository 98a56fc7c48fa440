/**
 * Allocation and CPU per request on the gateway (issue 30): allocated KB per GET, per JSON deposit
 * and per XML deposit, and the gateway's CPU µs per request, measured inside the gateway process.
 *
 * Starts a private redis-server, the bench upstream and the bench gateway (bench/servers/, as
 * `npm run bench` does, pinned with taskset when there is one) with a young generation large
 * enough that a measured batch runs without a collection; the heap grown between two marks
 * (bench/servers/allocation-probe.ts) divided by the requests between them is the allocation
 * per request, exact to the object and blind to off-heap Buffer storage. CPU is process.cpuUsage
 * over a longer batch (collections included). `--profile get|json|xml` prints instead the top
 * allocation sites of a sampling heap profile (objects that died young included) and writes the
 * profile to bench/results/profiles/. Loopback only; every batch is bounded by its count.
 *
 * Usage: npm run bench:alloc [-- --profile get|json|xml]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startRedisServer } from '../test/support/redis-server';
import { nextMessage, stopChild } from './child-process';
import type { RequestShape } from './load/spec';
import { benchAccess, hasTaskset, LOAD_CORE, median, requests, SERVER_CORE, startServer, type AllocationMark } from './rig';

const ALLOC_REQUESTS = 300;
const CPU_REQUESTS = 4000;
const WARMUP_REQUESTS = 3000;
const CONCURRENCY = 16;
const REPEATS = 5;
// 2 × 256 MiB of young generation: a measured batch of 300 requests never fills it.
const GATEWAY_NODE_ARGS = ['--expose-gc', '--min-semi-space-size=256', '--max-semi-space-size=256'];

/** The measured requests, as the bench sends them. */
function shapes(secret: string): Array<RequestShape & { readonly name: string }> {
  const { resource, jsonDeposit, xmlDeposit } = requests(secret);
  return [
    { name: 'GET', ...resource },
    { name: 'JSON deposit', ...jsonDeposit },
    { name: 'XML deposit', ...xmlDeposit },
  ];
}

let sequence = 0;
const run = `${process.pid}-${Date.now()}`;

/** Sends `count` requests of `shape`, `CONCURRENCY` at a time over kept-alive sockets; resolves with the answers that were not 2xx. */
async function send(port: number, agent: http.Agent, shape: RequestShape, count: number): Promise<string[]> {
  let next = 0;
  const failures: string[] = [];
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = shape.body?.replace('{ref}', `A${run}-${sequence++}`);
      const headers = body === undefined ? shape.headers : { ...shape.headers, 'content-length': String(Buffer.byteLength(body)) };
      const req = http.request({ host: '127.0.0.1', port, method: shape.method, path: shape.path, headers, agent }, (res) => {
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (answer += chunk));
        res.once('end', () => {
          if ((res.statusCode ?? 0) >= 300) failures.push(`${res.statusCode} ${answer.slice(0, 200)}`);
          resolve();
        });
      });
      req.once('error', reject);
      req.end(body);
    });
  const lane = async (): Promise<void> => {
    while (next < count) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return failures;
}

function mark(gateway: ChildProcess): Promise<AllocationMark> {
  const answer = nextMessage<AllocationMark>(gateway, 'alloc-mark', 30_000);
  gateway.send('alloc-mark');
  return answer;
}

interface ProfileNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: ProfileNode[];
}

/** The top allocation sites of a sampling heap profile, per request. */
function printProfile(profile: { head: ProfileNode }, requests: number): void {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode): void => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/(src|bench)\//, '$1/')}:${lineNumber + 1}`;
    sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`sampled ${(total / requests / 1024).toFixed(1)} KB per request (sampling estimate); top sites, KB per request:`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(bytes / requests / 1024).toFixed(2).padStart(7)}  ${site}`);
}

async function main(): Promise<void> {
  const profileAt = process.argv.indexOf('--profile');
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  const gateway = await startServer('gateway', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile], GATEWAY_NODE_ARGS);
  const port = Number(new URL(gateway.url).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const all = shapes(secret);
    if (profileAt >= 0) {
      const wanted = { get: 'GET', json: 'JSON deposit', xml: 'XML deposit' }[process.argv[profileAt + 1] ?? 'get'];
      const shape = all.find((s) => s.name === wanted) ?? all[0]!;
      // GETs first, as in the measuring run: the idempotency store's connection is up by their end.
      await send(port, agent, all[0]!, WARMUP_REQUESTS);
      await send(port, agent, shape, WARMUP_REQUESTS);
      const started = nextMessage(gateway.child, 'profile-start');
      gateway.child.send('profile-start');
      await started;
      const failed = await send(port, agent, shape, 2000);
      if (failed.length) console.log(`${failed.length} answers not 2xx while profiled, the first: ${failed[0]}`);
      const stopped = nextMessage<{ profile: { head: ProfileNode } }>(gateway.child, 'profile-stop');
      gateway.child.send('profile-stop');
      const { profile } = await stopped;
      const dir = path.join(__dirname, 'results', 'profiles');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `alloc-${shape.name.replace(/\s+/g, '-')}-${Date.now()}.heapprofile`);
      writeFileSync(file, JSON.stringify(profile));
      console.log(`${shape.name}: profile in ${path.relative(process.cwd(), file)}`);
      printProfile(profile, 2000);
      return;
    }
    for (const shape of all) await send(port, agent, shape, WARMUP_REQUESTS);
    console.log(`node ${process.version}; ${hasTaskset ? 'gateway on core 0, upstream and client on core 1' : 'unpinned'}; medians of ${REPEATS}`);
    for (const shape of all) {
      const kb: number[] = [];
      const cpu: number[] = [];
      let remeasured = 0;
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const start = await mark(gateway.child);
        const failed = await send(port, agent, shape, ALLOC_REQUESTS);
        // A refusal (Redis slower than its command timeout on a busy machine) costs less than an answer: measure again.
        if (failed.length) {
          if (++remeasured > REPEATS) throw new Error(`${shape.name}: too many refusals to measure`);
          console.log(`${shape.name}: ${failed.length} answers not 2xx, the first: ${failed[0]}; batch measured again`);
          repeat--;
          continue;
        }
        const end = await mark(gateway.child);
        if (end.collections !== start.collectionsAfter) throw new Error('a collection ran inside the measured batch');
        kb.push((end.heapUsed - start.heapUsedAfter) / ALLOC_REQUESTS / 1024);
        const cpuStart = await mark(gateway.child);
        await send(port, agent, shape, CPU_REQUESTS);
        const cpuEnd = await mark(gateway.child);
        cpu.push((cpuEnd.cpuMicros - cpuStart.cpuMicrosAfter) / CPU_REQUESTS);
      }
      console.log(
        `${shape.name.padEnd(13)} ${median(kb).toFixed(1).padStart(6)} KB allocated per request   ${median(cpu).toFixed(0).padStart(5)} µs CPU per request`,
      );
    }
  } finally {
    agent.destroy();
    await stopChild(gateway.child);
    await stopChild(upstream.child);
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
