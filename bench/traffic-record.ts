/**
 * `npm run bench:traffic`: what the request path pays for the traffic counts (GET /v1/traffic
 * without Prometheus): `TrafficCounter.record` per request, beside the overview's
 * `VendorTraffic.record`, over a realistic spread of keys (50 vendors x 20 API ids x 4 statuses).
 * Prints nanoseconds per call; reads and sets nothing else.
 */
import { createLogger } from '../src/logging/logger';
import { MemoryTrafficStore, TrafficCounter } from '../src/metrics/traffic-counts';
import { VendorTraffic } from '../src/metrics/vendor-traffic';

const CALLS = 2_000_000;
const rows: Array<[string, string, string, number]> = [];
for (let v = 0; v < 50; v += 1)
  for (let a = 0; a < 20; a += 1) for (const status of [200, 201, 404, 502]) rows.push([`${a} ${status} vendor-${v}`, `vendor-${v}`, `GETapi-${a}`, status]);

function time(label: string, run: (row: [string, string, string, number], now: number) => void): void {
  for (let round = 0; round < 3; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) run(rows[(i * 7919) % rows.length] as [string, string, string, number], Date.now());
    const ns = Number(process.hrtime.bigint() - started) / CALLS;
    if (round === 2) console.log(`${label}: ${ns.toFixed(1)} ns per request`);
  }
}

const counter = new TrafficCounter(new MemoryTrafficStore(), { logger: createLogger('silent') });
const vendors = new VendorTraffic();
time('Date.now() alone (the loop)', () => undefined);
time('VendorTraffic.record (overview, before)', ([, vendor, , status], now) => vendors.record(vendor, status, now));
time('TrafficCounter.record (added)', ([key, vendor, api, status], now) => counter.record(key, vendor, api, status, now));
