/**
 * The audit log stores: the Redis Stream against a real redis-server (retention by age, the
 * count guard that reports what it trims early, paging, the export range, the move of the
 * earlier list's entries, scrubbing), the memory store, and the admin API's export endpoint.
 */
import Redis from 'ioredis';
import request from 'supertest';
import { accessServiceFor } from '../../test/support/access-service';
import { MemoryAccessStore } from './access-store';
import { createLogger } from '../logging/logger';
import { listenOnLoopback } from '../../test/support/listen';
import { createAdminApp } from '../admin/admin-app';
import { MemoryAuditLog, RedisAuditLog, type AuditEntry, type AuditLog } from './audit-log';

const TOKEN = 'admin-token-for-tests-0123456789';
const DAY_MS = 86_400_000;
const step = (i: number) => ({ actor: 'admin', action: 'test.step', target: `step/${i}`, before: null, after: { i } });

describe('Redis audit log', () => {
  let redis: Redis;
  let keyPrefix: string;
  const cleanup: string[] = [];

  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL as string, { maxRetriesPerRequest: 1 });
  });
  beforeEach(() => {
    keyPrefix = `test:${process.pid}:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    cleanup.push(`${keyPrefix}{access}:audit`, `${keyPrefix}{audit}:stream`, `${keyPrefix}{audit}:log`);
  });
  afterAll(async () => {
    await redis.del(...cleanup);
    await redis.quit();
  });

  it('keeps entries in one hash-tagged stream, newest first, with stream ids as entry ids', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    for (let i = 1; i <= 3; i++) await audit.append(step(i));

    expect(audit.key).toBe(`${keyPrefix}{access}:audit`);
    expect(await redis.xlen(audit.key)).toBe(3);
    const listed = await audit.list({ limit: 10 });
    expect(listed.map((e) => e.target)).toEqual(['step/3', 'step/2', 'step/1']);
    for (const entry of listed) expect(entry.id).toMatch(/^\d+-\d+$/);
    expect(Object.keys(listed[0]!)).toEqual(['id', 'at', 'actor', 'action', 'target', 'vendorIds', 'before', 'after']);
  });

  it('trims entries older than retentionDays on the next write, without counting them as early', async () => {
    const trimmedEarly: number[] = [];
    const audit = new RedisAuditLog(redis, { keyPrefix, retention: { retentionDays: 30, maxEntries: 100 }, onTrimmedEarly: (n) => trimmedEarly.push(n) });
    const old = (daysAgo: number) => `${Date.now() - daysAgo * DAY_MS}-0`;
    await redis.xadd(audit.key, old(40), 'e', JSON.stringify({ ...step(0), at: 'forty days ago' }));
    await redis.xadd(audit.key, old(20), 'e', JSON.stringify({ ...step(1), at: 'twenty days ago' }));

    await audit.append(step(2));

    expect((await audit.list({ limit: 10 })).map((e) => e.target)).toEqual(['step/2', 'step/1']);
    expect(trimmedEarly).toEqual([]);
  });

  it('keeps at most maxEntries and reports each entry it trims younger than retentionDays', async () => {
    const trimmedEarly: number[] = [];
    const audit = new RedisAuditLog(redis, { keyPrefix, retention: { retentionDays: 400, maxEntries: 5 }, onTrimmedEarly: (n) => trimmedEarly.push(n) });
    for (let i = 1; i <= 8; i++) await audit.append(step(i));

    expect(await redis.xlen(audit.key)).toBe(5);
    expect(trimmedEarly).toEqual([1, 1, 1]);
    const newest = await audit.list({ limit: 3 });
    expect(newest.map((e) => e.target)).toEqual(['step/8', 'step/7', 'step/6']);
    const older = await audit.list({ limit: 3, before: newest[2]!.id });
    expect(older.map((e) => e.target)).toEqual(['step/5', 'step/4']);
    expect(await audit.list({ limit: 3, before: 'no-such-entry' })).toEqual([]);
  });

  it('reads oldest first from a time on, in pages continued after the last id', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    await redis.xadd(audit.key, `${Date.now() - 10 * DAY_MS}-0`, 'e', JSON.stringify({ ...step(0), at: 'ten days ago' }));
    for (let i = 1; i <= 5; i++) await audit.append(step(i));
    const since = Date.now() - DAY_MS;

    const first = await audit.range({ sinceMs: since, limit: 3 });
    const second = await audit.range({ sinceMs: since, after: first[2]!.id, limit: 3 });

    expect(first.map((e) => e.target)).toEqual(['step/1', 'step/2', 'step/3']);
    expect(second.map((e) => e.target)).toEqual(['step/4', 'step/5']);
    expect((await audit.range({ sinceMs: 0, limit: 10 })).map((e) => e.target)[0]).toBe('step/0');
  });

  it('moves the entries of the earlier stream into the access slot, keeping their ids, at start', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    const ids = [`${Date.now() - 5000}-0`, `${Date.now() - 4000}-0`];
    for (const [i, id] of ids.entries()) await redis.xadd(audit.legacyStreamKey, id, 'e', JSON.stringify({ at: 'earlier', ...step(i) }));
    cleanup.push(audit.legacyStreamKey);

    expect(await audit.migrate()).toBe(2);

    expect(await redis.xlen(audit.legacyStreamKey)).toBe(0);
    expect((await audit.range({ sinceMs: 0, limit: 10 })).map((e) => [e.id, e.target])).toEqual([
      [ids[0], 'step/0'],
      [ids[1], 'step/1'],
    ]);
    expect(await audit.migrate()).toBe(0);
  });

  it('moves every entry of the earlier list into the stream, oldest first, before the next one', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    for (let i = 1; i <= 3; i++) {
      await redis.lpush(audit.legacyListKey, JSON.stringify({ id: `uuid-${i}`, at: `2026-01-0${i}T00:00:00.000Z`, ...step(i) }));
    }

    await audit.append(step(4));

    expect(await redis.exists(audit.legacyListKey)).toBe(0);
    const entries = await audit.list({ limit: 10 });
    expect(entries.map((e) => e.target)).toEqual(['step/4', 'step/3', 'step/2', 'step/1']);
    expect(entries[3]).toMatchObject({ at: '2026-01-01T00:00:00.000Z', after: { i: 1 } });
    expect(entries[3]!.id).toMatch(/^\d+-\d+$/);
  });

  it('drops secret-named properties and masks anything shaped like an API key', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    const leaked = 'cbk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_AAAAAA';
    await audit.append({
      actor: 'admin',
      action: 'test.leak',
      target: 'x',
      before: { secret: 's3cr3t', note: `was ${leaked}` },
      after: { nested: [{ token: 't0k3n' }] },
    });

    const [entry] = await audit.list({ limit: 1 });
    expect(entry).toMatchObject({ before: { note: 'was [redacted]' }, after: { nested: [{}] } });
    expect(JSON.stringify(await redis.xrange(audit.key, '-', '+'))).not.toMatch(/s3cr3t|t0k3n|cbk_A{32}/);
  });
});

describe('memory audit log', () => {
  it('keeps at most maxEntries and reports the entries it trims early', async () => {
    const trimmedEarly: number[] = [];
    const audit = new MemoryAuditLog({ retention: { retentionDays: 400, maxEntries: 3 }, onTrimmedEarly: (n) => trimmedEarly.push(n) });
    for (let i = 1; i <= 5; i++) await audit.append(step(i));

    const entries = await audit.list({ limit: 10 });
    expect(entries.map((e) => e.target)).toEqual(['step/5', 'step/4', 'step/3']);
    expect(trimmedEarly).toEqual([1, 1]);
    expect((await audit.list({ limit: 10, before: entries[1]!.id })).map((e) => e.target)).toEqual(['step/3']);
    expect((await audit.range({ sinceMs: 0, after: entries[2]!.id, limit: 10 })).map((e) => e.target)).toEqual(['step/4', 'step/5']);
  });
});

describe('admin API audit export', () => {
  async function withAdmin(audit: AuditLog, run: (api: ReturnType<typeof request>) => Promise<void>): Promise<void> {
    const store = new MemoryAccessStore({ vendors: [], users: [] }, { audit });
    const app = createAdminApp({ service: accessServiceFor(store), audit, adminToken: TOKEN, logger: createLogger('silent') });
    const server = await listenOnLoopback(app);
    try {
      await run(request(server.url));
    } finally {
      await server.close();
    }
  }
  const auth = { Authorization: `Bearer ${TOKEN}` };

  it('answers the entries since a date oldest first, in pages after an id', async () => {
    const audit = new MemoryAuditLog();
    for (let i = 1; i <= 3; i++) await audit.append(step(i));
    await withAdmin(audit, async (api) => {
      const first = await api.get('/v1/audit/export?since=2020-01-01&limit=2').set(auth);
      expect(first.status).toBe(200);
      expect((first.body as AuditEntry[]).map((e) => e.target)).toEqual(['step/1', 'step/2']);
      const next = await api.get(`/v1/audit/export?since=2020-01-01&after=${first.body[1].id}`).set(auth);
      expect((next.body as AuditEntry[]).map((e) => e.target)).toEqual(['step/3']);
      const future = await api.get('/v1/audit/export?since=2999-01-01').set(auth);
      expect(future.body).toEqual([]);
    });
  });

  it('pages /v1/audit with Link rel=next carrying the filters and the before cursor, and refuses a bad filter with 400 naming it', async () => {
    const audit = new MemoryAuditLog();
    for (let i = 1; i <= 3; i++) await audit.append({ ...step(i), vendorIds: ['acme'] });
    await audit.append({ ...step(4), vendorIds: ['acme-corp'] });
    await withAdmin(audit, async (api) => {
      const first = await api.get('/v1/audit?vendor=acme&limit=2').set(auth);
      expect((first.body as AuditEntry[]).map((e) => e.target)).toEqual(['step/3', 'step/2']);
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)?.[1] as string;
      expect(new URL(link, 'http://x').searchParams.get('vendor')).toBe('acme');
      const second = await api.get(link).set(auth);
      expect((second.body as AuditEntry[]).map((e) => e.target)).toEqual(['step/1']);
      expect(second.headers.link).toBeUndefined();
      for (const [query, field] of [
        ['since=yesterday', 'since'],
        ['until=2026-13-45', 'until'],
        ['since=2026-02-01&until=2026-01-01', 'until'],
        ['limit=0', 'limit'],
      ]) {
        const res = await api.get(`/v1/audit?${query}`).set(auth);
        expect([query, res.status, res.body.errors?.map((e: { field: string }) => e.field)]).toEqual([query, 400, [field]]);
      }
    });
  });

  it('refuses a missing or unreadable since with 400 naming it', async () => {
    await withAdmin(new MemoryAuditLog(), async (api) => {
      for (const query of ['', '?since=yesterday']) {
        const res = await api.get(`/v1/audit/export${query}`).set(auth);
        expect(res.status).toBe(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['since']);
      }
    });
  });
});
