/**
 * `npx tsx bench/compression-levels.ts [level …]`: what the gzip level, brotli quality and
 * whole-body road cost, to choose `compression.gzipLevel`, `compression.brotliQuality` and
 * `compression.wholeBodyMaxBytes` by measurement.
 *
 * First zlib alone, in this process: the bench's 20 KB JSON list (from the bench upstream, one
 * record repeated) and a list of distinct records of about the same size, each compressed again
 * and again in 200 ms slices per gzip level and brotli quality, interleaved, 3 rounds, the best
 * kept: compressions per second and bytes out. Then through the gateway: one gateway per
 * variant, on core 0 as in `npm run bench`: by default gzip level 1 streamed as before
 * (`wholeBodyMaxBytes` 0: a zlib stream per answer) and level 1 with the whole-body road (the
 * default); with levels named, one whole-body gateway per level. Round by round (3 rounds,
 * interleaved) the list plain and with `Accept-Encoding: gzip` from each (autocannon, 50
 * connections, 4 s): each variant's gzip throughput ÷ plain. Medians of rounds.
 *
 * Every load is bounded in time and targets 127.0.0.1 only; every process started is stopped.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { startRedisServer } from '../test/support/redis-server';
import { stopChild } from './child-process';
import { imageNodeOptions } from './servers/image-node-options';
import { benchAccess, LOAD_CORE, median, requests, runLoad, SERVER_CORE, startServer, throughputSpec, type Server } from './rig';

const ROUNDS = 3;
const SECONDS = 4;
const LEVELS = process.argv.slice(2).map(Number).filter(Number.isInteger);

interface Variant {
  readonly label: string;
  readonly compression: Record<string, number>;
}
const VARIANTS: readonly Variant[] =
  LEVELS.length > 0
    ? LEVELS.map((level) => ({ label: `gzip level ${level}`, compression: { gzipLevel: level } }))
    : [
        { label: 'level 1, streamed (wholeBodyMaxBytes 0)', compression: { gzipLevel: 1, wholeBodyMaxBytes: 0 } },
        { label: 'level 1, whole body in one call (default)', compression: { gzipLevel: 1 } },
      ];

/** Compressions per second of `compress` over `body`, for 200 ms, and the size it gives. */
function rate(body: Buffer, compress: (b: Buffer) => Buffer): { perSecond: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  const started = performance.now();
  while (performance.now() - started < 200) {
    bytes = compress(body).length;
    count++;
  }
  return { perSecond: (count * 1000) / (performance.now() - started), bytes };
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const { accessFile, secret } = benchAccess();
  const shapes = requests(secret);
  const upstream = await startServer('upstream', 'upstream.ts', LOAD_CORE, []);
  const gateways: Array<{ label: string; server: Server }> = [];
  try {
    const body = Buffer.from(await (await fetch(`${upstream.url}/accounts`)).arrayBuffer());
    const codecs: Array<[string, (b: Buffer) => Buffer]> = [
      ...[1, 2, 3, 4, 5, 6, 9].map((level): [string, (b: Buffer) => Buffer] => [`gzip level ${level}`, (b) => gzipSync(b, { level })]),
      ...[1, 4, 5, 11].map((quality): [string, (b: Buffer) => Buffer] => [
        `brotli quality ${quality}`,
        (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }),
      ]),
    ];
    // The bench's list repeats one record; a list of distinct records (about the same size) is closer to a real core's.
    const varied = Buffer.from(
      JSON.stringify(
        Array.from({ length: 150 }, (_, i) => ({
          id: 40_000 + i * 37,
          balance: ((i * 7919) % 100_000) / 100,
          name: `Account ${(i * 2654435761) % 1e9}`,
          openedOn: `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}`,
        })),
      ),
    );
    for (const [label, input] of [
      ['the bench list', body],
      ['a list of distinct records', varied],
    ] as const) {
      // Interleaved slices, best of the rounds: outside load lowers a slice, never raises it.
      const best = new Map<string, { perSecond: number; bytes: number }>();
      for (let round = 0; round < ROUNDS; round++)
        for (const [name, compress] of codecs) {
          const r = rate(input, compress);
          if (r.perSecond > (best.get(name)?.perSecond ?? 0)) best.set(name, r);
        }
      console.log(`zlib alone, ${label} (${input.length} bytes; this process, best of ${ROUNDS} interleaved 200 ms slices):`);
      for (const [name, r] of best) console.log(`  ${name}: ${r.perSecond.toFixed(0)} /s, ${r.bytes} bytes`);
    }
    for (const { label, compression } of VARIANTS) {
      const args = [upstream.url, redis.url, accessFile, '--compression', JSON.stringify(compression)];
      gateways.push({ label, server: await startServer(`gateway ${label}`, 'gateway.ts', SERVER_CORE, args, imageNodeOptions()) });
    }
    for (const g of gateways) await runLoad(throughputSpec(g.server.url, shapes.gzipList, 1));
    const plain = new Map<string, number[]>(VARIANTS.map((v) => [v.label, []]));
    const gzip = new Map<string, number[]>(VARIANTS.map((v) => [v.label, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const g of gateways) {
        const p = await runLoad(throughputSpec(g.server.url, shapes.list, SECONDS));
        const z = await runLoad(throughputSpec(g.server.url, shapes.gzipList, SECONDS));
        plain.get(g.label)!.push(p.requestsPerSecond);
        gzip.get(g.label)!.push(z.requestsPerSecond);
        process.stderr.write(`round ${round} ${g.label}: plain ${p.requestsPerSecond.toFixed(0)} req/s, gzip ${z.requestsPerSecond.toFixed(0)} req/s\n`);
      }
    }
    console.log(`\nthrough the gateway, medians of ${ROUNDS} interleaved rounds:`);
    for (const { label } of VARIANTS) {
      const p = median(plain.get(label)!);
      const z = median(gzip.get(label)!);
      console.log(`  ${label}: plain ${p.toFixed(0)} req/s, gzip ${z.toFixed(0)} req/s, gzip ÷ plain ${(z / p).toFixed(2)}`);
    }
  } finally {
    for (const g of gateways) await stopChild(g.server.child);
    await stopChild(upstream.child);
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
