/**
 * The request log, in memory and in Redis alike (the shared test Redis, a key prefix per test):
 * find by request id within a vendor only, newest first, filters, paging, retention, the
 * per-vendor and total caps; on Redis also one instance writing and another reading, and a batch
 * kept while Redis is down, then dropped and counted once the batch is full.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '../../logging/logger';
import { startRedisServer } from '../../../test/support/redis-server';
import { BatchedRequestLog } from './batched-request-log';
import { createRequestLog } from './create-request-log';
import { RedisLogStore } from './redis-log-store';
import type { RequestLog, RequestLogEntry } from './request-log';
import type { RequestLogConfig } from '../portal.schema';

const logger = createLogger('silent');
const client = new Redis(process.env.TEST_REDIS_URL as string, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 2000, lazyConnect: true });
client.on('error', () => undefined);
let prefixCounter = 0;
const opened: RequestLog[] = [];

beforeAll(() => client.connect());
afterAll(async () => {
  for (const log of opened) await log.stop();
  client.disconnect();
});

const HOUR = 3_600_000;
const BOUNDS: RequestLogConfig = { enabled: true, retentionHours: 72, maxEntriesPerVendor: 100_000, maxEntriesTotal: 1_000_000, flushIntervalMs: 60_000 };

function entry(over: Partial<RequestLogEntry> & { atMs?: number } = {}): RequestLogEntry {
  const { atMs, ...rest } = over;
  return {
    at: new Date(atMs ?? Date.now()).toISOString(),
    requestId: randomUUID(),
    apiId: 'GETaccounts/{accountId}',
    status: 200,
    durationMs: 12.5,
    upstreamStatus: 200,
    upstreamMs: 10.1,
    keyPrefix: 'cbk_a1B2c3D4',
    ...rest,
  };
}

/** Entries one millisecond apart, the last `endsAgoMs` ago, oldest first. */
function series(count: number, over: (i: number) => Partial<RequestLogEntry> = () => ({}), endsAgoMs = 0): RequestLogEntry[] {
  const end = Date.now() - endsAgoMs;
  return Array.from({ length: count }, (_, i) => entry({ atMs: end - (count - i), ...over(i) }));
}

type Kind = 'memory' | 'redis';

function logOf(kind: Kind, bounds: Partial<RequestLogConfig> = {}, keyPrefix = `test:${process.pid}:reqlog${++prefixCounter}:`): RequestLog {
  const log = createRequestLog({ ...BOUNDS, ...bounds }, { redis: kind === 'redis' ? client : null, keyPrefix, logger }) as RequestLog;
  opened.push(log);
  return log;
}

async function recorded(log: RequestLog, vendorId: string, entries: readonly RequestLogEntry[]): Promise<void> {
  for (const e of entries) log.record(vendorId, e);
  await log.flush();
}

/** Every page's items, newest first, following `next`. */
async function allPages(log: RequestLog, vendorId: string, limit: number, filters: Record<string, unknown> = {}): Promise<RequestLogEntry[][]> {
  const pages: RequestLogEntry[][] = [];
  let after: string | undefined;
  do {
    const page = await log.list(vendorId, { limit, ...filters, ...(after ? { after } : {}) });
    pages.push(page.items);
    after = page.next ?? undefined;
  } while (after && pages.length < 100);
  return pages;
}

const ids = (entries: readonly RequestLogEntry[]): string[] => entries.map((e) => e.requestId);
const newestFirst = (entries: readonly RequestLogEntry[]): string[] => ids([...entries].reverse());

describe.each<Kind>(['memory', 'redis'])('the request log in %s', (kind) => {
  it("finds a request by its id within its vendor, and never another vendor's request nor a guessed id", async () => {
    const log = logOf(kind);
    const a = entry({ code: 'not_found', status: 404 });
    const b = entry();
    await recorded(log, 'acme', [a]);
    await recorded(log, 'globex', [b]);
    expect(await log.find('acme', a.requestId)).toEqual(a);
    expect(await log.find('globex', b.requestId)).toEqual(b);
    expect(await log.find('acme', b.requestId)).toBeNull();
    expect(await log.find('globex', a.requestId)).toBeNull();
    expect(await log.find('acme', randomUUID())).toBeNull();
    expect(ids((await log.list('acme', { limit: 10 })).items)).toEqual([a.requestId]);
  });

  it('keeps an entry without the core exactly as recorded: no upstream fields, no code', async () => {
    const log = logOf(kind);
    const { upstreamStatus: _s, upstreamMs: _m, ...refused } = entry({ status: 401 });
    await recorded(log, 'acme', [refused]);
    expect(await log.find('acme', refused.requestId)).toEqual(refused);
  });

  it('lists newest first and pages through every entry once, the last page saying there is no more', async () => {
    const log = logOf(kind);
    const entries = series(25);
    await recorded(log, 'acme', entries.slice(0, 10));
    await recorded(log, 'acme', entries.slice(10));
    const pages = await allPages(log, 'acme', 10);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(ids(pages.flat())).toEqual(newestFirst(entries));
    const exact = await allPages(log, 'acme', 5);
    expect(exact.map((p) => p.length)).toEqual([5, 5, 5, 5, 5]);
  });

  it('filters by status class, API id and time range, and pages through the filtered entries', async () => {
    const log = logOf(kind);
    const entries = series(60, (i) => ({ status: i % 3 === 0 ? 503 : i % 3 === 1 ? 404 : 200, apiId: i % 2 === 0 ? 'GETaccounts/' : 'POSTreceipts/deposits' }));
    await recorded(log, 'acme', entries);
    const fiveXx = entries.filter((e) => e.status >= 500);
    expect(ids((await allPages(log, 'acme', 7, { status: '5xx' })).flat())).toEqual(newestFirst(fiveXx));
    const deposits404 = entries.filter((e) => e.status === 404 && e.apiId === 'POSTreceipts/deposits');
    expect(ids((await allPages(log, 'acme', 3, { status: '4xx', apiId: 'POSTreceipts/deposits' })).flat())).toEqual(newestFirst(deposits404));
    const fromMs = Date.parse((entries[20] as RequestLogEntry).at);
    const toMs = Date.parse((entries[40] as RequestLogEntry).at);
    expect(ids((await allPages(log, 'acme', 8, { fromMs, toMs })).flat())).toEqual(newestFirst(entries.slice(20, 40)));
    expect((await log.list('acme', { limit: 10, status: '1xx' })).items).toEqual([]);
  });

  it('finds and lists nothing older than the retention, and drops it', async () => {
    const log = logOf(kind, { retentionHours: 2 });
    const old = series(5, () => ({}), 2 * HOUR + 60_000);
    const recent = series(5, () => ({}), HOUR);
    await recorded(log, 'acme', [...old, ...recent]);
    expect(await log.find('acme', (old[4] as RequestLogEntry).requestId)).toBeNull();
    expect(await log.find('acme', (recent[0] as RequestLogEntry).requestId)).not.toBeNull();
    expect(ids((await log.list('acme', { limit: 50 })).items)).toEqual(newestFirst(recent));
  });

  it('keeps at most maxEntriesPerVendor per vendor, the newest', async () => {
    const log = logOf(kind, { maxEntriesPerVendor: 100 });
    const entries = series(130);
    await recorded(log, 'acme', entries.slice(0, 70));
    await recorded(log, 'acme', entries.slice(70));
    await recorded(log, 'globex', series(20));
    const kept = (await allPages(log, 'acme', 200)).flat();
    expect(ids(kept)).toEqual(newestFirst(entries.slice(30)));
    expect(await log.find('acme', (entries[29] as RequestLogEntry).requestId)).toBeNull();
    expect((await log.list('globex', { limit: 200 })).items).toHaveLength(20);
  });

  it('keeps at most maxEntriesTotal across vendors by cutting the biggest vendors, never a small one', async () => {
    const log = logOf(kind, { maxEntriesPerVendor: 5000, maxEntriesTotal: 1000 });
    const big = series(900);
    await recorded(log, 'big', big);
    await recorded(log, 'small', series(50));
    await recorded(log, 'middle', series(300));
    // Over 1,000: cut to 90 % of it, the biggest vendor first (fair shares of 900: 50, 300, 550).
    const count = async (vendorId: string): Promise<number> => (await allPages(log, vendorId, 200)).flat().length;
    expect(await count('small')).toBe(50);
    expect(await count('middle')).toBe(300);
    expect(await count('big')).toBe(550);
    expect(ids((await allPages(log, 'big', 200)).flat())).toEqual(newestFirst(big.slice(350)));
  });

  it('refuses a cursor no page gave and a limit out of range, naming the field', async () => {
    const log = logOf(kind);
    await expect(log.list('acme', { limit: 10, after: 'x' })).rejects.toMatchObject({ code: 'invalid_request', errors: [{ field: 'after' }] });
    await expect(log.list('acme', { limit: 0 })).rejects.toMatchObject({ errors: [{ field: 'limit' }] });
    await expect(log.list('acme', { limit: 201 })).rejects.toMatchObject({ errors: [{ field: 'limit' }] });
  });
});

describe('the request log in Redis, across instances', () => {
  it('shows on one instance what another wrote, an entry that reached Redis late listed where it arrived', async () => {
    const keyPrefix = `test:${process.pid}:shared${++prefixCounter}:`;
    const writer = logOf('redis', {}, keyPrefix);
    const other = logOf('redis', {}, keyPrefix);
    const entries = series(6);
    await recorded(other, 'acme', [entries[0], entries[2], entries[4]] as RequestLogEntry[]);
    await recorded(writer, 'acme', [entries[1], entries[3], entries[5]] as RequestLogEntry[]);
    expect(await other.find('acme', (entries[5] as RequestLogEntry).requestId)).toEqual(entries[5]);
    expect(await writer.find('acme', (entries[0] as RequestLogEntry).requestId)).toEqual(entries[0]);
    const listed = (await other.list('acme', { limit: 10 })).items;
    expect(listed).toHaveLength(6);
    // The second batch arrived after the first: its older entries get ids after the newest one there.
    expect(ids(listed.slice(0, 3))).toEqual(ids([entries[5], entries[3], entries[1]] as RequestLogEntry[]));
    expect(await other.find('globex', (entries[5] as RequestLogEntry).requestId)).toBeNull();
  });

  it('keeps a batch while Redis is down, writes it when Redis is back, and drops and counts what the full batch cannot take', async () => {
    const redis = await startRedisServer();
    const own = new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, retryStrategy: () => 50 });
    own.on('error', () => undefined);
    let dropped = 0;
    const log = new BatchedRequestLog(new RedisLogStore(own, 'down:', { retentionMs: HOUR, maxEntriesPerVendor: 1000, maxEntriesTotal: 10_000 }), {
      flushIntervalMs: 60_000,
      logger,
      maxPending: 5,
      onDropped: (n) => (dropped += n),
    });
    try {
      await redis.stop();
      const entries = series(6);
      await recorded(log, 'acme', entries.slice(0, 3));
      await recorded(log, 'acme', entries.slice(3));
      expect(dropped).toBe(1);
      await redis.start();
      await new Promise<void>((resolve) => (own.status === 'ready' ? resolve() : own.once('ready', () => resolve())));
      await log.flush();
      expect(ids((await log.list('acme', { limit: 10 })).items)).toEqual(newestFirst(entries.slice(0, 5)));
    } finally {
      await log.stop().catch(() => undefined);
      own.disconnect();
      await redis.stop();
    }
  });
});
