/**
 * The Redis access store on a real redis-server: atomic versioned replace, seeding, change
 * propagation between instances (pub/sub, and the periodic check when a message is lost), and
 * behaviour while Redis is gone and after it comes back empty.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../../test/support/redis-server';
import { createLogger } from '../logging/logger';
import { AccessCache } from './cache';
import { accessDocumentSchema, type AccessDocument } from './model';
import { createRedisClient, RedisHealth } from '../redis/redis-client';
import { InvalidAccessDocumentError, RedisAccessStore } from './redis-access-store';
import { redisSchema } from '../redis/redis.schema';
import { VersionConflictError } from './access-store';

const logger = createLogger('silent');
const SHARED_URL = process.env.TEST_REDIS_URL as string;
/** Long enough that only pub/sub or a reconnect check can explain a change arriving in time. */
const NO_POLL_MS = 60_000;

interface Instance {
  readonly store: RedisAccessStore;
  readonly cache: AccessCache;
}

const openInstances: Instance[] = [];
const rawClients: Redis[] = [];
const servers: RedisServerHandle[] = [];
let prefixCounter = 0;

function uniquePrefix(): string {
  prefixCounter += 1;
  return `test:${process.pid}:${prefixCounter}:`;
}

function documentNamed(name: string): AccessDocument {
  return accessDocumentSchema.parse({
    vendors: [{ id: 'acme', name, licences: [{ id: 'l1', api: 'GET*' }] }],
    users: [{ id: 'teller', permissions: [{ id: 'p1', api: 'GETaccounts*' }] }],
  });
}

async function startInstance(url: string, keyPrefix: string, options: { seed?: AccessDocument; pollIntervalMs?: number } = {}): Promise<Instance> {
  const config = redisSchema.parse({ url, keyPrefix });
  const client = createRedisClient(config, { name: connectionName(keyPrefix) });
  const subscriber = createRedisClient(config, { name: connectionName(keyPrefix) });
  new RedisHealth(logger).watch(client, 'client').watch(subscriber, 'subscriber');
  const store = new RedisAccessStore({
    client,
    subscriber,
    keyPrefix,
    pollIntervalMs: options.pollIntervalMs ?? NO_POLL_MS,
    logger,
    ...(options.seed ? { seed: options.seed } : {}),
  });
  await store.init();
  const cache = new AccessCache(store, logger);
  await cache.start();
  const instance = { store, cache };
  openInstances.push(instance);
  return instance;
}

function connectionName(keyPrefix: string): string {
  return `access-${keyPrefix}`;
}

/** Drops connections from the server side, as a network blip would. */
async function dropConnections(raw: Redis, name: string): Promise<number> {
  const clients = String(await raw.client('LIST')).split('\n');
  const ids = clients.filter((line) => line.includes(` name=${name} `)).map((line) => /\bid=(\d+)/.exec(line)?.[1]);
  for (const id of ids) if (id) await raw.client('KILL', 'ID', id);
  return ids.length;
}

async function rawClient(url: string): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true });
  rawClients.push(client);
  await client.connect();
  return client;
}

async function privateRedis(): Promise<RedisServerHandle> {
  const server = await startRedisServer();
  servers.push(server);
  return server;
}

/** Resolves with the milliseconds it took `condition` to hold. */
async function msUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<number> {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

async function msToSettle(promise: Promise<unknown>): Promise<number> {
  const started = performance.now();
  await promise.catch(() => undefined);
  return performance.now() - started;
}

function vendorName(instance: Instance): string | undefined {
  return instance.cache.snapshot?.document.vendors[0]?.name;
}

afterEach(async () => {
  for (const instance of openInstances.splice(0)) {
    instance.cache.stop();
    await instance.store.close();
  }
  for (const client of rawClients.splice(0)) client.disconnect();
  for (const server of servers.splice(0)) await server.stop();
});

describe('RedisAccessStore on one instance', () => {
  it('reads back what was written, with the version raised by every replace', async () => {
    const { store } = await startInstance(SHARED_URL, uniquePrefix());
    expect(await store.read()).toEqual({ version: 0, document: { vendors: [], users: [] } });

    expect(await store.replace(documentNamed('First'))).toBe(1);
    expect(await store.read()).toEqual({ version: 1, document: documentNamed('First') });
    expect(await store.replace(documentNamed('Second'), 1)).toBe(2);
    expect(await store.read()).toEqual({ version: 2, document: documentNamed('Second') });
  });

  it('keeps the whole document and its version under one hash tag', async () => {
    const prefix = uniquePrefix();
    const { store } = await startInstance(SHARED_URL, prefix);
    await store.replace(documentNamed('Tagged'));

    const raw = await rawClient(SHARED_URL);
    expect(JSON.parse((await raw.get(`${prefix}{access}:doc`)) ?? 'null')).toEqual(documentNamed('Tagged'));
    expect(await raw.get(`${prefix}{access}:version`)).toBe('1');
  });

  it('refuses a replace based on a stale version, naming the version found', async () => {
    const { store } = await startInstance(SHARED_URL, uniquePrefix());
    await store.replace(documentNamed('First'));
    await store.replace(documentNamed('Second'), 1);

    const stale = store.replace(documentNamed('Lost update'), 1);
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    await expect(stale).rejects.toMatchObject({ expected: 1, actual: 2 });
    expect((await store.read()).document).toEqual(documentNamed('Second'));
  });

  it('refuses an invalid document before writing anything', async () => {
    const prefix = uniquePrefix();
    const { store } = await startInstance(SHARED_URL, prefix);
    const invalid = { vendors: [{ id: 'not an id!', name: '' }], users: [] } as unknown as AccessDocument;

    await expect(store.replace(invalid)).rejects.toThrow(InvalidAccessDocumentError);
    await expect(store.replace(invalid)).rejects.toThrow(/vendors\.0\.id/);
    const raw = await rawClient(SHARED_URL);
    expect(await raw.exists(`${prefix}{access}:doc`, `${prefix}{access}:version`)).toBe(0);
  });

  it('reports a corrupt document in Redis clearly while the cache keeps its last good copy', async () => {
    const prefix = uniquePrefix();
    const instance = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Good') });
    const raw = await rawClient(SHARED_URL);
    await raw.multi().set(`${prefix}{access}:doc`, '{"vendors": [').incr(`${prefix}{access}:version`).exec();
    await raw.publish(`${prefix}{access}:changed`, '2');

    await expect(instance.store.read()).rejects.toThrow(/key test:.*\{access\}:doc, version 2\) is not valid JSON/);
    await expect(instance.cache.refresh()).rejects.toThrow(InvalidAccessDocumentError);
    expect(instance.cache.snapshot?.version).toBe(1);
    expect(vendorName(instance)).toBe('Good');
  });
});

describe('RedisAccessStore seeding', () => {
  it('writes one document as version 1 when two instances start at once against an empty Redis', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([
      startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed A') }),
      startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed B') }),
    ]);

    expect(a.cache.snapshot?.version).toBe(1);
    expect(b.cache.snapshot?.version).toBe(1);
    expect(vendorName(a)).toBe(vendorName(b));
    expect(['Seed A', 'Seed B']).toContain(vendorName(a));
    const raw = await rawClient(SHARED_URL);
    expect(await raw.get(`${prefix}{access}:version`)).toBe('1');
  });

  it('never lets a seed overwrite a document Redis already holds', async () => {
    const prefix = uniquePrefix();
    const first = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });
    await first.store.replace(documentNamed('Changed by an admin'));

    const late = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });
    expect(late.cache.snapshot?.version).toBe(2);
    expect(vendorName(late)).toBe('Changed by an admin');
  });
});

describe('RedisAccessStore across instances', () => {
  it('brings a change made through one instance into the other instance’s cache within 1 s', async () => {
    const prefix = uniquePrefix();
    const a = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix);

    const started = performance.now();
    const version = await a.store.replace(documentNamed('After'), 1);
    await msUntil(() => b.cache.snapshot?.version === version);
    const propagationMs = performance.now() - started;

    expect(propagationMs).toBeLessThan(1000);
    expect(vendorName(b)).toBe('After');
    expect(vendorName(a)).toBe('After');
  });

  it('heals a lost change message with the periodic version check', async () => {
    const prefix = uniquePrefix();
    const pollIntervalMs = 300;
    await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix, { pollIntervalMs });
    const raw = await rawClient(SHARED_URL);

    await raw
      .multi()
      .set(`${prefix}{access}:doc`, JSON.stringify(documentNamed('Written without a message')))
      .incr(`${prefix}{access}:version`)
      .exec();
    const healedMs = await msUntil(() => b.cache.snapshot?.version === 2);

    expect(healedMs).toBeLessThan(pollIntervalMs + 500);
    expect(vendorName(b)).toBe('Written without a message');
  });
});

describe('RedisAccessStore while Redis is gone', () => {
  it('catches up on a change it missed as soon as its connection comes back', async () => {
    const prefix = uniquePrefix();
    const instance = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const raw = await rawClient(SHARED_URL);
    await raw
      .multi()
      .set(`${prefix}{access}:doc`, JSON.stringify(documentNamed('Changed while away')))
      .incr(`${prefix}{access}:version`)
      .exec();

    expect(await dropConnections(raw, connectionName(prefix))).toBe(2);
    expect(await msUntil(() => instance.cache.snapshot?.version === 2)).toBeLessThan(1000);
    expect(vendorName(instance)).toBe('Changed while away');
  });


  it('fails reads fast and keeps the cache serving the last good copy', async () => {
    const redis = await privateRedis();
    const instance = await startInstance(redis.url, uniquePrefix(), { seed: documentNamed('Last good') });

    await redis.stop(true);
    const readMs = await msToSettle(instance.store.read());
    const refreshMs = await msToSettle(instance.cache.refresh());

    expect(readMs).toBeLessThan(250);
    expect(refreshMs).toBeLessThan(250);
    await expect(instance.store.read()).rejects.toThrow();
    expect(instance.cache.snapshot?.version).toBe(1);
    expect(vendorName(instance)).toBe('Last good');
  });

  it('writes the last good copy back when Redis returns empty, and carries later changes again', async () => {
    const redis = await privateRedis();
    const prefix = uniquePrefix();
    const a = await startInstance(redis.url, prefix, { seed: documentNamed('Seed') });
    const b = await startInstance(redis.url, prefix);
    await a.store.replace(documentNamed('Live before the crash'), 1);
    await msUntil(() => vendorName(b) === 'Live before the crash');

    await redis.stop(true);
    await redis.start();
    const raw = await rawClient(redis.url);
    await msUntil(async () => (await raw.get(`${prefix}{access}:version`)) === '2');
    expect(JSON.parse((await raw.get(`${prefix}{access}:doc`)) ?? 'null')).toEqual(documentNamed('Live before the crash'));
    expect(vendorName(a)).toBe('Live before the crash');
    expect(vendorName(b)).toBe('Live before the crash');

    await msUntil(async () => (await raw.pubsub('NUMSUB', `${prefix}{access}:changed`))[1] === 2);
    const version = await a.store.replace(documentNamed('Changed after the restart'), 2);
    expect(version).toBe(3);
    expect(await msUntil(() => vendorName(b) === 'Changed after the restart')).toBeLessThan(1000);
  });

  it('closes promptly', async () => {
    const redis = await privateRedis();
    const instance = await startInstance(redis.url, uniquePrefix(), { seed: documentNamed('Seed') });
    openInstances.splice(openInstances.indexOf(instance), 1);
    instance.cache.stop();

    await redis.stop(true);
    expect(await msToSettle(instance.store.close())).toBeLessThan(500);
  });
});
