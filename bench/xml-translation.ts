/**
 * XML receipt translation throughput: documents per second of the gateway's full translation
 * of a ~3.7 KB ReceiptSavingsDepositWebDto (safe parse + validate + map to the core's
 * canonical JSON, then the core's JSON back to the vendor's XML) against fast-xml-parser's
 * raw parse + build of the same document (default options), on this one core.
 *
 * Run: npx tsx bench/xml-translation.ts [seconds, default 10]. Reads the fixture
 * test/fixtures/receipts/payment.request.xml and config/receipt-enums.yaml; prints both rates
 * and their ratio (goal ≥ 1.0×). The two alternate in short slices (A B A B …) and the
 * medians are reported, so a burst of load from elsewhere on the machine hits both alike;
 * the run is bounded by the given time (at most 60 s).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { loadReceiptEnums } from '../src/contracts/enums';
import { createBodyContracts, renderResponseBody } from '../src/contracts/registry';
import { SafeXmlParser } from '../src/xml/safe-xml';

const root = path.resolve(__dirname, '..');
const document = readFileSync(path.join(root, 'test/fixtures/receipts/payment.request.xml'), 'utf8');
const totalSeconds = Math.min(Math.max(Number(process.argv[2] ?? 10), 1), 60);
const SLICE_SECONDS = 0.1;

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.join(root, 'config/receipt-enums.yaml')), adjustmentNotesRequired: false });
const contract = contracts.get('ReceiptSavingsDepositWebDto');
if (!contract) throw new Error('ReceiptSavingsDepositWebDto is not registered');
const safeParser = new SafeXmlParser(32);

function gatewayTranslation(): number {
  const decoded = contract!.decode({ format: 'xml', xml: safeParser.parse(document) });
  return renderResponseBody(contract!, decoded.coreJson, 'xml').length;
}

const rawParser = new XMLParser();
const rawBuilder = new XMLBuilder();
function rawParseAndBuild(): number {
  return (rawBuilder.build(rawParser.parse(document)) as string).length;
}

/** Calls `fn` for `seconds`, checking the clock every 32 calls; returns calls per second. */
function rate(fn: () => number, seconds: number): number {
  let calls = 0;
  let sink = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  let now = started;
  while (now < until) {
    for (let i = 0; i < 32; i++) sink += fn();
    calls += 32;
    now = performance.now();
  }
  if (sink < 0) throw new Error('unreachable: keeps the results alive');
  return calls / ((now - started) / 1000);
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
}

function main(): void {
  // Warm both paths up before measuring, so the JIT has compiled them.
  rate(gatewayTranslation, 0.5);
  rate(rawParseAndBuild, 0.5);
  const gateway: number[] = [];
  const raw: number[] = [];
  const ratios: number[] = [];
  const pairs = Math.round(totalSeconds / (2 * SLICE_SECONDS));
  for (let pair = 0; pair < pairs; pair++) {
    const g = rate(gatewayTranslation, SLICE_SECONDS);
    const r = rate(rawParseAndBuild, SLICE_SECONDS);
    gateway.push(g);
    raw.push(r);
    ratios.push(g / r);
  }
  console.log(
    `document: ${Buffer.byteLength(document)} bytes (test/fixtures/receipts/payment.request.xml), ${pairs} interleaved pairs of ${SLICE_SECONDS * 1000} ms`,
  );
  console.log(`gateway translation (parse + validate + map + build): ${median(gateway).toFixed(0)} docs/s (median)`);
  console.log(`fast-xml-parser raw parse + build:                    ${median(raw).toFixed(0)} docs/s (median)`);
  console.log(`ratio: ${median(ratios).toFixed(2)}× (median of pair ratios; goal ≥ 1.00×)`);
}

main();
