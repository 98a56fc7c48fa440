/**
 * The gateway's traffic counts in Redis, shared by every instance: one hash per minute
 * (`<prefix>{traffic}:m:<minute>`) and one per hour (`<prefix>{traffic}:h:<hour>`), fields
 * `vendor api class`, each flush one transaction (MULTI/EXEC) of HINCRBYs (so instances add,
 * never overwrite) and an EXPIRE of 8 days: all of it or none, so a flush retried after a failure
 * never counts a part twice (only a reply lost after EXEC ran can). The hash tag puts every key in
 * one cluster slot, so the transaction is one node's. A 7-day question reads 168 hours, never 10,080 minutes.
 *
 * Reads and sets those keys only.
 */
import type { RedisClient } from '../redis/redis-client';
import { TRAFFIC_RETENTION_SECONDS, type BucketCounts, type MinuteCounts, type TrafficStore } from './traffic-counts';

/** The key of a minute's (or an hour's) hash. */
function trafficKey(keyPrefix: string, hourly: boolean, index: number): string {
  return `${keyPrefix}{traffic}:${hourly ? 'h' : 'm'}:${index}`;
}

/** A pipeline's first error, thrown: ioredis reports each command's failure in its result. */
function firstError(results: Array<[Error | null, unknown]> | null): void {
  if (results === null) throw new Error('the traffic pipeline was not run');
  for (const [err] of results) if (err) throw err;
}

export class RedisTrafficStore implements TrafficStore {
  readonly scope = 'every instance sharing this Redis';
  readonly shared = true;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async add(batch: readonly MinuteCounts[]): Promise<void> {
    const transaction = this.client.multi();
    for (const { minute, counts } of batch) {
      const minuteKey = trafficKey(this.keyPrefix, false, minute);
      const hourKey = trafficKey(this.keyPrefix, true, Math.floor(minute / 60));
      for (const [field, n] of counts) {
        transaction.hincrby(minuteKey, field, n);
        transaction.hincrby(hourKey, field, n);
      }
      transaction.expire(minuteKey, TRAFFIC_RETENTION_SECONDS);
      transaction.expire(hourKey, TRAFFIC_RETENTION_SECONDS);
    }
    firstError(await transaction.exec());
  }

  async buckets(fromSeconds: number, toSeconds: number, hourly: boolean): Promise<BucketCounts[]> {
    const size = hourly ? 3600 : 60;
    const starts: number[] = [];
    for (let start = fromSeconds; start < toSeconds; start += size) starts.push(start);
    const pipeline = this.client.pipeline();
    for (const start of starts) pipeline.hgetall(trafficKey(this.keyPrefix, hourly, start / size));
    const results = await pipeline.exec();
    firstError(results);
    return starts.map((startSeconds, i) => {
      const hash = (results?.[i]?.[1] ?? {}) as Record<string, string>;
      return { startSeconds, counts: new Map(Object.entries(hash).map(([field, n]) => [field, Number(n)])) };
    });
  }
}
