/**
 * What the soak watches beside the load: each instance's readiness (`/health/ready` on its status
 * port, every second, with its breaker states), each instance's resident memory (every 5 s, from
 * /proc), and the live access records in Redis (every 5 s: TTL and size).
 *
 * Reads the status ports, /proc/<pid>/status and Redis; sets nothing. Every loop stops by itself
 * at `endAt`.
 */
import { readFile } from 'node:fs/promises';
import type { AccessStoreProbe } from './access';
import { sleep, type ChildRole } from './processes';

interface ReadinessSample {
  readonly at: number;
  /** ready: 200; not_ready: any other answer; down: no answer. */
  readonly state: 'ready' | 'not_ready' | 'down';
  readonly breakers: Readonly<Record<string, string>> | null;
}

export interface RssSample {
  readonly at: number;
  readonly incarnation: number;
  readonly mb: number;
}

interface Watched {
  readonly name: string;
  readonly role: ChildRole;
  readonly statusPort: number;
}

export class Monitors {
  readonly readiness = new Map<string, ReadinessSample[]>();
  readonly rss = new Map<string, RssSample[]>();

  constructor(
    private readonly instances: readonly Watched[],
    private readonly store: AccessStoreProbe,
  ) {
    for (const { name } of instances) {
      this.readiness.set(name, []);
      this.rss.set(name, []);
    }
  }

  /** What a load balancer would believe: the last poll said ready and the process is there. */
  routable(name: string): boolean {
    const instance = this.instances.find((i) => i.name === name);
    const last = this.readiness.get(name)?.at(-1);
    return Boolean(instance?.role.running && last?.state === 'ready');
  }

  /** The readiness the instance reported at `at` (its last poll before), or null before the first. */
  readinessAt(name: string, at: number): ReadinessSample | null {
    const samples = this.readiness.get(name) ?? [];
    let found: ReadinessSample | null = null;
    for (const sample of samples) {
      if (sample.at > at) break;
      found = sample;
    }
    return found;
  }

  async run(endAt: number): Promise<void> {
    await Promise.all([
      this.every(1000, endAt, () => this.pollReadiness()),
      this.every(5000, endAt, () => this.sampleRss()),
      this.every(5000, endAt, async () => void (await this.store.sample())),
    ]);
  }

  private async every(intervalMs: number, endAt: number, action: () => Promise<void>): Promise<void> {
    for (let due = Date.now(); due < endAt; due += intervalMs) {
      await sleep(due - Date.now());
      await action().catch(() => undefined);
    }
  }

  async pollReadiness(): Promise<void> {
    await Promise.all(
      this.instances.map(async ({ name, statusPort }) => {
        let sample: ReadinessSample;
        try {
          const res = await fetch(`http://127.0.0.1:${statusPort}/health/ready`, { signal: AbortSignal.timeout(900) });
          const body = (await res.json().catch(() => null)) as { breakers?: Record<string, string> } | null;
          sample = { at: Date.now(), state: res.status === 200 ? 'ready' : 'not_ready', breakers: body?.breakers ?? null };
        } catch {
          sample = { at: Date.now(), state: 'down', breakers: null };
        }
        this.readiness.get(name)?.push(sample);
      }),
    );
  }

  private async sampleRss(): Promise<void> {
    for (const { name, role } of this.instances) {
      const pid = role.pid;
      if (pid === null) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
      if (kb) this.rss.get(name)?.push({ at: Date.now(), incarnation: role.incarnation, mb: Number(kb) / 1024 });
    }
  }
}

/** Least-squares slope in MB per minute; NaN with fewer than 3 samples. */
export function slopeMbPerMinute(samples: readonly RssSample[]): number {
  if (samples.length < 3) return Number.NaN;
  const t0 = (samples[0] as RssSample).at;
  const xs = samples.map((s) => (s.at - t0) / 60_000);
  const ys = samples.map((s) => s.mb);
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - meanX) * ((ys[i] as number) - meanY);
    den += (x - meanX) ** 2;
  });
  return den === 0 ? Number.NaN : num / den;
}
