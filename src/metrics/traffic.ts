/**
 * Traffic over time (`GET /v1/traffic`): the question, the answer's shape, and the window both
 * sources share, so Prometheus and the gateway's own counts put the same request in the same point.
 *
 * A point `[t, n]` holds the requests answered in `[t - step, t)`; the last point ends at `to`
 * (the asked time rounded up to a step), so the newest point is the step in progress. Reads and
 * sets nothing; the sources are prometheus-traffic.ts and traffic-counts.ts.
 */

type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx';

export interface TrafficQuery {
  readonly vendorId?: string;
  readonly apiId?: string;
  /** The length of the window, in seconds. */
  readonly rangeSeconds: number;
  readonly stepSeconds: number;
  /** The asked time (unix seconds); the window ends at it rounded up to a step. */
  readonly atSeconds: number;
}

export interface TrafficSeries {
  readonly vendorId: string;
  readonly apiId: string;
  readonly statusClass: StatusClass;
  /** `[unixSeconds, requests]`, one per step, oldest first; the time is the end of the step. */
  readonly points: Array<[number, number]>;
}

export interface TrafficAnswer {
  readonly source: 'prometheus' | 'gateway';
  /** What the numbers cover and what they miss. */
  readonly note: string;
  readonly series: TrafficSeries[];
}

export interface TrafficSource {
  read(query: TrafficQuery): Promise<TrafficAnswer>;
}

/** The end of the window and the end of each step, oldest first. */
export function windowOf(query: TrafficQuery): { fromSeconds: number; toSeconds: number; ends: number[] } {
  const { stepSeconds, rangeSeconds } = query;
  const toSeconds = Math.ceil(query.atSeconds / stepSeconds) * stepSeconds;
  const fromSeconds = toSeconds - rangeSeconds;
  // Counted by steps, not by adding to a time: a step too small to move a huge time must not loop forever.
  const ends = Array.from({ length: Math.floor(rangeSeconds / stepSeconds) }, (_, i) => fromSeconds + (i + 1) * stepSeconds);
  return { fromSeconds, toSeconds, ends };
}

export function statusClassOf(status: number): StatusClass {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  if (status >= 200) return '2xx';
  return '1xx';
}

/**
 * Adds counts into series keyed `vendor api class` (a space cannot occur in a vendor id or an API
 * id), one slot per step of the window. Both sources build their answer with it.
 */
export class SeriesBuilder {
  private readonly rows = new Map<string, number[]>();

  constructor(
    private readonly fromSeconds: number,
    private readonly stepSeconds: number,
    private readonly ends: readonly number[],
  ) {}

  /** Counts `requests` in the step holding the instant `atSeconds`; outside the window it is dropped. */
  add(field: string, atSeconds: number, requests: number): void {
    const slot = Math.floor((atSeconds - this.fromSeconds) / this.stepSeconds);
    if (slot < 0 || slot >= this.ends.length || requests === 0) return;
    let counts = this.rows.get(field);
    if (!counts) this.rows.set(field, (counts = new Array<number>(this.ends.length).fill(0)));
    counts[slot] = (counts[slot] ?? 0) + requests;
  }

  series(filter: { vendorId?: string; apiId?: string }): TrafficSeries[] {
    const out: TrafficSeries[] = [];
    for (const [field, counts] of this.rows) {
      const [vendorId = '', apiId = '', statusClass = '2xx'] = field.split(' ');
      if (filter.vendorId !== undefined && vendorId !== filter.vendorId) continue;
      if (filter.apiId !== undefined && apiId !== filter.apiId) continue;
      out.push({
        vendorId,
        apiId,
        statusClass: statusClass as StatusClass,
        points: counts.map((n, i): [number, number] => [this.ends[i] as number, n]),
      });
    }
    return out.sort((a, b) => compare(a.vendorId, b.vendorId) || compare(a.apiId, b.apiId) || compare(a.statusClass, b.statusClass));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
