/**
 * The Redis idempotency store on its own, on a real Redis: the record layout and its TTLs,
 * claims that only their owner settles, binary-safe bodies, and the same scripts on a Redis
 * Cluster (one hash-tagged key per script, so every slot works).
 */
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster';
import { RedisIdempotencyStore, type EpochWatch } from './redis-idempotency-store';
import type { StoredResponse } from './idempotency-store';

const TIMINGS = { inFlightMs: 30_000, retentionMs: 86_400_000 };
const response = (text: string): StoredResponse => ({ status: 201, contentType: 'application/xml', body: Buffer.from(text) });

let prefixCounter = 0;
const client = new Redis(process.env.TEST_REDIS_URL as string, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 200, lazyConnect: true });
client.on('error', () => undefined);

function newStore(timings = TIMINGS): RedisIdempotencyStore {
  return new RedisIdempotencyStore(client, { keyPrefix: `test:${process.pid}:${++prefixCounter}:`, timings });
}

beforeAll(() => client.connect());
afterAll(() => client.disconnect());

/** What the store reads of the instance's epoch, under `prefix`: marker `epoch-1`, nothing seen yet, unless overridden. */
function epochView(prefix: string, overrides: Partial<EpochWatch> = {}): EpochWatch {
  return {
    key: `${prefix}epoch`,
    seqKey: `${prefix}epoch:seq`,
    ownSeqKey: `${prefix}epoch:seq:me`,
    ownSeqTtlMs: 60_000,
    currentId: () => 'epoch-1',
    highestSeq: () => 0,
    ownSeqExpected: () => 0,
    seqSeen: () => undefined,
    ...overrides,
  };
}

describe('Redis idempotency store', () => {
  it('keeps one hash-tagged hash per key, expiring after the in-flight time plus the retention, then after the retention once settled', async () => {
    const store = newStore();
    const key = 'a'.repeat(64);
    expect(store.recordKey(key)).toMatch(new RegExp(`^test:\\d+:\\d+:idem:\\{${key}\\}$`));
    await store.claim(key, 'fp', 'token-1');
    const record = await client.hgetall(store.recordKey(key));
    expect(record).toMatchObject({ state: 'in_flight', fingerprint: 'fp', token: 'token-1' });
    expect(Number(record.deadline)).toBeGreaterThan(Date.now() + TIMINGS.inFlightMs - 5000);
    expect(await client.pttl(store.recordKey(key))).toBeGreaterThan(TIMINGS.inFlightMs + TIMINGS.retentionMs - 5000);

    await store.complete(key, 'fp', 'token-1', response('<ok/>'));
    expect(await client.hget(store.recordKey(key), 'state')).toBe('completed');
    const ttl = await client.pttl(store.recordKey(key));
    expect(ttl).toBeLessThanOrEqual(TIMINGS.retentionMs);
    expect(ttl).toBeGreaterThan(TIMINGS.retentionMs - 5000);
  });

  it('stores any bytes as the body and gives them back unchanged', async () => {
    const store = newStore();
    const body = Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x80, 0x7b]);
    await store.claim('bytes', 'fp', 't');
    await store.complete('bytes', 'fp', 't', { status: 422, contentType: 'application/json; charset=utf-8', body });
    const outcome = await store.claim('bytes', 'fp', 'other');
    expect(outcome).toEqual({ kind: 'completed', response: { status: 422, contentType: 'application/json; charset=utf-8', body } });
  });

  it('gives back the Location of a created record with its replay, and none where the answer had none (records from before included)', async () => {
    const store = newStore();
    await store.claim('created', 'fp', 't');
    await store.complete('created', 'fp', 't', { ...response('{}'), location: '/bankaccounts/42' });
    expect(await store.claim('created', 'fp', 'other')).toEqual({ kind: 'completed', response: { ...response('{}'), location: '/bankaccounts/42' } });
    await store.claim('older', 'fp', 't');
    await store.complete('older', 'fp', 't', response('{}'));
    await client.hdel(store.recordKey('older'), 'location');
    expect(await store.claim('older', 'fp', 'other')).toEqual({ kind: 'completed', response: response('{}') });
  });

  it('lets only the claim owner settle it: a late writer with another token changes nothing', async () => {
    const store = newStore();
    await store.claim('owned', 'fp', 'owner');
    await store.complete('owned', 'fp', 'intruder', response('<forged/>'));
    await store.release('owned', 'intruder');
    await store.markUnknown('owned', 'fp', 'intruder');
    expect(await store.claim('owned', 'fp', 'retry')).toEqual({ kind: 'in_flight' });
    await store.complete('owned', 'fp', 'owner', response('<real/>'));
    // Settled is settled: neither a release nor "unknown" undoes a stored response.
    await store.release('owned', 'owner');
    await store.markUnknown('owned', 'fp', 'owner');
    expect(await store.claim('owned', 'fp', 'retry')).toEqual({ kind: 'completed', response: response('<real/>') });
  });

  it('lets a known outcome replace unknown, and keeps it when the record vanished meanwhile', async () => {
    const store = newStore();
    await store.claim('late', 'fp', 'owner');
    await store.markUnknown('late', 'fp', 'owner');
    expect(await store.claim('late', 'fp', 'retry')).toEqual({ kind: 'unknown' });
    await store.complete('late', 'fp', 'owner', response('<late/>'));
    expect((await store.claim('late', 'fp', 'retry')).kind).toBe('completed');

    await store.claim('vanished', 'fp', 'owner');
    await client.del(store.recordKey('vanished'));
    await store.complete('vanished', 'fp', 'owner', response('<kept/>'));
    expect(await store.claim('vanished', 'fp', 'retry')).toEqual({ kind: 'completed', response: response('<kept/>') });
    expect(await store.claim('vanished', 'other-body', 'retry')).toEqual({ kind: 'mismatch' });
  });

  it('claims only while the epoch marker holds the id this instance knows: gone, replaced or unreadable, it claims nothing and says the store was lost', async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let known: string | null = 'epoch-1';
    const epoch = epochView(prefix, { currentId: () => known });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    expect(await store.claim('k1', 'fp', 't')).toEqual({ kind: 'claimed' });
    for (const marker of [null, JSON.stringify({ id: 'epoch-2', holdUntil: 0 }), 'not json', '42']) {
      if (marker === null) await client.del(`${prefix}epoch`);
      else await client.set(`${prefix}epoch`, marker);
      expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
      expect(await client.exists(store.recordKey('k2'))).toBe(0);
    }
    // Before the instance has read a marker there is nothing to compare with.
    known = null;
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'claimed' });
  });

  it('counts the store sequence up at each claim and says the store was lost, claiming nothing, when it is lower than the instance has seen', async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let highest = 0;
    const seen: Array<[string, number]> = [];
    const epoch = epochView(prefix, { highestSeq: () => highest, seqSeen: (id: string, seq: number) => void seen.push([id, seq]) });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    expect(await store.claim('k1', 'fp', 'owner')).toEqual({ kind: 'claimed' });
    await store.complete('k1', 'fp', 'owner', response('<r/>'));
    expect(await store.claim('k1', 'fp', 'retry')).toEqual({ kind: 'completed', response: response('<r/>') });
    expect(seen).toEqual([
      ['epoch-1', 1],
      ['epoch-1', 2],
    ]);
    // A stale copy: the same marker, a sequence behind what this instance has seen.
    highest = 5;
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    expect(await client.exists(store.recordKey('k2'))).toBe(0);
    expect(await client.get(`${prefix}epoch:seq`)).toBe('2');
    highest = 2;
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq`)).toBe('3');
  });

  it("writes the new sequence to the instance's own key with a TTL, and says the store was lost when that key is gone or lower than its last claim wrote, even with the shared sequence higher", async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let ownExpected = 0;
    const epoch = epochView(prefix, { ownSeqExpected: () => ownExpected });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    await client.set(`${prefix}epoch:seq`, '6'); // other instances counted
    expect(await store.claim('k1', 'fp', 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq:me`)).toBe('7');
    const ttl = await client.pttl(`${prefix}epoch:seq:me`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    ownExpected = 7;
    // A stale copy taken before that claim, and other instances counting the shared sequence past it.
    await client.set(`${prefix}epoch:seq`, '20');
    await client.set(`${prefix}epoch:seq:me`, '3');
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    await client.del(`${prefix}epoch:seq:me`);
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    expect(await client.exists(store.recordKey('k2'))).toBe(0);
    // Nothing left to protect (its last claim older than a record lives): a missing own key is no loss.
    ownExpected = 0;
    expect(await store.claim('k2', 'fp', 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq:me`)).toBe('21');
  });

  it('rejects at once when Redis cannot be reached, for the step to answer 503', async () => {
    const offline = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    offline.on('error', () => undefined);
    const store = new RedisIdempotencyStore(offline, { keyPrefix: 'test:offline:', timings: TIMINGS });
    const started = performance.now();
    await expect(store.claim('k', 'fp', 't')).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(500);
    offline.disconnect();
  });
});

describe('Redis idempotency store on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let clusterClient: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    // As the gateway connects: no offline queue, a short command timeout.
    clusterClient = new Cluster(cluster.nodes, { enableOfflineQueue: false, redisOptions: { commandTimeout: 500, maxRetriesPerRequest: 0 } });
    clusterClient.on('error', () => undefined);
    await new Promise<void>((resolve) => clusterClient.once('ready', () => resolve()));
  }, 60_000);
  afterAll(async () => {
    clusterClient.disconnect();
    await cluster.stop();
  });

  it('claims, completes and replays keys whatever slot they fall in', async () => {
    const store = new RedisIdempotencyStore(clusterClient, { keyPrefix: 'cbg:', timings: TIMINGS });
    const keys = Array.from({ length: 12 }, (_, i) => `${i.toString(16)}${'0'.repeat(63)}`);
    const owners = new Set(await Promise.all(keys.map((k) => cluster.ownerOf(store.recordKey(k)))));
    expect(owners.size).toBeGreaterThan(1);
    for (const key of keys) {
      expect(await store.claim(key, 'fp', 'owner')).toEqual({ kind: 'claimed' });
      expect(await store.claim(key, 'fp', 'retry')).toEqual({ kind: 'in_flight' });
      await store.complete(key, 'fp', 'owner', response(`<r>${key}</r>`));
      expect(await store.claim(key, 'fp', 'retry')).toEqual({ kind: 'completed', response: response(`<r>${key}</r>`) });
    }
  });
});
