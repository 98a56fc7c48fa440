/**
 * Portal user records in both access stores (memory and a real redis-server): kept beside the
 * declarative document like admins (a whole-document write leaves them as they are), carried to
 * other instances by the change stream, refused for a vendor that does not exist, and readable
 * from a store an earlier release wrote (no portal user hash, no count of them in the manifest).
 * The index answers them by id, by vendor and by token hash, kept by deltas.
 */
import { Redis } from 'ioredis';
import { createLogger } from '../logging/logger';
import { AccessCache } from './cache';
import { accessDocumentSchema, type PortalUser } from './model';
import { createRedisClient } from '../redis/redis-client';
import { RedisAccessStore } from './redis-access-store';
import { redisSchema } from '../redis/redis.schema';
import { MemoryAccessStore, RecordConflictError, type AccessStore } from './access-store';
import { documentToRecords } from './access-state';
import { AccessIndex } from './access-index';
import { hashApiKey } from './api-key';
import { generatePortalToken, portalTokenPrefix } from './portal-token';
import { AccessService } from '../admin/operations/access-service';

const URL = process.env.TEST_REDIS_URL as string;
const logger = createLogger('silent');

interface Instance {
  readonly store: AccessStore;
  readonly cache: AccessCache;
}

const open: Instance[] = [];
let raw: Redis;
let prefixCounter = 0;

function uniquePrefix(): string {
  prefixCounter += 1;
  return `portal-users:${process.pid}:${prefixCounter}:`;
}

const seed = accessDocumentSchema.parse({
  vendors: [
    { id: 'acme', name: 'Acme', licences: [{ id: 'l1', api: 'GET*' }] },
    { id: 'globex', name: 'Globex', licences: [] },
  ],
  users: [{ id: 'teller', permissions: [] }],
});

function portalUser(id: string, vendorId = 'acme', token = generatePortalToken()): PortalUser {
  return {
    id,
    vendorId,
    email: `${id}@example.com`,
    name: `Developer ${id}`,
    tokenPrefix: portalTokenPrefix(token),
    tokenHash: hashApiKey(token),
    tokenIssuedAt: '2026-11-01T00:00:00.000Z',
    tokenExpiresAt: '2027-01-30T00:00:00.000Z',
    createdAt: '2026-11-01T00:00:00.000Z',
    createdBy: 'ops-lead',
  };
}

async function startRedisInstance(keyPrefix: string, pollIntervalMs = 60_000): Promise<Instance> {
  const config = redisSchema.parse({ url: URL, keyPrefix });
  const client = createRedisClient(config, { name: 'portal-users-test' });
  const subscriber = createRedisClient(config, { name: 'portal-users-test' });
  const store = new RedisAccessStore({ client, subscriber, keyPrefix, pollIntervalMs, logger, seed });
  await store.init();
  const cache = new AccessCache(store, logger);
  await cache.start();
  const instance = { store, cache };
  open.push(instance);
  return instance;
}

async function startMemoryInstance(): Promise<Instance> {
  const store = new MemoryAccessStore(seed);
  const cache = new AccessCache(store, logger);
  await cache.start();
  const instance = { store, cache };
  open.push(instance);
  return instance;
}

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeAll(() => {
  raw = new Redis(URL);
});

afterAll(async () => {
  for (const { cache, store } of open.splice(0)) {
    cache.stop();
    await store.close();
  }
  raw.disconnect();
});

describe.each([
  ['memory', async () => [await startMemoryInstance()]],
  [
    'Redis',
    async () => {
      const prefix = uniquePrefix();
      return [await startRedisInstance(prefix), await startRedisInstance(prefix)];
    },
  ],
] as const)('portal users in the %s store', (_name, start) => {
  it('are seen by every instance once written, keep through a whole-document write, and go when deleted', async () => {
    const instances = await start();
    const writer = instances[0] as Instance;
    const reader = instances.at(-1) as Instance;
    const anna = portalUser('pu-00000000000a');
    await writer.store.commit({ ops: [{ kind: 'portalUser', id: anna.id, value: anna, expect: null }], audit: null });
    await writer.cache.sync();
    await until(() => reader.cache.index?.portalUser(anna.id) !== undefined);
    expect(reader.cache.index?.portalUserByTokenHash(anna.tokenHash)).toEqual(anna);

    // A whole-document write (the document renames a vendor) leaves portal users as they are.
    const renamed = documentToRecords(accessDocumentSchema.parse({ ...seed, vendors: [{ ...seed.vendors[0], name: 'Acme Ltd' }, seed.vendors[1]] }));
    const { version } = await writer.store.replaceAll(renamed, { audit: null });
    await until(() => (reader.cache.index?.version ?? 0) >= version);
    await writer.cache.sync();
    for (const { cache } of instances) {
      expect(cache.index?.vendor('acme')?.name).toBe('Acme Ltd');
      expect(cache.index?.portalUsersOf('acme')).toEqual([anna]);
    }

    await writer.store.commit({ ops: [{ kind: 'portalUser', id: anna.id, value: null, expect: anna }], audit: null });
    await writer.cache.sync();
    await until(() => reader.cache.index?.portalUser(anna.id) === undefined);
    expect(reader.cache.index?.portalUserByTokenHash(anna.tokenHash)).toBeUndefined();
    expect(reader.cache.index?.portalUsersOf('acme')).toEqual([]);
  });

  it('refuses a portal user of a vendor that does not exist, or is deleted in the same change', async () => {
    const [{ store, cache }] = (await start()) as [Instance];
    const orphan = portalUser('pu-0000000000bb', 'initech');
    await expect(store.commit({ ops: [{ kind: 'portalUser', id: orphan.id, value: orphan, expect: null }], audit: null })).rejects.toEqual(
      new RecordConflictError('no_vendor', 'vendor', 'initech'),
    );
    const globex = cache.index?.vendor('globex');
    const leaving = portalUser('pu-0000000000cc', 'globex');
    await expect(
      store.commit({
        ops: [
          { kind: 'vendor', id: 'globex', value: null, expect: globex ?? null },
          { kind: 'portalUser', id: leaving.id, value: leaving, expect: null },
        ],
        audit: null,
      }),
    ).rejects.toBeInstanceOf(RecordConflictError);
    await cache.sync();
    expect(cache.index?.vendor('globex')).toBeDefined();
    expect(cache.index?.portalUser(leaving.id)).toBeUndefined();
  });
});

describe('portal users in a Redis store an earlier release wrote', () => {
  it('loads a store with no portal user hash and a manifest that does not count them', async () => {
    const prefix = uniquePrefix();
    await startRedisInstance(prefix);
    await raw.hdel(`${prefix}{access}:manifest`, 'portalusers');
    expect(await raw.exists(`${prefix}{access}:portalusers`)).toBe(0);
    const fresh = await startRedisInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: true, version: 1, problem: null });
    expect(fresh.cache.index?.portalUsersOf('acme')).toEqual([]);
  });

  it('keeps serving portal users while an earlier release rewrites the manifest without them (a rolling upgrade)', async () => {
    const prefix = uniquePrefix();
    const first = await startRedisInstance(prefix);
    const anna = portalUser('pu-00000000000a');
    await first.store.commit({ ops: [{ kind: 'portalUser', id: anna.id, value: anna, expect: null }], audit: null });
    await raw.hdel(`${prefix}{access}:manifest`, 'portalusers');
    const fresh = await startRedisInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: true, problem: null });
    expect(fresh.cache.index?.portalUser(anna.id)).toEqual(anna);
  });
});

describe('portal users when Redis loses them', () => {
  it('are written back with the last good copy when Redis comes back empty', async () => {
    const prefix = uniquePrefix();
    const serving = await startRedisInstance(prefix, 100);
    const anna = portalUser('pu-00000000000a');
    await serving.store.commit({ ops: [{ kind: 'portalUser', id: anna.id, value: anna, expect: null }], audit: null });
    await serving.cache.sync();
    await raw.del(...(await raw.keys(`${prefix}{access}*`)));

    const started = Date.now();
    while (!(await raw.hexists(`${prefix}{access}:portalusers`, anna.id))) {
      if (Date.now() - started > 3000) throw new Error('the portal user was not written back');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const fresh = await startRedisInstance(prefix);
    expect(fresh.cache.index?.portalUser(anna.id)).toEqual(anna);
  });

  it('are mended from the served copy by a whole-document write', async () => {
    const prefix = uniquePrefix();
    const serving = await startRedisInstance(prefix, 100);
    const anna = portalUser('pu-00000000000a');
    await serving.store.commit({ ops: [{ kind: 'portalUser', id: anna.id, value: anna, expect: null }], audit: null });
    await serving.cache.sync();
    await raw.del(`${prefix}{access}:portalusers`);
    // The manifest counts portal users: the version check finds the one lost.
    await until(() => serving.cache.problem !== null);
    expect(serving.cache.problem).toMatch(/portalusers 0 of 1/);

    const outcome = await new AccessService(serving.cache, serving.store).replaceDocument(seed, 'admin:test');
    expect(outcome.result).toMatchObject({ applied: true });
    expect(await raw.hkeys(`${prefix}{access}:portalusers`)).toEqual([anna.id]);
    const fresh = await startRedisInstance(prefix);
    expect(fresh.cache.status()).toMatchObject({ loaded: true, problem: null });
    expect(fresh.cache.index?.portalUser(anna.id)).toEqual(anna);
  });
});

describe('AccessIndex portal users', () => {
  it('answers them by id, by vendor in id order and by token hash, following deltas', () => {
    const index = AccessIndex.fromRecords(documentToRecords(seed), 1);
    const [zed, amy, other] = [portalUser('pu-00000000000f'), portalUser('pu-000000000001'), portalUser('pu-000000000002', 'globex')];
    index.apply(
      [zed, amy, other].map((value) => ({ kind: 'portalUser', id: value.id, value, expect: null })),
      2,
    );
    expect(index.portalUsersOf('acme').map((p) => p.id)).toEqual([amy.id, zed.id]);
    expect(index.portalUsersOf('globex')).toEqual([other]);
    expect(index.portalUser(zed.id)).toEqual(zed);

    const reissued = portalUser(zed.id);
    index.apply([{ kind: 'portalUser', id: zed.id, value: reissued, expect: zed }], 3);
    expect(index.portalUserByTokenHash(zed.tokenHash)).toBeUndefined();
    expect(index.portalUserByTokenHash(reissued.tokenHash)).toEqual(reissued);

    index.apply([{ kind: 'portalUser', id: amy.id, value: null, expect: amy }], 4);
    expect(index.portalUser(amy.id)).toBeUndefined();
    expect(index.portalUserByTokenHash(amy.tokenHash)).toBeUndefined();
    expect(index.portalUsersOf('acme')).toEqual([reissued]);
    expect(index.records().portalUsers).toHaveLength(2);
  });
});
