/**
 * `npm run bench`: the gateway against reference proxies on this machine, in one run.
 *
 * Starts a private redis-server, a fixed-response upstream, the gateway (Redis mode, full
 * pipeline, a licensed key) and the reference proxies (direct, bare Node http proxy,
 * Express 5 + http-proxy-middleware), each in its own process; with taskset the servers sit on
 * core 0 and the upstream and load generators on core 1. Measures, interleaved round by round
 * (A B C D A B C D …) so a burst of outside load hits every target alike: maximum throughput
 * (autocannon, 50 connections), latency at a fixed open-loop rate of 1,000 req/s, the
 * gateway's XML and JSON deposits (throughput, and latency at the same rate), and the XML
 * translation alone. In each 1,000 req/s round the gateway reports its own longest event-loop
 * delay and GC pauses (bench/servers/tail-probe.ts), printed beside p99. Prints a table and writes
 * it as JSON to bench/results/<timestamp>.json and bench/results/latest.json.
 *
 * `npm run bench -- --soak [minutes]` instead runs the gateway at 50 % of its maximum for the
 * given minutes (default 10) and reports its heap after GC over time (goal: growth < 10 %).
 *
 * Every load is bounded in time and targets 127.0.0.1 only; every process started is stopped.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedisServer, type RedisServerHandle } from '../test/support/redis-server';
import { createTestCa } from '../test/support/tls-certs';
import { imageNodeOptions } from './servers/image-node-options';
import { printTable, type TailColumns } from './report-table';
import { stopChild } from './child-process';
import {
  benchAccess,
  CONNECTIONS,
  hasTaskset,
  LOAD_CORE,
  median,
  openLoopSpec,
  pinned,
  requests,
  runLoad,
  SERVER_CORE,
  startServer,
  throughputSpec,
  withTailProbe,
  type Server,
  type TailProbe,
} from './rig';

const BENCH = __dirname;
const THROUGHPUT_SECONDS = 5;
const LATENCY_RATE = 1000;
const LATENCY_SECONDS = 5;
const ENDPOINT_SECONDS = 4;
const ROUNDS = 3;
const XML_SECONDS = 6;

/** The XML translation bench on the server core; its printed medians, parsed. */
function runXmlTranslation(seconds: number): { gatewayDocsPerSecond: number; rawDocsPerSecond: number; ratio: number } {
  const [command, argv] = pinned(SERVER_CORE, ['--import', 'tsx', path.join(BENCH, 'xml-translation.ts'), String(seconds)]);
  const run = spawnSync(command, argv, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const number = (pattern: RegExp): number => Number(pattern.exec(run.stdout)?.[1] ?? Number.NaN);
  return {
    gatewayDocsPerSecond: number(/gateway translation[^:]*: (\d+)/),
    rawDocsPerSecond: number(/raw parse \+ build:\s+(\d+)/),
    ratio: number(/ratio: ([\d.]+)/),
  };
}

interface Fixture {
  readonly redis: RedisServerHandle;
  readonly upstream: Server;
  readonly gateway: Server;
  readonly secret: string;
  readonly others: Server[];
  /** An https upstream requiring client certificates, and a gateway reaching it with mutual TLS. */
  readonly tlsUpstream: Server | null;
  readonly tlsGateway: Server | null;
}

async function startFixture(withReferences: boolean, gatewayNodeArgs: string[]): Promise<Fixture> {
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  gatewayNodeArgs = [...imageNodeOptions(), ...gatewayNodeArgs];
  const gateway = await startServer('gateway', 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile], gatewayNodeArgs);
  const others = withReferences
    ? [
        await startServer('bare node proxy', 'bare-proxy.ts', SERVER_CORE, [upstream.url]),
        await startServer('express + hpm', 'express-hpm.ts', SERVER_CORE, [upstream.url]),
      ]
    : [];
  let tlsUpstream: Server | null = null;
  let tlsGateway: Server | null = null;
  if (withReferences) {
    const ca = createTestCa('bench-ca');
    const core = ca.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
    const client = ca.issue('bench-gateway', { client: true });
    tlsUpstream = await startServer('https upstream', 'upstream.ts', LOAD_CORE, ['--tls', ca.cert, core.cert, core.key], [], 'https');
    tlsGateway = await startServer(
      'gateway, mTLS core',
      'gateway.ts',
      SERVER_CORE,
      [tlsUpstream.url, redis.url, accessFile, '--tls', ca.cert, client.cert, client.key],
      gatewayNodeArgs,
    );
  }
  return { redis, upstream, gateway, secret, others, tlsUpstream, tlsGateway };
}

async function stopFixture(fixture: Fixture): Promise<void> {
  for (const server of [fixture.gateway, ...fixture.others, fixture.upstream, fixture.tlsGateway, fixture.tlsUpstream])
    if (server) await stopChild(server.child);
  await fixture.redis.stop();
}

interface LatencyRounds {
  p50: number[];
  p99: number[];
  failed: number;
  /** The gateway's own tail in each round (none for the reference proxies). */
  tails: TailProbe[];
}

/** One latency round's tail as the gateway saw it, beside its p99. */
function tailText(probe: TailProbe | null): string {
  if (probe === null) return '';
  const t = probe.tail;
  return `; loop delay max ${t.maxEventLoopDelayMs.toFixed(1)} ms, GC ${t.gcCount}× ${t.gcTotalMs.toFixed(1)} ms (longest ${t.gcMaxMs.toFixed(1)} ms)`;
}

/** The rounds' tails in one row: the worst loop delay and GC pause of any round, the median GC count and total. */
function tailColumns(probes: readonly TailProbe[]): TailColumns | undefined {
  if (probes.length === 0) return undefined;
  return {
    maxEventLoopDelayMs: Math.max(...probes.map((p) => p.tail.maxEventLoopDelayMs)),
    gcCount: median(probes.map((p) => p.tail.gcCount)),
    gcTotalMs: median(probes.map((p) => p.tail.gcTotalMs)),
    gcMaxMs: Math.max(...probes.map((p) => p.tail.gcMaxMs)),
  };
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function bench(): Promise<void> {
  const began = Date.now();
  const fixture = await startFixture(true, []);
  try {
    const shapes = requests(fixture.secret);
    const targets = [
      { name: 'direct', url: fixture.upstream.url, request: shapes.plain, gateway: null },
      { name: 'bare node proxy', url: fixture.others[0]!.url, request: shapes.plain, gateway: null },
      { name: 'express + hpm', url: fixture.others[1]!.url, request: shapes.plain, gateway: null },
      { name: 'gateway (full chain)', url: fixture.gateway.url, request: shapes.resource, gateway: fixture.gateway },
      { name: 'gateway, mTLS core (keep-alive)', url: fixture.tlsGateway!.url, request: shapes.resource, gateway: fixture.tlsGateway },
    ];
    const endpoints = [
      { name: 'gateway JSON resource GET', request: shapes.resource },
      { name: 'gateway JSON list GET (20 KB)', request: shapes.list },
      { name: 'gateway JSON list GET, gzip', request: shapes.gzipList },
      { name: 'gateway XML deposit', request: shapes.xmlDeposit },
      { name: 'gateway JSON deposit', request: shapes.jsonDeposit },
    ];
    log(`taskset: ${hasTaskset ? `servers on core ${SERVER_CORE}, upstream and load on core ${LOAD_CORE}` : 'not available, processes unpinned'}`);
    log('warming up…');
    for (const t of targets) await runLoad(throughputSpec(t.url, t.request, 2));
    for (const e of endpoints) await runLoad(throughputSpec(fixture.gateway.url, e.request, 1));

    const rps = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    const lat = new Map<string, LatencyRounds>(targets.map((t) => [t.name, { p50: [], p99: [], failed: 0, tails: [] }]));
    const failures = new Map<string, number>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const r = await runLoad(throughputSpec(t.url, t.request, THROUGHPUT_SECONDS));
        rps.get(t.name)!.push(r.requestsPerSecond);
        failures.set(t.name, (failures.get(t.name) ?? 0) + r.failed);
        log(`throughput round ${round} ${t.name}: ${r.requestsPerSecond.toFixed(0)} req/s (${r.failed} failed)`);
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const { result: r, probe } = await withTailProbe(t.gateway, () => runLoad(openLoopSpec(t.url, t.request, LATENCY_RATE, LATENCY_SECONDS)));
        const entry = lat.get(t.name)!;
        entry.p50.push(r.p50Ms);
        entry.p99.push(r.p99Ms);
        entry.failed += r.failed;
        if (probe) entry.tails.push(probe);
        log(
          `latency round ${round} ${t.name} @${LATENCY_RATE}/s: p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${tailText(probe)} (${r.failed} failed)`,
        );
      }
    }
    // The money path's latency at the same open-loop rate, each deposit with its own reference.
    const latencyEndpoints = endpoints.filter((e) => e.request.method === 'POST');
    const endpointLat = new Map<string, LatencyRounds>(latencyEndpoints.map((e) => [e.name, { p50: [], p99: [], failed: 0, tails: [] }]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const e of latencyEndpoints) {
        const { result: r, probe } = await withTailProbe(fixture.gateway, () =>
          runLoad(openLoopSpec(fixture.gateway.url, e.request, LATENCY_RATE, LATENCY_SECONDS)),
        );
        const entry = endpointLat.get(e.name)!;
        entry.p50.push(r.p50Ms);
        entry.p99.push(r.p99Ms);
        entry.failed += r.failed;
        if (probe) entry.tails.push(probe);
        log(
          `latency round ${round} ${e.name} @${LATENCY_RATE}/s: p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${tailText(probe)} (${r.failed} failed)`,
        );
      }
    }
    const endpointRps = new Map<string, number[]>(endpoints.map((e) => [e.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const e of endpoints) {
        const r = await runLoad(throughputSpec(fixture.gateway.url, e.request, ENDPOINT_SECONDS));
        endpointRps.get(e.name)!.push(r.requestsPerSecond);
        failures.set(e.name, (failures.get(e.name) ?? 0) + r.failed);
        log(`endpoint round ${round} ${e.name}: ${r.requestsPerSecond.toFixed(0)} req/s (${r.failed} failed)`);
      }
    }
    await stopFixture(fixture);
    log('XML translation…');
    const xml = runXmlTranslation(XML_SECONDS);

    const bare = median(rps.get('bare node proxy')!);
    const hpm = median(rps.get('express + hpm')!);
    const direct = lat.get('direct')!;
    const rows = targets.map((t) => {
      const r = median(rps.get(t.name)!);
      const l = lat.get(t.name)!;
      return {
        target: t.name,
        requestsPerSecond: Math.round(r),
        vsBareProxy: r / bare,
        vsExpressHpm: r / hpm,
        p50MsAt1k: median(l.p50),
        p99MsAt1k: median(l.p99),
        addedP50Ms: median(l.p50) - median(direct.p50),
        addedP99Ms: median(l.p99) - median(direct.p99),
        tail: tailColumns(l.tails),
        failed: (failures.get(t.name) ?? 0) + l.failed,
      };
    });
    const endpointRows = endpoints.map((e) => {
      const r = median(endpointRps.get(e.name)!);
      const l = endpointLat.get(e.name);
      const latency = l
        ? {
            p50MsAt1k: median(l.p50),
            p99MsAt1k: median(l.p99),
            addedP50Ms: median(l.p50) - median(direct.p50),
            addedP99Ms: median(l.p99) - median(direct.p99),
            tail: tailColumns(l.tails),
          }
        : {};
      return {
        target: e.name,
        requestsPerSecond: Math.round(r),
        vsBareProxy: r / bare,
        vsExpressHpm: r / hpm,
        ...latency,
        failed: (failures.get(e.name) ?? 0) + (l?.failed ?? 0),
      };
    });
    const result = {
      when: new Date().toISOString(),
      machine: {
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cores: os.cpus().length,
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
        pinned: hasTaskset,
      },
      method: {
        connections: CONNECTIONS,
        throughputSeconds: THROUGHPUT_SECONDS,
        latencyRate: LATENCY_RATE,
        latencySeconds: LATENCY_SECONDS,
        rounds: ROUNDS,
        statistic: 'median of rounds',
      },
      proxies: rows,
      endpoints: endpointRows,
      xmlTranslation: xml,
      runSeconds: Math.round((Date.now() - began) / 1000),
    };
    printTable(result.proxies, result.endpoints, xml);
    mkdirSync(path.join(BENCH, 'results'), { recursive: true });
    const json = `${JSON.stringify(result, null, 2)}\n`;
    writeFileSync(path.join(BENCH, 'results', `${result.when.replace(/[:.]/g, '-')}.json`), json);
    writeFileSync(path.join(BENCH, 'results', 'latest.json'), json);
    log(`written to bench/results/latest.json (run took ${result.runSeconds} s)`);
  } finally {
    await stopFixture(fixture);
  }
}

/** Gateway heap after a forced GC, asked over IPC (the gateway runs with --expose-gc). */
function heapUsed(gateway: Server): Promise<number> {
  return new Promise((resolve) => {
    gateway.child.once('message', (m: { heapUsed: number }) => resolve(m.heapUsed));
    gateway.child.send('heap');
  });
}

async function soak(minutes: number): Promise<void> {
  const fixture = await startFixture(false, ['--expose-gc']);
  try {
    const request = requests(fixture.secret).resource;
    const max = (await runLoad(throughputSpec(fixture.gateway.url, request, THROUGHPUT_SECONDS))).requestsPerSecond;
    const rate = Math.round(max / 2);
    log(`maximum ${max.toFixed(0)} req/s; soaking at ${rate} req/s for ${minutes} min`);
    const baseline = await heapUsed(fixture.gateway);
    const samples: Array<{ minute: number; heapUsedMb: number }> = [];
    const load = runLoad({ ...openLoopSpec(fixture.gateway.url, request, rate, minutes * 60), warmupSeconds: 0 });
    const sampleEveryMs = Math.max(10_000, (minutes * 60_000) / 20);
    const sampler = setInterval(() => {
      void heapUsed(fixture.gateway).then((bytes) => {
        const sample = { minute: (samples.length + 1) * (sampleEveryMs / 60_000), heapUsedMb: bytes / 2 ** 20 };
        samples.push(sample);
        log(`t=${sample.minute.toFixed(1)} min heap after GC ${sample.heapUsedMb.toFixed(1)} MB`);
      });
    }, sampleEveryMs);
    const result = await load;
    clearInterval(sampler);
    const first = samples[0]?.heapUsedMb ?? baseline / 2 ** 20;
    const last = (await heapUsed(fixture.gateway)) / 2 ** 20;
    const growth = (last - first) / first;
    console.log(`soak ${minutes} min at ${rate} req/s: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${result.failed} failed`);
    console.log(
      `heap after GC: ${first.toFixed(1)} MB after the first interval, ${last.toFixed(1)} MB at the end: growth ${(growth * 100).toFixed(1)} % (goal < 10 %)`,
    );
  } finally {
    await stopFixture(fixture);
  }
}

/** The gateway alone at maximum throughput for `seconds`, under --cpu-prof and --trace-gc. */
async function profile(seconds: number): Promise<void> {
  const dir = path.join(BENCH, 'results', 'profiles');
  mkdirSync(dir, { recursive: true });
  const fixture = await startFixture(false, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--trace-gc']);
  try {
    const shapes = requests(fixture.secret);
    const request = process.argv.includes('--xml') ? shapes.xmlDeposit : shapes.resource;
    const r = await runLoad(throughputSpec(fixture.gateway.url, request, seconds));
    console.log(`profiled ${request.method} ${request.path}: ${r.requestsPerSecond.toFixed(0)} req/s; profile in bench/results/profiles/, GC trace on stderr`);
  } finally {
    await stopFixture(fixture);
  }
}

const mode = process.argv.find((a) => a === '--soak' || a === '--profile');
const modeArgument = Number(process.argv[process.argv.indexOf(mode ?? '') + 1]);
const run = mode === '--soak' ? soak(modeArgument || 10) : mode === '--profile' ? profile(modeArgument || 10) : bench();
run.catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
