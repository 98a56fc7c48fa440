import { createLogger } from '../logging/logger';
import { MemoryTrafficStore, TrafficCounter, type MinuteCounts, type TrafficStore } from './traffic-counts';
import { windowOf } from './traffic';

const MINUTE = 60_000;
const logger = createLogger('silent');

/** A store whose Redis is down: every add fails, as RedisTrafficStore's does then. */
class DownStore extends MemoryTrafficStore {
  down = true;
  override async add(batch: readonly MinuteCounts[]): Promise<void> {
    if (this.down) throw new Error('Connection is closed.');
    await super.add(batch);
  }
}

function record(counter: TrafficCounter, vendor: string, api: string, status: number, atMs: number): void {
  counter.record(`${api} ${status} ${vendor}`, vendor, api, status, atMs);
}

describe('windowOf', () => {
  it('ends the window at the asked time rounded up to a step, one point per step', () => {
    expect(windowOf({ rangeSeconds: 3600, stepSeconds: 60, atSeconds: 1_000_030 })).toMatchObject({ fromSeconds: 996_480, toSeconds: 1_000_080 });
    expect(windowOf({ rangeSeconds: 3600, stepSeconds: 60, atSeconds: 1_000_030 }).ends).toHaveLength(60);
  });
});

describe('TrafficCounter', () => {
  it('counts requests per minute by vendor, API id and status class, each in the step it was answered in', async () => {
    const counter = new TrafficCounter(new MemoryTrafficStore(), { logger });
    const start = (Math.floor(Date.now() / MINUTE) - 10) * MINUTE;
    record(counter, 'acme', 'GETgenders', 200, start);
    record(counter, 'acme', 'GETgenders', 204, start + 1);
    record(counter, 'acme', 'GETgenders', 404, start + 2);
    record(counter, 'acme', 'GETgenders', 502, start + MINUTE);
    record(counter, 'beta', 'GETtitles', 200, start + 2 * MINUTE);
    await counter.flush();
    record(counter, 'acme', 'GETgenders', 200, start + 2 * MINUTE + 5);

    const answer = await counter.read({ rangeSeconds: 3600, stepSeconds: 60, atSeconds: start / 1000 + 150 });
    const at = (minute: number): number => start / 1000 + minute * 60 + 60;
    const nonZero = answer.series.map((s) => ({ ...s, points: s.points.filter(([, n]) => n > 0) }));
    expect(answer.source).toBe('gateway');
    expect(nonZero).toEqual([
      {
        vendorId: 'acme',
        apiId: 'GETgenders',
        statusClass: '2xx',
        points: [
          [at(0), 2],
          [at(2), 1],
        ],
      },
      { vendorId: 'acme', apiId: 'GETgenders', statusClass: '4xx', points: [[at(0), 1]] },
      { vendorId: 'acme', apiId: 'GETgenders', statusClass: '5xx', points: [[at(1), 1]] },
      { vendorId: 'beta', apiId: 'GETtitles', statusClass: '2xx', points: [[at(2), 1]] },
    ]);
    expect(answer.series[0]?.points).toHaveLength(60);

    const acme = await counter.read({ vendorId: 'acme', apiId: 'GETgenders', rangeSeconds: 86_400, stepSeconds: 3600, atSeconds: start / 1000 + 150 });
    expect(acme.series.map((s) => [s.statusClass, s.points.reduce((sum, [, n]) => sum + n, 0)])).toEqual([
      ['2xx', 3],
      ['4xx', 1],
      ['5xx', 1],
    ]);
  });

  it('keeps the counts of a failed flush for the next one, so Redis down loses nothing for 15 minutes', async () => {
    const store = new DownStore();
    const counter = new TrafficCounter(store, { logger });
    const now = Date.now();
    record(counter, 'acme', 'GETgenders', 200, now);
    await counter.flush();
    record(counter, 'acme', 'GETgenders', 200, now + 1);
    await counter.flush();
    store.down = false;
    await counter.flush();
    const stored = await store.buckets(Math.floor(now / MINUTE) * 60, Math.floor(now / MINUTE) * 60 + 60, false);
    expect(stored.map((b) => [...b.counts])).toEqual([[['acme GETgenders 2xx', 2]]]);
  });

  it('drops minutes older than 15 minutes that could not be saved, instead of growing without bound', async () => {
    const store = new DownStore();
    const counter = new TrafficCounter(store, { logger });
    record(counter, 'acme', 'GETgenders', 200, Date.now() - 20 * MINUTE);
    record(counter, 'acme', 'GETgenders', 200, Date.now());
    await counter.flush();
    store.down = false;
    await counter.flush();
    const answer = await counter.read({ rangeSeconds: 3600, stepSeconds: 60, atSeconds: Date.now() / 1000 });
    expect(answer.series.flatMap((s) => s.points).reduce((sum, [, n]) => sum + n, 0)).toBe(1);
  });

  it('forgets minutes and hours older than 8 days in memory', async () => {
    const store: TrafficStore = new MemoryTrafficStore();
    const old = Math.floor(Date.now() / MINUTE) - 9 * 24 * 60;
    await store.add([{ minute: old, counts: new Map([['acme GETgenders 2xx', 1]]) }]);
    expect(await store.buckets(old * 60, old * 60 + 60, false)).toEqual([]);
    expect(await store.buckets(Math.floor(old / 60) * 3600, Math.floor(old / 60) * 3600 + 3600, true)).toEqual([]);
  });
});
