/**
 * The table `npm run bench` prints: one row per target (throughput, latency at 1,000 req/s and
 * what the gateway adds over a direct call), one per gateway endpoint, and the XML translation
 * line. Reads nothing; writes to stdout.
 */
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
    failed: number;
  }>,
  xml: { gatewayDocsPerSecond: number; rawDocsPerSecond: number; ratio: number },
): void {
  const pad = (s: string, n: number): string => s.padEnd(n);
  const num = (n: number, digits = 2): string => n.toFixed(digits).padStart(8);
  console.log(
    `\n${pad('target', 28)} ${'req/s'.padStart(8)} ${'×bare'.padStart(8)} ${'×hpm'.padStart(8)} ${'p50@1k'.padStart(8)} ${'p99@1k'.padStart(8)} ${'+p50'.padStart(8)} ${'+p99'.padStart(8)} failed`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.target, 28)} ${num(r.requestsPerSecond, 0)} ${num(r.vsBareProxy)} ${num(r.vsExpressHpm)} ${num(r.p50MsAt1k)} ${num(r.p99MsAt1k)} ${num(r.addedP50Ms)} ${num(r.addedP99Ms)} ${r.failed}`,
    );
  }
  for (const e of endpoints) {
    const latency =
      e.p50MsAt1k === undefined ? ' '.repeat(35) : `${num(e.p50MsAt1k)} ${num(e.p99MsAt1k ?? 0)} ${num(e.addedP50Ms ?? 0)} ${num(e.addedP99Ms ?? 0)}`;
    console.log(`${pad(e.target, 28)} ${num(e.requestsPerSecond, 0)} ${num(e.vsBareProxy)} ${num(e.vsExpressHpm)} ${latency} ${e.failed}`);
  }
  console.log(
    `\nXML translation: gateway ${xml.gatewayDocsPerSecond} docs/s, raw fast-xml-parser parse+build ${xml.rawDocsPerSecond} docs/s, ratio ${xml.ratio.toFixed(2)}×`,
  );
  console.log('latencies in ms, median of rounds; +p50/+p99 = added over direct; ×bare / ×hpm = throughput ratios');
}
