/**
 * Open-loop load at a fixed rate: request i is due at start + i / rate, whether or not earlier
 * ones have answered, and its latency runs from that scheduled time to the end of its
 * response. A stalled server therefore shows its stall in every request it delayed, instead of
 * hiding it by slowing the sender (coordinated omission), which autocannon's bursty
 * `overallRate` does.
 *
 * Reads the LoadSpec; opens keep-alive connections to the loopback target as needed.
 */
import http from 'node:http';
import type { LoadResult, LoadSpec } from './spec';

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

export function openLoop(spec: LoadSpec, nextBody: () => string | undefined): Promise<LoadResult> {
  const target = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const total = Math.round(spec.rate * spec.seconds);
  const warmup = Math.round(spec.rate * spec.warmupSeconds);
  const latencies = new Float64Array(total);
  const intervalMs = 1000 / spec.rate;
  let sent = 0;
  let settled = 0;
  let failed = 0;
  const started = performance.now();

  return new Promise((resolve) => {
    const finish = (): void => {
      agent.destroy();
      const measured = latencies
        .slice(warmup, total)
        .filter((v) => v > 0)
        .sort();
      const elapsed = (performance.now() - started) / 1000;
      resolve({
        requestsPerSecond: (total - warmup) / Math.max(elapsed - spec.warmupSeconds, 1e-9),
        p50Ms: percentile(measured, 0.5),
        p99Ms: percentile(measured, 0.99),
        completed: measured.length,
        failed,
      });
    };
    const settle = (index: number, scheduledAt: number, ok: boolean): void => {
      if (ok) latencies[index] = performance.now() - scheduledAt;
      else failed++;
      if (++settled === total) finish();
    };
    const send = (index: number, scheduledAt: number): void => {
      const body = nextBody();
      const headers = body === undefined ? spec.request.headers : { ...spec.request.headers, 'content-length': String(Buffer.byteLength(body)) };
      const req = http.request({ host: target.hostname, port: target.port, method: spec.request.method, path: spec.request.path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => settle(index, scheduledAt, (res.statusCode ?? 500) < 400));
      });
      // Bounded: a request the target never answers counts as failed after 10 s.
      req.setTimeout(10_000, () => req.destroy());
      req.on('error', () => settle(index, scheduledAt, false));
      req.end(body);
    };
    // Sends every request that is due, then sleeps until the next one is: timer lateness
    // delays sending but not the scheduled times latency is measured from.
    const tick = (): void => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) {
        send(sent, started + sent * intervalMs);
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
}
