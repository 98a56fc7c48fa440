/**
 * The table `npm run bench` prints: one row per target (throughput, latency at 1,000 req/s and
 * what the gateway adds over a direct call, and the gateway's own tail in those latency rounds),
 * one per gateway endpoint, and the XML translation line. Reads nothing; writes to stdout.
 */

/** The gateway's tail over a row's latency rounds (bench/servers/tail-probe.ts). */
export interface TailColumns {
  /** Longest event-loop delay in any round. */
  readonly maxEventLoopDelayMs: number;
  /** GC pauses per round (median of rounds): how many, and their total. */
  readonly gcCount: number;
  readonly gcTotalMs: number;
  /** Longest GC pause in any round. */
  readonly gcMaxMs: number;
}

function tailText(tail: TailColumns | undefined): string {
  if (tail === undefined) return '';
  return ` ${tail.maxEventLoopDelayMs.toFixed(1).padStart(7)} ${`${tail.gcCount}× ${tail.gcTotalMs.toFixed(1)}`.padStart(12)} ${tail.gcMaxMs.toFixed(1).padStart(7)}`;
}

export function printTable(
  rows: ReadonlyArray<{
    target: string;
    requestsPerSecond: number;
    vsBareProxy: number;
    vsExpressHpm: number;
    p50MsAt1k: number;
    p99MsAt1k: number;
    addedP50Ms: number;
    addedP99Ms: number;
    tail?: TailColumns;
    failed: number;
  }>,
  endpoints: ReadonlyArray<{
    target: string;
    requestsPerSecond: number;
    vsBareProxy: number;
    vsExpressHpm: number;
    p50MsAt1k?: number;
    p99MsAt1k?: number;
    addedP50Ms?: number;
    addedP99Ms?: number;
    tail?: TailColumns;
    failed: number;
  }>,
  xml: { gatewayDocsPerSecond: number; rawDocsPerSecond: number; ratio: number },
): void {
  const pad = (s: string, n: number): string => s.padEnd(n);
  const num = (n: number, digits = 2): string => n.toFixed(digits).padStart(8);
  console.log(
    `\n${pad('target', 28)} ${'req/s'.padStart(8)} ${'×bare'.padStart(8)} ${'×hpm'.padStart(8)} ${'p50@1k'.padStart(8)} ${'p99@1k'.padStart(8)} ${'+p50'.padStart(8)} ${'+p99'.padStart(8)} failed ${'loop max'.padStart(8)} ${'GC n× ms'.padStart(12)} ${'GC max'.padStart(7)}`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.target, 28)} ${num(r.requestsPerSecond, 0)} ${num(r.vsBareProxy)} ${num(r.vsExpressHpm)} ${num(r.p50MsAt1k)} ${num(r.p99MsAt1k)} ${num(r.addedP50Ms)} ${num(r.addedP99Ms)} ${String(r.failed).padStart(6)}${tailText(r.tail)}`,
    );
  }
  for (const e of endpoints) {
    const latency =
      e.p50MsAt1k === undefined ? ' '.repeat(35) : `${num(e.p50MsAt1k)} ${num(e.p99MsAt1k ?? 0)} ${num(e.addedP50Ms ?? 0)} ${num(e.addedP99Ms ?? 0)}`;
    console.log(
      `${pad(e.target, 28)} ${num(e.requestsPerSecond, 0)} ${num(e.vsBareProxy)} ${num(e.vsExpressHpm)} ${latency} ${String(e.failed).padStart(6)}${tailText(e.tail)}`,
    );
  }
  console.log(
    `\nXML translation: gateway ${xml.gatewayDocsPerSecond} docs/s, raw fast-xml-parser parse+build ${xml.rawDocsPerSecond} docs/s, ratio ${xml.ratio.toFixed(2)}×`,
  );
  console.log('latencies in ms, median of rounds; +p50/+p99 = added over direct; ×bare / ×hpm = throughput ratios');
  console.log(
    "gateway's own tail in the 1,000 req/s rounds: loop max = longest event-loop delay of any round; GC n× ms = pauses per round and their total (median); GC max = longest pause of any round",
  );
}
