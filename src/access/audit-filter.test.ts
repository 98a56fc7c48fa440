/**
 * Filtered pages of the audit log, the same on the Redis Stream (a real redis-server) and in
 * memory: vendor (by `vendorIds`, and by target for entries written before it existed, never by
 * an id's prefix), actor, action and time range, newest first; and paging that walks the whole
 * log, where a page cut short by the scan budget still leads on to every match.
 */
import Redis from 'ioredis';
import { AUDIT_SCAN_BUDGET } from './audit-filter';
import { RedisAuditLog, type AuditEntry, type AuditEntryInput, type AuditLog, type AuditQuery } from './audit-log';
import { MemoryAuditLog } from './memory-audit-log';

const entry = (target: string, vendorIds: string[], actor = 'admin:otto', action = 'vendor.update'): AuditEntryInput => ({
  actor,
  action,
  target,
  vendorIds,
  before: null,
  after: null,
});

/** Every entry of a filtered walk, following `next` to the end. */
async function walk(audit: AuditLog, query: Omit<AuditQuery, 'before'>): Promise<{ entries: AuditEntry[]; pages: number }> {
  const entries: AuditEntry[] = [];
  let pages = 0;
  for (let before: string | undefined; ;) {
    const page = await audit.page({ ...query, before });
    pages += 1;
    entries.push(...page.items);
    if (page.next === null) return { entries, pages };
    before = page.next;
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const msOf = (e: AuditEntry): number => Number(e.id.split('-')[0]);

let redis: Redis;
const keys: string[] = [];
beforeAll(() => {
  redis = new Redis(process.env.TEST_REDIS_URL as string, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

function redisLog(): RedisAuditLog {
  const audit = new RedisAuditLog(redis, { keyPrefix: `test:${process.pid}:${Math.random().toString(36).slice(2)}:` });
  keys.push(audit.key);
  return audit;
}

describe.each([
  ['Redis', redisLog],
  ['memory', () => new MemoryAuditLog()],
])('%s audit log filters', (_store, make: () => AuditLog) => {
  it('finds a vendor by the vendors an entry names, not by a vendor id that starts the same', async () => {
    const audit = make();
    await audit.append(entry('vendors/acme', ['acme']));
    await audit.append(entry('keys/key-1', ['acme'], 'admin:otto', 'key.revoke'));
    await audit.append(entry('users/teller/permissions/p1', ['acme', 'acme-corp'], 'admin:anna', 'permission.grant'));
    await audit.append(entry('vendors/acme-corp', ['acme-corp']));
    await audit.append(entry('admins/anna', [], 'admin:bootstrap', 'admin.create'));

    const acme = await audit.page({ limit: 10, vendor: 'acme' });
    expect(acme.items.map((e) => e.target)).toEqual(['users/teller/permissions/p1', 'keys/key-1', 'vendors/acme']);
    expect(acme.next).toBeNull();
    expect((await audit.page({ limit: 10, vendor: 'acme-corp' })).items.map((e) => e.target)).toEqual(['vendors/acme-corp', 'users/teller/permissions/p1']);
    expect((await audit.page({ limit: 10, vendor: 'acm' })).items).toEqual([]);
  });

  it('filters by actor (whole, or the id after the colon) and by action (whole, or its family)', async () => {
    const audit = make();
    await audit.append(entry('keys/k1', ['acme'], 'admin:otto', 'key.issue'));
    await audit.append(entry('keys/k1', ['acme'], 'admin:anna', 'key.revoke'));
    await audit.append(entry('vendors/acme', ['acme'], 'admin:otto', 'vendor.update'));
    await audit.append(entry('keys/k2', ['acme'], 'admin:ottoman', 'key.issue'));

    expect((await audit.page({ limit: 10, actor: 'otto' })).items.map((e) => e.action)).toEqual(['vendor.update', 'key.issue']);
    expect((await audit.page({ limit: 10, actor: 'admin:anna' })).items.map((e) => e.action)).toEqual(['key.revoke']);
    expect((await audit.page({ limit: 10, action: 'key' })).items.map((e) => e.actor)).toEqual(['admin:ottoman', 'admin:anna', 'admin:otto']);
    expect((await audit.page({ limit: 10, action: 'key.issue', actor: 'otto' })).items.map((e) => e.target)).toEqual(['keys/k1']);
    expect((await audit.page({ limit: 10, action: 'ke' })).items).toEqual([]);
  });

  it('keeps to a time range, both ends inclusive, and pages inside it', async () => {
    const audit = make();
    const written: AuditEntry[] = [];
    for (let i = 1; i <= 5; i++) {
      written.push(await audit.append(entry(`vendors/v${i}`, [`v${i}`])));
      await pause(3);
    }
    const [, second, , fourth] = written as [AuditEntry, AuditEntry, AuditEntry, AuditEntry, AuditEntry];
    const range = { sinceMs: msOf(second), untilMs: msOf(fourth) };
    expect((await audit.page({ limit: 10, ...range })).items.map((e) => e.target)).toEqual(['vendors/v4', 'vendors/v3', 'vendors/v2']);
    const first = await audit.page({ limit: 2, ...range });
    expect(first.items.map((e) => e.target)).toEqual(['vendors/v4', 'vendors/v3']);
    expect((await audit.page({ limit: 2, ...range, before: first.next as string })).items.map((e) => e.target)).toEqual(['vendors/v2']);
    expect((await audit.page({ limit: 10, sinceMs: msOf(fourth) + 1_000_000 })).items).toEqual([]);
    expect((await audit.page({ limit: 10, untilMs: msOf(second) - 1 })).items.map((e) => e.target)).toEqual(['vendors/v1']);
  });

  it('pages unfiltered with a next cursor only while older entries exist', async () => {
    const audit = make();
    for (let i = 1; i <= 4; i++) await audit.append(entry(`vendors/v${i}`, [`v${i}`]));
    const first = await audit.page({ limit: 2 });
    expect(first.items.map((e) => e.target)).toEqual(['vendors/v4', 'vendors/v3']);
    expect(first.next).toBe(first.items[1]!.id);
    const second = await audit.page({ limit: 2, before: first.next as string });
    expect(second.items.map((e) => e.target)).toEqual(['vendors/v2', 'vendors/v1']);
    expect(second.next).toBeNull();
    expect(await audit.page({ limit: 2, before: 'not-an-id' })).toEqual({ items: [], next: null });
  });

  it('answers a short page with a next cursor when the scan budget runs out, and the walk still finds every match in order', async () => {
    const audit = make();
    // The rare vendor's entries sit below more than a budget's worth of others.
    await audit.append(entry('vendors/rare', ['rare']));
    await audit.append(entry('keys/rare-key', ['rare'], 'admin:otto', 'key.revoke'));
    for (let i = 0; i < AUDIT_SCAN_BUDGET + 500; i++) await audit.append(entry('vendors/busy', ['busy']));
    await audit.append(entry('vendors/rare', ['rare'], 'admin:anna'));

    const first = await audit.page({ limit: 10, vendor: 'rare' });
    expect(first.items.map((e) => e.actor)).toEqual(['admin:anna']);
    expect(first.next).not.toBeNull();
    const { entries, pages } = await walk(audit, { limit: 10, vendor: 'rare' });
    expect(entries.map((e) => e.target)).toEqual(['vendors/rare', 'keys/rare-key', 'vendors/rare']);
    expect(pages).toBe(2);
    const ids = entries.map((e) => e.id);
    expect([...ids].sort((a, b) => msOf({ id: b } as AuditEntry) - msOf({ id: a } as AuditEntry))).toEqual(ids);
  }, 60_000);
});

describe('Redis audit log, entries written before vendorIds', () => {
  it('reads them with vendorIds [] and finds them by a target of the vendor or below it, never by a prefix', async () => {
    const audit = redisLog();
    const old = (target: string): string =>
      JSON.stringify({ at: '2026-01-01T00:00:00.000Z', actor: 'admin:otto', action: 'x', target, before: null, after: null });
    await redis.xadd(audit.key, '*', 'e', old('vendors/acme'));
    await redis.xadd(audit.key, '*', 'e', old('vendors/acme/licences/l1'));
    await redis.xadd(audit.key, '*', 'e', old('vendors/acme-corp'));
    await redis.xadd(audit.key, '*', 'e', old('vendors/acme-corp/keys/k1'));
    await redis.xadd(audit.key, '*', 'e', old('keys/k1'));

    const acme = await audit.page({ limit: 10, vendor: 'acme' });
    expect(acme.items.map((e) => [e.target, e.vendorIds])).toEqual([
      ['vendors/acme/licences/l1', []],
      ['vendors/acme', []],
    ]);
    expect((await audit.list({ limit: 10 })).every((e) => Array.isArray(e.vendorIds))).toBe(true);
  });
});
