/**
 * The Redis idempotency store on its own, on a real Redis: the record layout and its TTLs,
 * claims that only their owner settles, binary-safe bodies, and the same scripts on a Redis
 * Cluster (one hash-tagged key per script, so every slot works).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster';
import { RedisIdempotencyStore, type EpochWatch } from './redis-idempotency-store';
import type { StoredResponse } from './idempotency-store';

const TIMINGS = { inFlightMs: 30_000, retentionMs: 86_400_000 };
const FP = Buffer.from('fingerprint');
const OTHER_FP = Buffer.from('another body');
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
  it('keeps one hash-tagged string per key, expiring after the in-flight time plus the retention, then after the retention once settled', async () => {
    const store = newStore();
    const key = 'a'.repeat(64);
    expect(store.recordKey(key)).toMatch(new RegExp(`^test:\\d+:\\d+:idem:\\{${key}\\}$`));
    await store.claim(key, FP, 'token-1');
    const inFlight = (await client.getBuffer(store.recordKey(key))) as Buffer;
    expect(inFlight.subarray(0, 2 + FP.length)).toEqual(Buffer.concat([Buffer.from([0x46, FP.length]), FP]));
    expect(inFlight.readDoubleBE(2 + FP.length)).toBeGreaterThan(Date.now() + TIMINGS.inFlightMs - 5000);
    expect(inFlight.subarray(10 + FP.length).toString()).toBe('token-1');
    expect(await client.pttl(store.recordKey(key))).toBeGreaterThan(TIMINGS.inFlightMs + TIMINGS.retentionMs - 5000);

    await store.complete(key, FP, 'token-1', response('<ok/>'));
    expect((await client.getBuffer(store.recordKey(key)))?.toString('latin1', 0, 1)).toBe('C');
    const ttl = await client.pttl(store.recordKey(key));
    expect(ttl).toBeLessThanOrEqual(TIMINGS.retentionMs);
    expect(ttl).toBeGreaterThan(TIMINGS.retentionMs - 5000);
  });

  it('stores any bytes as the body and gives them back unchanged', async () => {
    const store = newStore();
    const body = Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x80, 0x7b]);
    await store.claim('bytes', FP, 't');
    await store.complete('bytes', FP, 't', { status: 422, contentType: 'application/json; charset=utf-8', body });
    const outcome = await store.claim('bytes', FP, 'other');
    expect(outcome).toEqual({ kind: 'completed', response: { status: 422, contentType: 'application/json; charset=utf-8', body } });
  });

  it('gives back the Location of a created record with its replay, and none where the answer had none', async () => {
    const store = newStore();
    await store.claim('created', FP, 't');
    await store.complete('created', FP, 't', { ...response('{}'), location: '/bankaccounts/42' });
    expect(await store.claim('created', FP, 'other')).toEqual({ kind: 'completed', response: { ...response('{}'), location: '/bankaccounts/42' } });
    await store.claim('plain', FP, 't');
    await store.complete('plain', FP, 't', response('{}'));
    expect(await store.claim('plain', FP, 'other')).toEqual({ kind: 'completed', response: response('{}') });
  });

  it('keeps a completed deposit in at most 600 bytes of Redis memory, key included, and replays its answer byte for byte', async () => {
    // The receipts as the gateway renders them: the bench upstream's (its fixture) and the sandbox core's.
    const fixture = (name: string): string => readFileSync(path.join(__dirname, '../../../test/fixtures/receipts', name), 'utf8');
    const receipts: StoredResponse[] = [
      { status: 201, contentType: 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(JSON.parse(fixture('deposit.response.json')))) },
      { status: 201, contentType: 'application/xml; charset=utf-8', body: Buffer.from(fixture('deposit.response.xml').replace(/>\s+</g, '><').trim()) },
      {
        status: 201,
        contentType: 'application/json; charset=utf-8',
        body: Buffer.from(
          '{"cuAccountID":50001,"amount":10.00,"notes":"Counter 2","externalRefNo":"REF-1","receiptNo":1016430,"hasOverride":false,"transactionOverrides":[]}',
        ),
      },
    ];
    const store = newStore();
    for (const [i, receipt] of receipts.entries()) {
      // A key as the step makes it (a SHA-256 in hex), under a prefix longer than the default `cbg:`.
      const key = createHash('sha256').update(`receipt-${i}`).digest('hex');
      const fingerprint = createHash('sha256').update(receipt.body).digest();
      await store.claim(key, fingerprint, 'owner');
      await store.complete(key, fingerprint, 'owner', receipt);
      expect(receipt.body.length).toBeGreaterThan(140);
      expect(await client.memory('USAGE', store.recordKey(key))).toBeLessThanOrEqual(600);
      expect(await store.claim(key, fingerprint, 'retry')).toEqual({ kind: 'completed', response: receipt });
    }
  });

  it('lets only the claim owner settle it: a late writer with another token changes nothing', async () => {
    const store = newStore();
    await store.claim('owned', FP, 'owner');
    await store.complete('owned', FP, 'intruder', response('<forged/>'));
    await store.release('owned', 'intruder');
    await store.markUnknown('owned', FP, 'intruder');
    expect(await store.claim('owned', FP, 'retry')).toEqual({ kind: 'in_flight' });
    await store.complete('owned', FP, 'owner', response('<real/>'));
    // Settled is settled: neither a release nor "unknown" undoes a stored response.
    await store.release('owned', 'owner');
    await store.markUnknown('owned', FP, 'owner');
    expect(await store.claim('owned', FP, 'retry')).toEqual({ kind: 'completed', response: response('<real/>') });
  });

  it('lets a known outcome replace unknown, and keeps it when the record vanished meanwhile', async () => {
    const store = newStore();
    await store.claim('late', FP, 'owner');
    await store.markUnknown('late', FP, 'owner');
    expect(await store.claim('late', FP, 'retry')).toEqual({ kind: 'unknown' });
    await store.complete('late', FP, 'owner', response('<late/>'));
    expect((await store.claim('late', FP, 'retry')).kind).toBe('completed');

    await store.claim('vanished', FP, 'owner');
    await client.del(store.recordKey('vanished'));
    await store.complete('vanished', FP, 'owner', response('<kept/>'));
    expect(await store.claim('vanished', FP, 'retry')).toEqual({ kind: 'completed', response: response('<kept/>') });
    expect(await store.claim('vanished', OTHER_FP, 'retry')).toEqual({ kind: 'mismatch' });
  });

  it('claims only while the epoch marker holds the id this instance knows: gone, replaced or unreadable, it claims nothing and says the store was lost', async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let known: string | null = 'epoch-1';
    const epoch = epochView(prefix, { currentId: () => known });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    expect(await store.claim('k1', FP, 't')).toEqual({ kind: 'claimed' });
    for (const marker of [null, JSON.stringify({ id: 'epoch-2', holdUntil: 0 }), 'not json', '42']) {
      if (marker === null) await client.del(`${prefix}epoch`);
      else await client.set(`${prefix}epoch`, marker);
      expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
      expect(await client.exists(store.recordKey('k2'))).toBe(0);
    }
    // Before the instance has read a marker there is nothing to compare with.
    known = null;
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'claimed' });
  });

  it('counts the store sequence up at each claim and says the store was lost, claiming nothing, when it is lower than the instance has seen', async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let highest = 0;
    const seen: Array<[string, number]> = [];
    const epoch = epochView(prefix, { highestSeq: () => highest, seqSeen: (id: string, seq: number) => void seen.push([id, seq]) });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    expect(await store.claim('k1', FP, 'owner')).toEqual({ kind: 'claimed' });
    await store.complete('k1', FP, 'owner', response('<r/>'));
    expect(await store.claim('k1', FP, 'retry')).toEqual({ kind: 'completed', response: response('<r/>') });
    expect(seen).toEqual([
      ['epoch-1', 1],
      ['epoch-1', 2],
    ]);
    // A stale copy: the same marker, a sequence behind what this instance has seen.
    highest = 5;
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    expect(await client.exists(store.recordKey('k2'))).toBe(0);
    expect(await client.get(`${prefix}epoch:seq`)).toBe('2');
    highest = 2;
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq`)).toBe('3');
  });

  it("writes the new sequence to the instance's own key with a TTL, and says the store was lost when that key is gone or lower than its last claim wrote, even with the shared sequence higher", async () => {
    const prefix = `test:${process.pid}:${++prefixCounter}:`;
    let ownExpected = 0;
    const epoch = epochView(prefix, { ownSeqExpected: () => ownExpected });
    const store = new RedisIdempotencyStore(client, { keyPrefix: prefix, timings: TIMINGS, epoch });
    await client.set(`${prefix}epoch`, JSON.stringify({ id: 'epoch-1', holdUntil: 0 }));
    await client.set(`${prefix}epoch:seq`, '6'); // other instances counted
    expect(await store.claim('k1', FP, 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq:me`)).toBe('7');
    const ttl = await client.pttl(`${prefix}epoch:seq:me`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    ownExpected = 7;
    // A stale copy taken before that claim, and other instances counting the shared sequence past it.
    await client.set(`${prefix}epoch:seq`, '20');
    await client.set(`${prefix}epoch:seq:me`, '3');
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    await client.del(`${prefix}epoch:seq:me`);
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'store_lost', epochId: 'epoch-1' });
    expect(await client.exists(store.recordKey('k2'))).toBe(0);
    // Nothing left to protect (its last claim older than a record lives): a missing own key is no loss.
    ownExpected = 0;
    expect(await store.claim('k2', FP, 't')).toEqual({ kind: 'claimed' });
    expect(await client.get(`${prefix}epoch:seq:me`)).toBe('21');
  });

  it('rejects at once when Redis cannot be reached, for the step to answer 503', async () => {
    const offline = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    offline.on('error', () => undefined);
    const store = new RedisIdempotencyStore(offline, { keyPrefix: 'test:offline:', timings: TIMINGS });
    const started = performance.now();
    await expect(store.claim('k', FP, 't')).rejects.toThrow();
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
      expect(await store.claim(key, FP, 'owner')).toEqual({ kind: 'claimed' });
      expect(await store.claim(key, FP, 'retry')).toEqual({ kind: 'in_flight' });
      await store.complete(key, FP, 'owner', response(`<r>${key}</r>`));
      expect(await store.claim(key, FP, 'retry')).toEqual({ kind: 'completed', response: response(`<r>${key}</r>`) });
    }
  });
});
