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
import { RedisAuditLog, type AuditEntry, type AuditLog } from './audit-log';
import { MemoryAuditLog } from './memory-audit-log';
import { ChainVerifier, entryHash, GENESIS_HASH } from './audit-chain';
import { AuditSigner } from './audit-signer';

const TOKEN = 'admin-token-for-tests-0123456789';
const DAY_MS = 86_400_000;
const step = (i: number) => ({ actor: 'admin', action: 'test.step', target: `step/${i}`, before: null, after: { i } });

/** The chain check the admin API runs, over what a store holds now. */
async function verifyStore(audit: AuditLog) {
  const verifier = new ChainVerifier({ keys: new Map([[audit.signer.keyId, audit.signer.publicKey]]) });
  for (const entry of await audit.range({ sinceMs: 0, limit: 10_000 })) verifier.add(entry);
  return verifier.result();
}

describe('Redis audit log', () => {
  let redis: Redis;
  let keyPrefix: string;
  const cleanup: string[] = [];

  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL as string, { maxRetriesPerRequest: 1 });
  });
  beforeEach(() => {
    keyPrefix = `test:${process.pid}:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
    cleanup.push(
      `${keyPrefix}{access}:audit`,
      `${keyPrefix}{access}:audit:head`,
      `${keyPrefix}{access}:audit:checkpoints`,
      `${keyPrefix}{audit}:stream`,
      `${keyPrefix}{audit}:log`,
    );
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
    expect(Object.keys(listed[0]!)).toEqual(['id', 'at', 'actor', 'action', 'target', 'vendorIds', 'before', 'after', 'prevHash', 'hash']);
    expect(listed[2]!.prevHash).toBe(GENESIS_HASH);
    expect(listed[1]!.prevHash).toBe(listed[2]!.hash);
    expect(listed[0]!.prevHash).toBe(listed[1]!.hash);
    expect(await redis.hget(audit.headKey, 'h')).toBe(listed[0]!.hash);
  });

  it('trims entries older than retentionDays on the next write up to the checkpoint there, without counting them as early', async () => {
    const trimmedEarly: number[] = [];
    const signer = AuditSigner.generate();
    const audit = new RedisAuditLog(redis, {
      keyPrefix,
      signer,
      retention: { retentionDays: 30, maxEntries: 100 },
      onTrimmedEarly: (n) => trimmedEarly.push(n),
    });
    // A chain written long ago: step 0 (40 days), a checkpoint (35 days), step 1 (20 days).
    let prevHash = GENESIS_HASH;
    const write = async (daysAgo: number, body: object, checkpoint = false) => {
      const linked = { ...body, prevHash };
      const hash = entryHash(linked);
      const id = await redis.xadd(audit.key, `${Date.now() - daysAgo * DAY_MS}-0`, 'e', JSON.stringify({ ...linked, hash }));
      if (checkpoint) await redis.rpush(audit.checkpointsKey, id as string);
      await redis.hset(audit.headKey, 'h', hash, 'n', 0, 'c', checkpoint ? '1' : '0', 'm', 0);
      prevHash = hash;
    };
    await write(40, { ...step(0), at: 'forty days ago' });
    const at = 'thirty-five days ago';
    await write(35, { at, actor: 'gateway', action: 'audit.checkpoint', target: 'audit', before: null, after: signer.sign(prevHash, 1, at) }, true);
    await write(20, { ...step(1), at: 'twenty days ago' });

    await audit.append(step(2));

    expect((await audit.list({ limit: 10 })).map((e) => e.target)).toEqual(['step/2', 'step/1', 'audit']);
    expect(trimmedEarly).toEqual([]);
    expect(await verifyStore(audit)).toMatchObject({ ok: true, checked: 3, checkpoints: 1 });
  });

  it('trims nothing while no checkpoint marks where a trim may stop', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix, retention: { retentionDays: 30, maxEntries: 100 } });
    await redis.xadd(audit.key, `${Date.now() - 40 * DAY_MS}-0`, 'e', JSON.stringify({ ...step(0), at: 'forty days ago' }));
    await audit.append(step(1));
    expect(await redis.xlen(audit.key)).toBe(2);
    expect(await verifyStore(audit)).toMatchObject({ ok: true, unchained: 1, checked: 1 });
  });

  it('keeps about maxEntries, trimming to a checkpoint, and reports each entry it trims younger than retentionDays', async () => {
    const trimmedEarly: number[] = [];
    const audit = new RedisAuditLog(redis, { keyPrefix, retention: { retentionDays: 400, maxEntries: 20 }, onTrimmedEarly: (n) => trimmedEarly.push(n) });
    for (let i = 1; i <= 40; i++) {
      await audit.append(step(i));
      await audit.idle();
    }

    // A checkpoint every maxEntries/10 entries, so a trim keeps at most a tenth more.
    const length = await redis.xlen(audit.key);
    expect(length).toBeGreaterThanOrEqual(20);
    expect(length).toBeLessThanOrEqual(22);
    expect(trimmedEarly.reduce((a, b) => a + b, 0)).toBe(40 + 20 - length);
    const [oldest] = await audit.range({ sinceMs: 0, limit: 1 });
    expect(oldest).toMatchObject({ action: 'audit.checkpoint', actor: 'gateway' });
    expect(await verifyStore(audit)).toMatchObject({ ok: true, checked: length });
    const newest = (await audit.list({ limit: 3 })).filter((e) => e.action === 'test.step');
    expect(newest[0]!.target).toBe('step/40');
    const older = await audit.list({ limit: 3, before: newest[0]!.id });
    expect(older.map((e) => e.target)).toContain('step/39');
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

  it('moves the entries of the earlier stream into the access slot, chained, oldest first, at start', async () => {
    const audit = new RedisAuditLog(redis, { keyPrefix });
    const ids = [`${Date.now() - 5000}-0`, `${Date.now() - 4000}-0`];
    for (const [i, id] of ids.entries()) await redis.xadd(audit.legacyStreamKey, id, 'e', JSON.stringify({ at: 'earlier', ...step(i) }));
    cleanup.push(audit.legacyStreamKey);

    expect(await audit.migrate()).toBe(2);

    expect(await redis.xlen(audit.legacyStreamKey)).toBe(0);
    expect((await audit.range({ sinceMs: 0, limit: 10 })).map((e) => [e.at, e.target])).toEqual([
      ['earlier', 'step/0'],
      ['earlier', 'step/1'],
    ]);
    expect(await verifyStore(audit)).toMatchObject({ ok: true, checked: 2 });
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
  it('chains its entries and trims to a checkpoint, reporting the entries it trims early', async () => {
    const trimmedEarly: number[] = [];
    const audit = new MemoryAuditLog({ retention: { retentionDays: 400, maxEntries: 10 }, onTrimmedEarly: (n) => trimmedEarly.push(n) });
    for (let i = 1; i <= 15; i++) {
      await audit.append(step(i));
      await audit.idle();
    }

    const entries = await audit.list({ limit: 100 });
    expect(entries.length).toBeGreaterThanOrEqual(10);
    expect(entries.length).toBeLessThanOrEqual(11);
    expect(entries.at(-1)).toMatchObject({ action: 'audit.checkpoint' });
    expect(entries.find((e) => e.action === 'test.step')!.target).toBe('step/15');
    expect(trimmedEarly.reduce((a, b) => a + b, 0)).toBe(30 - entries.length);
    expect(await verifyStore(audit)).toMatchObject({ ok: true, checked: entries.length });
    expect((await audit.list({ limit: 1, before: entries[1]!.id }))[0]!.id).toBe(entries[2]!.id);
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

  it('streams the chain since a date as JSON lines, ending with a checkpoint signed for it', async () => {
    const audit = new MemoryAuditLog();
    for (let i = 1; i <= 3; i++) await audit.append(step(i));
    await withAdmin(audit, async (api) => {
      const res = await api
        .get('/v1/audit/export?since=2020-01-01')
        .set(auth)
        .buffer(true)
        .parse((r, done) => {
          let text = '';
          r.on('data', (chunk: Buffer) => (text += chunk.toString()));
          r.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const lines = (res.body as string)
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEntry);
      expect(lines.map((e) => e.target)).toEqual(['step/1', 'step/2', 'step/3', 'audit']);
      expect(lines[3]).toMatchObject({ action: 'audit.checkpoint', actor: 'gateway', after: { head: lines[2]!.hash, count: 3, keyId: audit.signer.keyId } });
      const verifier = new ChainVerifier({ keys: new Map([[audit.signer.keyId, audit.signer.publicKey]]), endsWithCheckpoint: true });
      for (const line of lines) verifier.add(line);
      expect(verifier.result()).toMatchObject({ ok: true, checked: 4 });

      const key = await api.get('/v1/audit/public-key').set(auth);
      expect(key.status).toBe(200);
      expect(key.text).toBe(audit.signer.publicKeyPem);
      expect(key.text).not.toMatch(/PRIVATE/);
    });
  });

  it('verifies the chain, against a head the auditor holds too, and refuses a head that is not a hash', async () => {
    const audit = new MemoryAuditLog();
    for (let i = 1; i <= 3; i++) await audit.append(step(i));
    const [newest] = await audit.list({ limit: 1 });
    await withAdmin(audit, async (api) => {
      expect((await api.get('/v1/audit/verify').set(auth)).body).toMatchObject({ ok: true, checked: 3, head: newest!.hash, keyId: audit.signer.keyId });
      expect((await api.get(`/v1/audit/verify?head=${'a'.repeat(64)}`).set(auth)).body).toMatchObject({ ok: false, firstBadId: newest!.id });
      const bad = await api.get('/v1/audit/verify?head=xyz').set(auth);
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['head']);
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
