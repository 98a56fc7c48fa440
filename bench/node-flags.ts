/**
 * `npx tsx bench/node-flags.ts [--rounds N] [--rate R] ["<node flags>" …]`: the gateway under different node
 * flags, A/B in one run, to choose its garbage-collection flags by measurement.
 *
 * One private redis-server, the bench upstream and one gateway process per set of flags (all on
 * core 0 with taskset, as in `npm run bench`; the load on core 1). Round by round, each gateway in
 * turn (A B C … A B C …): GET throughput (autocannon, 50 connections, 5 s), then GET and JSON
 * deposits at 1,000 req/s open loop (`--rate`; 5 s each) with the gateway's longest event-loop delay and GC
 * pauses (bench/servers/tail-probe.ts) and its RSS. Prints the medians of rounds per set of flags
 * (loop delay and longest GC pause: the worst round). Default sets: the image's flags with a
 * semi-space of 16, 32 and 64 MiB, and 16 with `--single-threaded-gc`.
 *
 * Every load is bounded in time and targets 127.0.0.1 only; every process started is stopped.
 */
import { startRedisServer } from '../test/support/redis-server';
import { stopChild } from './child-process';
import { imageNodeOptions } from './servers/image-node-options';
import { benchAccess, LOAD_CORE, median, openLoopSpec, requests, runLoad, SERVER_CORE, startServer, throughputSpec, withTailProbe, type Server } from './rig';

const SECONDS = 5;
const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = option('--rounds', 3);
/** Open-loop rate; `--rate 500` keeps a busy shared machine below saturation, so p99 shows pauses, not a queue. */
const RATE = option('--rate', 1000);
const named = process.argv
  .slice(2)
  .filter((arg, i, all) => !arg.startsWith('--rounds') && !arg.startsWith('--rate') && !['--rounds', '--rate'].includes(all[i - 1] ?? ''));

function defaultSets(): string[] {
  const others = imageNodeOptions().filter((flag) => !flag.startsWith('--max-semi-space-size'));
  const withSemi = (mib: number, extra: string[] = []): string => [`--max-semi-space-size=${mib}`, ...extra, ...others].join(' ');
  return [withSemi(16), withSemi(32), withSemi(64), withSemi(16, ['--single-threaded-gc'])];
}

interface Sample {
  getRps: number;
  getP99: number;
  getLoopMax: number;
  depositP99: number;
  depositLoopMax: number;
  depositGcMs: number;
  depositGcMax: number;
  rssMb: number;
  peakRssMb: number;
}

async function main(): Promise<void> {
  const sets = named.length > 0 ? named : defaultSets();
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const shapes = requests(secret);
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  const gateways: Server[] = [];
  try {
    for (const flags of sets)
      gateways.push(await startServer(`gateway ${flags}`, 'gateway.ts', SERVER_CORE, [upstream.url, redis.url, accessFile], flags.split(' ').filter(Boolean)));
    process.stderr.write('warming up…\n');
    for (const g of gateways) {
      await runLoad(throughputSpec(g.url, shapes.resource, 2));
      await runLoad(throughputSpec(g.url, shapes.jsonDeposit, 1));
    }
    const samples = new Map<Server, Sample[]>(gateways.map((g) => [g, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const g of gateways) {
        const get = await runLoad(throughputSpec(g.url, shapes.resource, SECONDS));
        const getLat = await withTailProbe(g, () => runLoad(openLoopSpec(g.url, shapes.resource, RATE, SECONDS)));
        const dep = await withTailProbe(g, () => runLoad(openLoopSpec(g.url, shapes.jsonDeposit, RATE, SECONDS)));
        const tail = dep.probe!.tail;
        const sample: Sample = {
          getRps: get.requestsPerSecond,
          getP99: getLat.result.p99Ms,
          getLoopMax: getLat.probe!.tail.maxEventLoopDelayMs,
          depositP99: dep.result.p99Ms,
          depositLoopMax: tail.maxEventLoopDelayMs,
          depositGcMs: tail.gcTotalMs,
          depositGcMax: tail.gcMaxMs,
          rssMb: dep.probe!.rssMb,
          peakRssMb: dep.probe!.peakRssMb,
        };
        samples.get(g)!.push(sample);
        process.stderr.write(
          `round ${round} [${g.name}] ${JSON.stringify(sample, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v))}\n`,
        );
      }
    }
    console.log(
      `\n| node flags | GET req/s | GET p99 @${RATE}/s | loop max (GET) | JSON deposit p99 @${RATE}/s | loop max (deposit) | GC ms per deposit round | longest GC pause | RSS after | peak RSS |`,
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const g of gateways) {
      const s = samples.get(g)!;
      const med = (pick: (x: Sample) => number): string => median(s.map(pick)).toFixed(1);
      const worst = (pick: (x: Sample) => number): string => Math.max(...s.map(pick)).toFixed(1);
      console.log(
        `| \`${g.name.replace('gateway ', '')}\` | ${med((x) => x.getRps)} | ${med((x) => x.getP99)} ms | ${worst((x) => x.getLoopMax)} ms | ${med((x) => x.depositP99)} ms | ${worst((x) => x.depositLoopMax)} ms | ${med((x) => x.depositGcMs)} ms | ${worst((x) => x.depositGcMax)} ms | ${med((x) => x.rssMb)} MB | ${worst((x) => x.peakRssMb)} MB |`,
      );
    }
    console.log(`\nmedians of ${ROUNDS} interleaved rounds (loop max and longest GC pause: the worst round)`);
  } finally {
    for (const g of [...gateways, upstream]) await stopChild(g.child);
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
