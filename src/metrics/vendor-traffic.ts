/**
 * Each vendor's answers over the last 15 minutes on this instance (requests, 4xx, 5xx), for the
 * admin UI's overview: fifteen one-minute buckets, the oldest dropped as time moves on, so the
 * hot path pays one map update per request and the memory stays bounded by vendors x 15.
 *
 * Reads what the request observer tells it; sets nothing else.
 */
const BUCKET_MS = 60_000;
const BUCKETS = 15;

interface VendorTrafficRow {
  readonly vendorId: string;
  readonly requests: number;
  readonly clientErrors: number;
  readonly serverErrors: number;
}

interface Bucket {
  readonly minute: number;
  readonly counts: Map<string, [number, number, number]>;
}

export class VendorTraffic {
  private readonly buckets: Bucket[] = [];

  record(vendorId: string, status: number, nowMs = Date.now()): void {
    const minute = Math.floor(nowMs / BUCKET_MS);
    let bucket = this.buckets[this.buckets.length - 1];
    if (bucket?.minute !== minute) {
      bucket = { minute, counts: new Map() };
      this.buckets.push(bucket);
      while (this.buckets.length > BUCKETS) this.buckets.shift();
    }
    let counts = bucket.counts.get(vendorId);
    if (!counts) bucket.counts.set(vendorId, (counts = [0, 0, 0]));
    counts[0] += 1;
    if (status >= 500) counts[2] += 1;
    else if (status >= 400) counts[1] += 1;
  }

  /** The last 15 minutes, busiest vendor first. */
  lastQuarterHour(nowMs = Date.now()): VendorTrafficRow[] {
    const oldest = Math.floor(nowMs / BUCKET_MS) - BUCKETS + 1;
    const totals = new Map<string, [number, number, number]>();
    for (const bucket of this.buckets) {
      if (bucket.minute < oldest) continue;
      for (const [vendorId, counts] of bucket.counts) {
        const total = totals.get(vendorId) ?? [0, 0, 0];
        totals.set(vendorId, [total[0] + counts[0], total[1] + counts[1], total[2] + counts[2]]);
      }
    }
    return [...totals]
      .map(([vendorId, [requests, clientErrors, serverErrors]]) => ({ vendorId, requests, clientErrors, serverErrors }))
      .sort((a, b) => b.requests - a.requests || (a.vendorId < b.vendorId ? -1 : 1));
  }
}
