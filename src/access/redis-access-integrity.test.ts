/**
 * The Redis access store keeps its records for good and notices when they go anyway, on a real
 * redis-server: no live key carries the staging lifetime after a seed or a whole-document swap
 * (the lifetime shortened so the test can outwait it), a store left with expiring records by an
 * earlier release is repaired at start, and records that vanish while the version stays are a
 * problem that a load refuses, a commit refuses, the version check reports and a whole-document
 * write mends. Where the store cannot vouch (no manifest), a load that lost most keys is refused.
 */
import { Redis } from 'ioredis';
import { createLogger } from '../logging/logger';
import { AccessCache } from './cache';
import { accessDocumentSchema, type AccessDocument } from './model';
import { createRedisClient } from '../redis/redis-client';
import { RedisAccessStore } from './redis-access-store';
import { redisSchema } from '../redis/redis.schema';
import { AccessStoreIntegrityError } from './access-store';
import { documentToRecords } from './access-state';
import { AccessService } from '../admin/operations/access-service';
import { within } from '../../test/support/within';
import { testKey } from '../../test/support/access-fixture';

const URL = process.env.TEST_REDIS_URL as string;
const STAGE_TTL_MS = 300;
const logger = createLogger('silent');

interface Instance {
  readonly store: RedisAccessStore;
  readonly cache: AccessCache;
}

const open: Instance[] = [];
let raw: Redis;
let prefixCounter = 0;

function uniquePrefix(): string {
  prefixCounter += 1;
  return `integrity:${process.pid}:${prefixCounter}:`;
}

/** A document with `keys` keys of one vendor, a second vendor and a user. */
function documentWith(keys: number): AccessDocument {
  return accessDocumentSchema.parse({
    vendors: [
      {
        id: 'acme',
        name: 'Acme',
        licences: [{ id: 'l1', api: 'GET*' }],
        keys: Array.from({ length: keys }, (_, i) => testKey(`k${i}`, 'teller').record),
      },
      { id: 'globex', name: 'Globex', licences: [] },
    ],
    users: [{ id: 'teller', permissions: [{ id: 'p1', api: 'GETaccounts*' }] }],
  });
}

async function startInstance(keyPrefix: string, options: { seed?: AccessDocument; pollIntervalMs?: number } = {}): Promise<Instance> {
  const config = redisSchema.parse({ url: URL, keyPrefix });
  const client = createRedisClient(config, { name: 'integrity-test' });
  const subscriber = createRedisClient(config, { name: 'integrity-test' });
  client.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  const store = new RedisAccessStore({
    client,
    subscriber,
    keyPrefix,
    pollIntervalMs: options.pollIntervalMs ?? 60_000,
    logger,
    stageTtlMs: STAGE_TTL_MS,
    ...(options.seed ? { seed: options.seed } : {}),
  });
  await store.init();
  const cache = new AccessCache(store, logger);
  await cache.start();
  const instance = { store, cache };
  open.push(instance);
  return instance;
}

const liveKeys = (prefix: string): string[] => ['version', 'vendors', 'keys', 'users', 'keyhash', 'manifest'].map((name) => `${prefix}{access}:${name}`);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  raw = new Redis(URL);
});

afterAll(async () => {
  for (const { cache, store } of open.splice(0)) {
    cache.stop();
    await store.close();
  }
  raw.disconnect();
});

describe('live access records never expire', () => {
  it('keeps every record of a seeded store past the staging lifetime, with no expiry on any live key', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(3) });
    await pause(STAGE_TTL_MS * 2);
    for (const key of liveKeys(prefix)) expect(await raw.pttl(key)).toBe(-1);
    expect(await raw.hlen(`${prefix}{access}:keys`)).toBe(3);
    const fresh = await startInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: true, problem: null });
    expect(fresh.cache.index?.keyCount).toBe(3);
  });

  it('keeps every record of a whole-document swap past the staging lifetime', async () => {
    const prefix = uniquePrefix();
    const { store, cache } = await startInstance(prefix, { seed: documentWith(1) });
    const records = documentToRecords(documentWith(50));
    await cache.writeWhole(records, () => store.replaceAll(records, { expectedVersion: cache.index?.version, audit: null }));
    await pause(STAGE_TTL_MS * 2);
    for (const key of liveKeys(prefix)) expect(await raw.pttl(key)).toBe(-1);
    const fresh = await startInstance(prefix);
    expect(fresh.cache.index?.keyCount).toBe(50);
    expect(fresh.cache.problem).toBeNull();
  });

  it('takes the expiry off live records that an earlier release left expiring, at start', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(2) });
    for (const key of liveKeys(prefix)) await raw.pexpire(key, 60_000);
    await startInstance(prefix);
    for (const key of liveKeys(prefix)) expect(await raw.pttl(key)).toBe(-1);
  });

  it('takes the expiry off at the next version check when an earlier release swaps records in while this one runs', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(2), pollIntervalMs: 50 });
    // What an earlier release's whole-document write leaves: live keys with the staging lifetime.
    for (const key of liveKeys(prefix)) await raw.pexpire(key, 60_000);
    await within(2000, async () => (await raw.pttl(`${prefix}{access}:keys`)) === -1);
    for (const key of liveKeys(prefix)) expect(await raw.pttl(key)).toBe(-1);
  });
});

describe('records that vanish while the version stays', () => {
  async function loseRecords(prefix: string): Promise<void> {
    await raw.del(...['vendors', 'keys', 'users', 'keyhash'].map((name) => `${prefix}{access}:${name}`));
  }

  it('makes an instance started on the store hold no config and say why', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(4) });
    await loseRecords(prefix);
    const fresh = await startInstance(prefix);
    const status = fresh.cache.status();
    expect(status.loaded).toBe(false);
    expect(status.problem).toBe('version 1 has lost records (vendors 0 of 2, keys 0 of 4, users 0 of 1, keyhash 0 of 4)');
  });

  it('is found by the version check of an instance that serves a good copy, which keeps serving it', async () => {
    const prefix = uniquePrefix();
    const serving = await startInstance(prefix, { seed: documentWith(4), pollIntervalMs: 50 });
    const problems: (string | null)[] = [];
    serving.cache.onProblem((problem) => problems.push(problem));
    await loseRecords(prefix);
    await within(2000, () => problems.length > 0);
    expect(serving.cache.status()).toMatchObject({ loaded: true, version: 1 });
    expect(serving.cache.index?.keyCount).toBe(4);
    expect(problems).toEqual(['version 1 has lost records (vendors 0 of 2, keys 0 of 4, users 0 of 1, keyhash 0 of 4)']);
  });

  it('refuses every change with the problem, and a whole-document write mends it for every instance', async () => {
    const prefix = uniquePrefix();
    const serving = await startInstance(prefix, { seed: documentWith(4), pollIntervalMs: 50 });
    await loseRecords(prefix);
    const broken = await startInstance(prefix, { pollIntervalMs: 50 });
    expect(broken.cache.status().loaded).toBe(false);

    const service = new AccessService(serving.cache, serving.store);
    await expect(service.createVendor({ id: 'initech', name: 'Initech', licences: [] }, 'admin:test')).rejects.toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('version 1 has lost records') as unknown,
    });
    await expect(
      serving.store.commit({ ops: [{ kind: 'vendor', id: 'x', value: { id: 'x', name: 'X', licences: [] } as never }], audit: null }),
    ).rejects.toBeInstanceOf(AccessStoreIntegrityError);

    // The document this instance still serves, written whole: the records come back.
    const outcome = await service.replaceDocument(documentWith(4), 'admin:test');
    expect(outcome.result).toMatchObject({ applied: true, version: 2 });
    expect(serving.cache.problem).toBeNull();
    await within(2000, () => broken.cache.status().loaded);
    expect(broken.cache.status()).toMatchObject({ loaded: true, version: 2, problem: null });
    expect(broken.cache.index?.keyCount).toBe(4);
    await expect(service.createVendor({ id: 'initech', name: 'Initech', licences: [] }, 'admin:test')).resolves.toMatchObject({
      change: { action: 'vendor.create' },
    });
  });

  it('is found by the first commit when no version check ran since, and reported to the cache', async () => {
    const prefix = uniquePrefix();
    const serving = await startInstance(prefix, { seed: documentWith(4) });
    const problems: (string | null)[] = [];
    serving.cache.onProblem((problem) => problems.push(problem));
    await loseRecords(prefix);
    await expect(
      serving.store.commit({ ops: [{ kind: 'vendor', id: 'x', value: { id: 'x', name: 'X', licences: [] } as never }], audit: null }),
    ).rejects.toBeInstanceOf(AccessStoreIntegrityError);
    await within(2000, () => problems.length > 0);
    expect(problems).toEqual(['version 1 has lost records (vendors 0 of 2, keys 0 of 4, users 0 of 1, keyhash 0 of 4)']);
  });

  it('mends admins and pending changes from the served copy too, and the mending instance keeps serving them', async () => {
    const prefix = uniquePrefix();
    const serving = await startInstance(prefix, { seed: documentWith(2) });
    const admin = {
      id: 'ops-lead',
      name: 'Ops Lead',
      role: 'owner',
      tokenPrefix: 'cba_abcd',
      tokenHash: `sha256:${'a'.repeat(64)}`,
      createdAt: '2026-11-25T10:00:00.000Z',
    } as const;
    await serving.store.commit({ ops: [{ kind: 'admin', id: admin.id, value: admin, expect: null }], audit: null });
    await serving.cache.sync();
    await raw.del(...['vendors', 'keys', 'users', 'keyhash', 'admins'].map((name) => `${prefix}{access}:${name}`));
    await serving.cache.sync().catch(() => undefined);

    const service = new AccessService(serving.cache, serving.store);
    const outcome = await service.replaceDocument(documentWith(2), 'admin:test');
    expect(outcome.result).toMatchObject({ applied: true, version: 3 });
    expect(await raw.hkeys(`${prefix}{access}:admins`)).toEqual(['ops-lead']);
    expect(serving.cache.index?.admin('ops-lead')).toMatchObject({ role: 'owner' });
    const fresh = await startInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: true, version: 3, problem: null });
    expect(fresh.cache.index?.admin('ops-lead')).toMatchObject({ role: 'owner' });
  });

  it('is mended by a whole-document write to an instance that holds no copy, from the document alone', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(4) });
    await loseRecords(prefix);
    const broken = await startInstance(prefix);
    expect(broken.cache.status().loaded).toBe(false);

    const service = new AccessService(broken.cache, broken.store);
    const outcome = await service.replaceDocument(documentWith(3), 'admin:test');
    expect(outcome.result).toMatchObject({ applied: true, version: 2 });
    expect(broken.cache.status()).toMatchObject({ loaded: true, version: 2, problem: null });
    expect(broken.cache.index?.keyCount).toBe(3);
  });

  it('is a problem in a store written before the manifest when it holds no record at a version above zero', async () => {
    const prefix = uniquePrefix();
    await raw.set(`${prefix}{access}:version`, '2');
    const fresh = await startInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: false, problem: 'version 2 holds no vendor, key or user record' });
  });

  it('is a problem when the manifest was left behind by an earlier release that wrote since, and no record is held', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(3) });
    // An earlier release raised the version without a manifest; then every record went.
    await raw.set(`${prefix}{access}:version`, '2');
    await loseRecords(prefix);
    const fresh = await startInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: false, problem: 'version 2 holds no vendor, key or user record' });
  });

  it('counts the records of a store written before the manifest at start, and vouches for them from then on', async () => {
    const prefix = uniquePrefix();
    await startInstance(prefix, { seed: documentWith(3) });
    await raw.del(`${prefix}{access}:manifest`);
    await startInstance(prefix);
    expect(await raw.hgetall(`${prefix}{access}:manifest`)).toMatchObject({ version: '1', keys: '3', vendors: '2' });
  });

  it('refuses an unvouched load that lost most keys without a whole-document write, serving the copy it holds', async () => {
    const prefix = uniquePrefix();
    const serving = await startInstance(prefix, { seed: documentWith(10) });
    // A manifest of another version vouches for nothing (an earlier release wrote since).
    await raw.hset(`${prefix}{access}:manifest`, 'version', '0');
    await raw.hdel(`${prefix}{access}:keys`, 'k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6');
    // The version moves with no change in the stream: the instance finds a gap and loads.
    await raw.set(`${prefix}{access}:version`, '2');
    await serving.cache.sync();
    expect(serving.cache.index).toMatchObject({ version: 1, keyCount: 10 });
    expect(serving.cache.problem).toBe(
      'version 2 holds 3 keys and 2 vendors where version 1 held 10 and 2, with no whole-document write between: taken for lost records',
    );
  });
});
