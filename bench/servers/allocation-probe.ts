/**
 * The gateway side of bench/alloc.ts: on `alloc-mark` it answers the heap in use, the garbage
 * collections since it started and its CPU time, then collects garbage and answers where the
 * heap starts again, so the runner can divide the heap grown between two marks by the requests
 * between them (valid only when no collection
 * ran in between: the runner starts the gateway with a young generation large enough and checks
 * the count). On `profile-start` / `profile-stop` it runs V8's sampling heap profiler, counting
 * objects that later died too, and answers the profile.
 *
 * Reads IPC messages; needs --expose-gc for the marks.
 */
import inspector from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import type { AllocationMark } from '../rig';

let collections = 0;
new PerformanceObserver((list) => (collections += list.getEntries().length)).observe({ entryTypes: ['gc'] });

let session: inspector.Session | null = null;

export function answerAllocationProbe(message: unknown): void {
  if (message === 'alloc-mark') void mark();
  else if (message === 'profile-start') void startProfile();
  else if (message === 'profile-stop') void stopProfile();
}

async function mark(): Promise<void> {
  const cpu = process.cpuUsage();
  const before = { heapUsed: process.memoryUsage().heapUsed, collections, cpuMicros: cpu.user + cpu.system };
  global.gc?.();
  // Let the gc entries of that collection reach the observer before the count is read.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = process.cpuUsage();
  const answer: AllocationMark = {
    ...before,
    heapUsedAfter: process.memoryUsage().heapUsed,
    collectionsAfter: collections,
    cpuMicrosAfter: after.user + after.system,
  };
  process.send?.(answer);
}

async function startProfile(): Promise<void> {
  session = new inspector.Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  process.send?.({ started: true });
}

async function stopProfile(): Promise<void> {
  if (!session) return;
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  session = null;
  process.send?.({ profile });
}
