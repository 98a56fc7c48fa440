/**
 * The Redis access store on a real redis-server: records under one hash tag, guarded atomic
 * changes written with their audit entry, seeding and the move from the single document, change
 * propagation between instances (deltas over pub/sub, the periodic check when a message is lost,
 * a full load after a gap or a whole-config swap), and behaviour while Redis is gone and after it
 * comes back empty.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '../../test/support/redis-server';
import { createLogger } from '../logging/logger';
import { AccessCache } from './cache';
import { accessDocumentSchema, type AccessDocument } from './model';
import { createRedisClient, RedisHealth, whenReady, type RedisClient } from '../redis/redis-client';
import { InvalidAccessDocumentError, RedisAccessStore } from './redis-access-store';
import { redisSchema } from '../redis/redis.schema';
import { readDocument, RecordConflictError, VersionConflictError, writeDocument, type AccessStore } from './access-store';
import { RedisAuditLog } from './audit-log';
import { documentToRecords, recordJson } from './access-state';

const logger = createLogger('silent');
const SHARED_URL = process.env.TEST_REDIS_URL as string;
/** Long enough that only pub/sub or a reconnect check can explain a change arriving in time. */
const NO_POLL_MS = 60_000;

interface Instance {
  readonly store: RedisAccessStore;
  readonly cache: AccessCache;
  readonly audit: RedisAuditLog;
  /** The store's command connection. */
  readonly client: RedisClient;
}

const openInstances: Instance[] = [];
const rawClients: Redis[] = [];
const servers: RedisServerHandle[] = [];
let prefixCounter = 0;

/** Unique across the suite: other files in the same worker process use `test:<pid>:` prefixes too. */
function uniquePrefix(): string {
  prefixCounter += 1;
  return `access-store:${process.pid}:${prefixCounter}:`;
}

function documentNamed(name: string): AccessDocument {
  return accessDocumentSchema.parse({
    vendors: [{ id: 'acme', name, licences: [{ id: 'l1', api: 'GET*' }] }],
    users: [{ id: 'teller', permissions: [{ id: 'p1', api: 'GETaccounts*' }] }],
  });
}

async function startInstance(url: string, keyPrefix: string, options: { seed?: AccessDocument; pollIntervalMs?: number } = {}): Promise<Instance> {
  const config = redisSchema.parse({ url, keyPrefix });
  // As the gateway builds it (access-backend.ts): the store's bulk work gets the bulk command timeout,
  // or a whole-document write on a loaded machine times out at the hot path's 100 ms.
  const client = createRedisClient(config, { name: connectionName(keyPrefix), commandTimeoutMs: config.bulkCommandTimeoutMs });
  const subscriber = createRedisClient(config, { name: connectionName(keyPrefix) });
  new RedisHealth(logger).watch(client, 'client').watch(subscriber, 'subscriber');
  const audit = new RedisAuditLog(client, { keyPrefix });
  const store = new RedisAccessStore({
    client,
    subscriber,
    keyPrefix,
    pollIntervalMs: options.pollIntervalMs ?? NO_POLL_MS,
    logger,
    audit,
    ...(options.seed ? { seed: options.seed } : {}),
  });
  await store.init();
  const cache = new AccessCache(store, logger);
  await cache.start();
  const instance = { store, cache, audit, client };
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
  return instance.cache.index?.vendor('acme')?.name;
}

/** A change written straight into Redis, as another instance's script would, but without its message. */
async function writeSilently(raw: Redis, prefix: string, name: string): Promise<void> {
  const vendor = documentToRecords(documentNamed(name)).vendors[0];
  const json = recordJson('vendor', vendor);
  const version = Number(await raw.get(`${prefix}{access}:version`)) + 1;
  await raw
    .multi()
    .hset(`${prefix}{access}:vendors`, 'acme', json)
    .set(`${prefix}{access}:version`, version)
    .xadd(`${prefix}{access}:changes`, '*', 'v', String(version), 'ops', JSON.stringify([{ k: 'vendor', id: 'acme', v: json }]))
    .exec();
}

/** Counts the store's whole loads from now on. */
function countLoads(store: AccessStore): () => number {
  let loads = 0;
  const load = store.load.bind(store);
  store.load = (onBatch) => {
    loads++;
    return load(onBatch);
  };
  return () => loads;
}

const acmeVendor = (name: string) => documentToRecords(documentNamed(name)).vendors[0] as ReturnType<typeof documentToRecords>['vendors'][number];

afterEach(async () => {
  for (const instance of openInstances.splice(0)) {
    instance.cache.stop();
    await instance.store.close();
  }
  for (const client of rawClients.splice(0)) client.disconnect();
  for (const server of servers.splice(0)) await server.stop();
});

describe('RedisAccessStore on one instance', () => {
  it('reads back what was written, with the version raised by every change', async () => {
    const { store } = await startInstance(SHARED_URL, uniquePrefix());
    expect(await readDocument(store)).toEqual({ version: 0, document: { vendors: [], users: [] } });

    expect(await writeDocument(store, documentNamed('First'))).toBe(1);
    expect(await readDocument(store)).toEqual({ version: 1, document: documentNamed('First') });
    expect(await writeDocument(store, documentNamed('Second'), 1)).toBe(2);
    expect(await readDocument(store)).toEqual({ version: 2, document: documentNamed('Second') });
  });

  it('keeps every record, the version, the changes and the audit under one hash tag', async () => {
    const prefix = uniquePrefix();
    const { store } = await startInstance(SHARED_URL, prefix);
    await store.commit({
      ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('Tagged'), expect: null }],
      audit: { actor: 'admin:t', action: 'vendor.create', target: 'vendors/acme', before: null, after: null },
    });

    const raw = await rawClient(SHARED_URL);
    expect(JSON.parse((await raw.hget(`${prefix}{access}:vendors`, 'acme')) ?? 'null')).toMatchObject({ id: 'acme', name: 'Tagged' });
    expect(await raw.get(`${prefix}{access}:version`)).toBe('1');
    expect(await raw.xlen(`${prefix}{access}:changes`)).toBe(1);
    expect(await raw.xlen(`${prefix}{access}:audit`)).toBe(1);
    const keys = await raw.keys(`${prefix}*`);
    expect(keys.every((key) => key.startsWith(`${prefix}{access}:`))).toBe(true);
  });

  it('writes a change and its audit entry together, and neither when a guard fails', async () => {
    const prefix = uniquePrefix();
    const { store, audit } = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });
    const entry = { actor: 'admin:t', action: 'vendor.update', target: 'vendors/acme', before: null, after: null };

    await store.commit({ ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('Renamed'), expect: acmeVendor('Seed') }], audit: entry });
    const stale = store.commit({
      ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('Lost update'), expect: acmeVendor('Seed') }],
      audit: { ...entry, action: 'stale' },
    });

    await expect(stale).rejects.toBeInstanceOf(RecordConflictError);
    await expect(stale).rejects.toMatchObject({ reason: 'changed', kind: 'vendor', id: 'acme' });
    expect((await readDocument(store)).document.vendors[0]?.name).toBe('Renamed');
    expect((await audit.list({ limit: 10 })).map((e) => e.action)).toEqual(['vendor.update']);
    expect((await readDocument(store)).version).toBe(2);
  });

  it('refuses a key of a vendor that does not exist, and a key with another key’s hash, writing nothing', async () => {
    const prefix = uniquePrefix();
    const seed = accessDocumentSchema.parse({
      vendors: [{ id: 'acme', name: 'Acme', keys: [{ id: 'k1', prefix: 'cbk_AAAAAAAA', hash: `sha256:${'a'.repeat(64)}`, userId: 'u' }] }],
    });
    const { store } = await startInstance(SHARED_URL, prefix, { seed });
    const key = { id: 'k2', prefix: 'cbk_BBBBBBBB', hash: `sha256:${'b'.repeat(64)}`, userId: 'u', status: 'active' as const, vendorId: 'ghost' };

    await expect(store.commit({ ops: [{ kind: 'key', id: 'k2', value: key, expect: null }], audit: null })).rejects.toMatchObject({
      reason: 'no_vendor',
      id: 'ghost',
    });
    await expect(
      store.commit({ ops: [{ kind: 'key', id: 'k2', value: { ...key, vendorId: 'acme', hash: `sha256:${'a'.repeat(64)}` }, expect: null }], audit: null }),
    ).rejects.toMatchObject({
      reason: 'duplicate_key_hash',
    });
    expect(await readDocument(store)).toMatchObject({ version: 1, document: { vendors: [{ keys: [{ id: 'k1' }] }] } });
  });

  it('refuses a whole-config write based on a stale version, naming the version found', async () => {
    const { store } = await startInstance(SHARED_URL, uniquePrefix());
    await writeDocument(store, documentNamed('First'));
    await writeDocument(store, documentNamed('Second'), 1);

    const stale = store.replaceAll(documentToRecords(documentNamed('Lost update')), { expectedVersion: 1, audit: null });
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    await expect(stale).rejects.toMatchObject({ expected: 1, actual: 2 });
    expect((await readDocument(store)).document).toEqual(documentNamed('Second'));
  });

  it('never swaps in a config whose staging lost a chunk to a dropped connection: the write fails and the old config stays', async () => {
    const prefix = uniquePrefix();
    const { store, client } = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const raw = await rawClient(SHARED_URL);
    const big = documentToRecords(documentNamed('Big'));
    const keys = Array.from({ length: 2500 }, (_, i) => ({
      id: `k${i}`,
      vendorId: 'acme',
      prefix: `cbk_k${i}`,
      hash: `sha256:${i.toString(16).padStart(64, '0')}`,
      userId: 'teller',
      status: 'active' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
    }));
    const records = { ...big, keys: keys as unknown as typeof big.keys };
    // The third chunk goes out on a connection the server has just closed; the client is back
    // before the next chunk, so only the lost chunk is missing from the staged config.
    const pipeline = client.pipeline.bind(client);
    let chunks = 0;
    (client as { pipeline: typeof client.pipeline }).pipeline = ((...args: Parameters<typeof client.pipeline>) => {
      const batch = pipeline(...args);
      if (++chunks === 3) {
        const exec = batch.exec.bind(batch);
        batch.exec = (async () => {
          await dropConnections(raw, connectionName(prefix));
          const results = await exec();
          await whenReady(client, 5000);
          return results;
        }) as typeof batch.exec;
      }
      return batch;
    }) as typeof client.pipeline;

    await expect(store.replaceAll(records, { audit: null })).rejects.toThrow();
    const { version, document } = await readDocument(store);
    expect(version).toBe(1);
    expect(document).toEqual(documentNamed('Before'));
  });

  it('reports a corrupt record in Redis clearly while the cache keeps its last good copy', async () => {
    const prefix = uniquePrefix();
    const instance = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Good') });
    const raw = await rawClient(SHARED_URL);
    await raw.multi().hset(`${prefix}{access}:vendors`, 'acme', '{"id": [').incr(`${prefix}{access}:version`).exec();

    await expect(readDocument(instance.store)).rejects.toThrow(/the vendor record "acme" in Redis \(key access-store:.*\{access\}:vendors\) is not valid JSON/);
    await expect(instance.cache.sync()).rejects.toThrow(InvalidAccessDocumentError);
    expect(instance.cache.index?.version).toBe(1);
    expect(vendorName(instance)).toBe('Good');
  });

  it('moves the earlier single document into records at start, keeping its version', async () => {
    const prefix = uniquePrefix();
    const raw = await rawClient(SHARED_URL);
    await raw
      .multi()
      .set(`${prefix}{access}:doc`, JSON.stringify(documentNamed('From the old layout')))
      .set(`${prefix}{access}:version`, '7')
      .exec();

    const instance = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });

    expect(instance.cache.index?.version).toBe(7);
    expect(vendorName(instance)).toBe('From the old layout');
    expect(await raw.exists(`${prefix}{access}:doc`)).toBe(0);
    expect(await readDocument(instance.store)).toEqual({ version: 7, document: documentNamed('From the old layout') });
  });
});

describe('RedisAccessStore seeding', () => {
  it('writes one document as version 1 when two instances start at once against an empty Redis', async () => {
    const prefix = uniquePrefix();
    const [a, b] = await Promise.all([
      startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed A') }),
      startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed B') }),
    ]);

    await msUntil(() => a.cache.index?.version === 1 && b.cache.index?.version === 1 && vendorName(a) === vendorName(b));
    expect(['Seed A', 'Seed B']).toContain(vendorName(a));
    const raw = await rawClient(SHARED_URL);
    expect(await raw.get(`${prefix}{access}:version`)).toBe('1');
  });

  it('never lets a seed overwrite a config Redis already holds', async () => {
    const prefix = uniquePrefix();
    const first = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });
    await writeDocument(first.store, documentNamed('Changed by an admin'));

    const late = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Seed') });
    expect(late.cache.index?.version).toBe(2);
    expect(vendorName(late)).toBe('Changed by an admin');
  });
});

describe('RedisAccessStore across instances', () => {
  it('brings a change made through one instance into the other instance’s cache within 1 s, as a delta', async () => {
    const prefix = uniquePrefix();
    const a = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix);
    const indexBefore = b.cache.index;

    const started = performance.now();
    const version = await a.store.commit({ ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('After'), expect: acmeVendor('Before') }], audit: null });
    await msUntil(() => b.cache.index?.version === version);
    const propagationMs = performance.now() - started;

    expect(propagationMs).toBeLessThan(1000);
    expect(vendorName(b)).toBe('After');
    // Replayed into the live index, not loaded again.
    expect(b.cache.index).toBe(indexBefore);
  });

  it('loads everything again after a whole-config swap, and after a gap in the changes', async () => {
    const prefix = uniquePrefix();
    const a = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix);
    const raw = await rawClient(SHARED_URL);

    const records = documentToRecords(documentNamed('Swapped in'));
    const loadsByA = countLoads(a.store);
    const { version: swapped } = await a.cache.writeWhole(records, () => a.store.replaceAll(records, { audit: null }));
    const written = a.cache.index;
    expect(written?.version).toBe(swapped);
    await msUntil(() => b.cache.index?.version === swapped);
    // The writer serves what it wrote, without reading it back, its own change message included.
    await a.cache.sync();
    expect(a.cache.index).toBe(written);
    expect(loadsByA()).toBe(0);
    expect(vendorName(b)).toBe('Swapped in');
    expect(await raw.keys(`${prefix}{access}:stage:*`)).toEqual([]);

    b.cache.stop();
    await a.store.commit({ ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('Missed'), expect: acmeVendor('Swapped in') }], audit: null });
    await raw.xtrim(`${prefix}{access}:changes`, 'MAXLEN', 0);
    const before = b.cache.index;
    await b.cache.sync();
    expect(b.cache.index).not.toBe(before);
    expect(vendorName(b)).toBe('Missed');
    expect(b.cache.index?.version).toBe(swapped + 1);
  });

  it('heals a lost change message with the periodic version check', async () => {
    const prefix = uniquePrefix();
    const pollIntervalMs = 300;
    await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix, { pollIntervalMs });
    const raw = await rawClient(SHARED_URL);

    await writeSilently(raw, prefix, 'Written without a message');
    const healedMs = await msUntil(() => b.cache.index?.version === 2);

    expect(healedMs).toBeLessThan(pollIntervalMs + 500);
    expect(vendorName(b)).toBe('Written without a message');
  });
});

describe('RedisAccessStore while Redis is gone', () => {
  it('catches up on a change it missed as soon as its connection comes back', async () => {
    const prefix = uniquePrefix();
    const instance = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const raw = await rawClient(SHARED_URL);
    await writeSilently(raw, prefix, 'Changed while away');

    expect(await dropConnections(raw, connectionName(prefix))).toBe(2);
    expect(await msUntil(() => instance.cache.index?.version === 2)).toBeLessThan(1000);
    expect(vendorName(instance)).toBe('Changed while away');
  });

  it('subscribes again itself after its connection dropped (ioredis resubscription is off), so later changes arrive as messages', async () => {
    const prefix = uniquePrefix();
    const a = await startInstance(SHARED_URL, prefix, { seed: documentNamed('Before') });
    const b = await startInstance(SHARED_URL, prefix);
    const raw = await rawClient(SHARED_URL);
    expect(await dropConnections(raw, connectionName(prefix))).toBe(4);
    // Both instances' connections are back and subscribed (CLIENT LIST shows them in pub/sub).
    await msUntil(
      async () =>
        String(await raw.client('LIST'))
          .split('\n')
          .filter((line) => line.includes(` name=${connectionName(prefix)} `) && /\bsub=1\b/.test(line)).length === 2,
    );

    const version = await a.store.commit({
      ops: [{ kind: 'vendor', id: 'acme', value: acmeVendor('After the drop'), expect: acmeVendor('Before') }],
      audit: null,
    });
    // No version poll in these instances: only the change message can bring it.
    expect(await msUntil(() => b.cache.index?.version === version)).toBeLessThan(1000);
    expect(vendorName(b)).toBe('After the drop');
  });

  it('fails reads fast and keeps the cache serving the last good copy', async () => {
    const redis = await privateRedis();
    const instance = await startInstance(redis.url, uniquePrefix(), { seed: documentNamed('Last good') });

    await redis.stop(true);
    const readMs = await msToSettle(readDocument(instance.store));
    const syncMs = await msToSettle(instance.cache.sync());

    expect(readMs).toBeLessThan(250);
    expect(syncMs).toBeLessThan(250);
    await expect(readDocument(instance.store)).rejects.toThrow();
    expect(instance.cache.index?.version).toBe(1);
    expect(vendorName(instance)).toBe('Last good');
  });

  it('writes the last good copy back when Redis returns empty, and carries later changes again', async () => {
    const redis = await privateRedis();
    const prefix = uniquePrefix();
    const a = await startInstance(redis.url, prefix, { seed: documentNamed('Seed') });
    const b = await startInstance(redis.url, prefix);
    await writeDocument(a.store, documentNamed('Live before the crash'), 1);
    await msUntil(() => vendorName(b) === 'Live before the crash');

    await redis.stop(true);
    await redis.start();
    const raw = await rawClient(redis.url);
    await msUntil(async () => (await raw.get(`${prefix}{access}:version`)) === '2');
    expect(JSON.parse((await raw.hget(`${prefix}{access}:vendors`, 'acme')) ?? 'null')).toMatchObject({ name: 'Live before the crash' });
    expect(vendorName(a)).toBe('Live before the crash');
    expect(vendorName(b)).toBe('Live before the crash');

    await msUntil(async () => (await raw.pubsub('NUMSUB', `${prefix}{access}:changed`))[1] === 2);
    // The subscriber can be back before the command connection is; a write before then fails fast (no offline queue).
    await msUntil(() => a.client.status === 'ready');
    const version = await writeDocument(a.store, documentNamed('Changed after the restart'), 2);
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
