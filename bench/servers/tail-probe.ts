/**
 * The tail as the measured process sees it, for the bench's latency rounds: its longest
 * event-loop delay (`monitorEventLoopDelay`, 1 ms resolution) and its GC pauses
 * (PerformanceObserver 'gc' entries: count, total and longest), from `tail-start` to `tail-stop`.
 *
 * Reads IPC messages `tail-start` and `tail-stop`; answers `tail-stop` with one `{ tail }`
 * message. Watches only between the two, so throughput rounds run without the observers.
 */
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import type { TailProbe } from '../rig';

export function answerTailProbes(): void {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let gcCount = 0;
  let gcTotalMs = 0;
  let gcMaxMs = 0;
  const count = (entries: readonly PerformanceEntry[]): void => {
    for (const entry of entries) {
      gcCount++;
      gcTotalMs += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  };
  const gc = new PerformanceObserver((list) => count(list.getEntries()));
  process.on('message', (message) => {
    if (message === 'tail-start') {
      gcCount = gcTotalMs = gcMaxMs = 0;
      delay.reset();
      delay.enable();
      gc.observe({ entryTypes: ['gc'] });
    } else if (message === 'tail-stop') {
      delay.disable();
      // Entries of the last few milliseconds still queued are delivered now, before the answer.
      count(gc.takeRecords());
      gc.disconnect();
      const answer: TailProbe = {
        tail: { maxEventLoopDelayMs: delay.max / 1e6, gcCount, gcTotalMs, gcMaxMs },
        rssMb: process.memoryUsage().rss / 2 ** 20,
        peakRssMb: process.resourceUsage().maxRSS / 1024,
      };
      process.send?.(answer);
    }
  });
}
