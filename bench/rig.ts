/**
 * The bench's rig, shared by `npm run bench` (run.ts) and the node-flags A/B (node-flags.ts):
 * server processes pinned to core 0 and load workers pinned to core 1 (with taskset), the load
 * specs, the bench vendor's access file and request shapes, and the gateway's tail probe.
 *
 * Starts only what its callers ask for; every load is bounded in time and targets 127.0.0.1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { testKey, writeAccessFile } from '../test/support/access-fixture';
import type { LoadResult, LoadSpec, RequestShape } from './load/spec';
import { nextMessage } from './child-process';

const BENCH = __dirname;
export const CONNECTIONS = 50;
const LATENCY_WARMUP_SECONDS = 1;

export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && os.cpus().length >= 2;

export interface Server {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
}

export function pinned(core: string, args: string[]): [string, string[]] {
  return hasTaskset ? ['taskset', ['-c', core, process.execPath, ...args]] : [process.execPath, args];
}

/** Starts a bench server process and waits (at most 30 s) for the port it announces. */
export function startServer(
  name: string,
  file: string,
  core: string,
  args: string[],
  nodeArgs: string[] = [],
  scheme: 'http' | 'https' = 'http',
): Promise<Server> {
  const [command, argv] = pinned(core, [...nodeArgs, '--import', 'tsx', path.join(BENCH, 'servers', file), ...args]);
  const child = spawn(command, argv, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${name} exited early (code ${code})`)));
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve({ name, url: `${scheme}://127.0.0.1:${message.port}`, child });
    });
  });
}

/** Runs one load worker pinned to the load core; bounded by the spec's seconds plus a margin. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const [command, argv] = pinned(LOAD_CORE, ['--import', 'tsx', path.join(BENCH, 'load', 'worker.ts'), JSON.stringify(spec)]);
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), (spec.seconds + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`load worker failed (code ${code}) against ${spec.url}`));
      else resolve(JSON.parse(output) as LoadResult);
    });
  });
}

/** What a gateway's allocation probe answers to `alloc-mark` (bench/servers/allocation-probe.ts). */
export interface AllocationMark {
  /** Heap in use and collections so far as the mark came, before its own collection. */
  readonly heapUsed: number;
  readonly collections: number;
  readonly cpuMicros: number;
  /** The same right after the mark's own full collection: where the next interval starts. */
  readonly heapUsedAfter: number;
  readonly collectionsAfter: number;
  readonly cpuMicrosAfter: number;
}

/** What a gateway's tail probe answers (bench/servers/tail-probe.ts). */
export interface TailProbe {
  readonly tail: {
    readonly maxEventLoopDelayMs: number;
    readonly gcCount: number;
    readonly gcTotalMs: number;
    readonly gcMaxMs: number;
  };
  readonly rssMb: number;
  readonly peakRssMb: number;
}

/**
 * Runs `load` while a gateway watches its own event-loop delay and GC pauses
 * (bench/servers/tail-probe.ts); `gateway` null (a reference proxy) runs the load alone.
 */
export async function withTailProbe<T>(gateway: Server | null, load: () => Promise<T>): Promise<{ result: T; probe: TailProbe | null }> {
  if (gateway === null) return { result: await load(), probe: null };
  gateway.child.send('tail-start');
  const result = await load();
  const answer = nextMessage<TailProbe>(gateway.child, `${gateway.name} tail probe`, 10_000);
  gateway.child.send('tail-stop');
  return { result, probe: await answer };
}

export function throughputSpec(url: string, request: RequestShape, seconds: number): LoadSpec {
  return { kind: 'throughput', url, request, seconds, connections: CONNECTIONS, rate: 0, warmupSeconds: 0 };
}

export function openLoopSpec(url: string, request: RequestShape, rate: number, seconds: number): LoadSpec {
  return { kind: 'open-loop', url, request, seconds, connections: 0, rate, warmupSeconds: LATENCY_WARMUP_SECONDS };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The bench vendor's access file: one licensed key, a rate limit too high to refuse; and its secret. */
export function benchAccess(): { accessFile: string; secret: string } {
  const key = testKey('key-bench', 'bench.user');
  const everything = [
    { id: 'lic-get', api: 'GET*' },
    { id: 'lic-receipts', api: 'POSTapi/transaction/*' },
  ];
  const accessFile = writeAccessFile({
    vendors: [
      {
        id: 'bench-vendor',
        name: 'Bench Vendor Ltd',
        status: 'active',
        // High enough never to refuse during the run, so every request pays the limiter's round trip.
        rateLimit: { points: 1_000_000_000, durationSeconds: 60 },
        licences: everything,
        keys: [key.record],
      },
    ],
    users: [{ id: 'bench.user', permissions: everything.map((p) => ({ ...p, id: p.id.replace('lic', 'perm') })) }],
  } as Parameters<typeof writeAccessFile>[0]);
  return { accessFile, secret: key.secret };
}

const DEPOSIT_PATH = '/api/transaction/savings/deposit';
const depositXml =
  '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>250.10</Amount><Notes>Cash deposit at the Leeds branch</Notes><ExternalRefNo>{ref}</ExternalRefNo><PayFee>false</PayFee></ReceiptPaymentDto>';
const depositJson = '{"accountNumber":"00012345","amount":250.10,"notes":"Cash deposit at the Leeds branch","externalRefNo":"{ref}","payFee":false}';

export function requests(secret: string): {
  plain: RequestShape;
  resource: RequestShape;
  list: RequestShape;
  gzipList: RequestShape;
  xmlDeposit: RequestShape;
  jsonDeposit: RequestShape;
} {
  const path = '/accounts/40012';
  return {
    plain: { method: 'GET', path, headers: {} },
    resource: { method: 'GET', path, headers: { 'x-vendor-token': secret } },
    // A 20 KB list, as sent and as a client that accepts gzip gets it (compressed as it streams).
    list: { method: 'GET', path: '/accounts/', headers: { 'x-vendor-token': secret } },
    gzipList: { method: 'GET', path: '/accounts/', headers: { 'x-vendor-token': secret, 'accept-encoding': 'gzip' } },
    xmlDeposit: { method: 'POST', path: DEPOSIT_PATH, headers: { 'x-vendor-token': secret, 'content-type': 'application/xml' }, body: depositXml },
    jsonDeposit: { method: 'POST', path: DEPOSIT_PATH, headers: { 'x-vendor-token': secret, 'content-type': 'application/json' }, body: depositJson },
  };
}
