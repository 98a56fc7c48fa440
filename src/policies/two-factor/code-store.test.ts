import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { StoreUnavailableError } from '../../errors/error-catalogue';
import { startRedisServer } from '../../../test/support/redis-server';
import { MemoryTwoFactorStore, RedisTwoFactorStore, type CodeOwner, type TwoFactorStore } from './code-store';
import { TestRedisClients } from '../../../test/support/redis-clients';

const TTL = 600_000;
const LOCK = 3_600_000;
const MAX = 5;
const T0 = 1_750_000_000_000;
const A: CodeOwner = { customerId: 10001 };
/** The vendor a code is issued to. */
const V = 'acme';

const clients = new TestRedisClients();
const redisClient = (url: string): Promise<Redis> => clients.ready(url);
afterAll(() => clients.disconnectAll());

const stores: Array<[string, () => Promise<TwoFactorStore>]> = [
  ['memory', async () => new MemoryTwoFactorStore()],
  ['Redis', async () => new RedisTwoFactorStore(await redisClient(process.env.TEST_REDIS_URL as string), `test-${randomUUID()}:`)],
];

describe.each(stores)('%s two-factor store', (_name, makeStore) => {
  let store: TwoFactorStore;
  beforeEach(async () => {
    store = await makeStore();
  });
  const redeem = (hash: string, now: number, owner = A) => store.redeem(owner, { hashes: [hash], now, maxAttempts: MAX, lockMs: LOCK, holder: V });
  const wrong = async (times: number, now: number, owner = A) => {
    const results = [];
    for (let i = 0; i < times; i++) results.push(await redeem('wrong', now, owner));
    return results;
  };

  it('accepts the code once', async () => {
    expect(await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V })).toEqual({ kind: 'issued' });
    expect(await redeem('h1', T0 + 1000)).toMatchObject({ kind: 'accepted' });
    expect(await redeem('h1', T0 + 2000)).toEqual({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' });
  });

  it('accepts a code under any of the hashes offered, and answers what restoring needs', async () => {
    await store.issue(A, { hash: 'bound', now: T0, ttlMs: TTL, holder: V });
    expect(await store.redeem(A, { hashes: ['other'], now: T0 + 1, maxAttempts: MAX, lockMs: LOCK, holder: V })).toMatchObject({ kind: 'refused' });
    expect(await store.redeem(A, { hashes: ['other', 'bound'], now: T0 + 2, maxAttempts: MAX, lockMs: LOCK, holder: V })).toEqual({
      kind: 'accepted',
      hash: 'bound',
      expiresAt: T0 + TTL,
      restores: 0,
    });
  });

  it('restores a redeemed code with its original expiry, never a fresh one', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    const accepted = await redeem('h1', T0 + TTL - 1000);
    expect(accepted).toMatchObject({ kind: 'accepted', expiresAt: T0 + TTL });
    expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + TTL, restores: 0, now: T0 + TTL - 500, holder: V })).toBe(true);
    expect(await redeem('h1', T0 + TTL)).toMatchObject({ kind: 'refused' });
  });

  it('spends a code after three restores, and never restores one past its expiry or over a newer code', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    for (let restores = 0; restores < 3; restores++) {
      expect(await redeem('h1', T0 + 1)).toEqual({ kind: 'accepted', hash: 'h1', expiresAt: T0 + TTL, restores });
      expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + TTL, restores, now: T0 + 2, holder: V })).toBe(true);
    }
    expect(await redeem('h1', T0 + 3)).toEqual({ kind: 'accepted', hash: 'h1', expiresAt: T0 + TTL, restores: 3 });
    expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + TTL, restores: 3, now: T0 + 4, holder: V })).toBe(false);
    expect(await redeem('h1', T0 + 5)).toMatchObject({ kind: 'refused' });

    expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + 10, restores: 0, now: T0 + 10, holder: V })).toBe(false);
    await store.issue(A, { hash: 'h2', now: T0 + 20, ttlMs: TTL, holder: V });
    expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + TTL, restores: 0, now: T0 + 21, holder: V })).toBe(false);
    expect(await redeem('h1', T0 + 22)).toMatchObject({ kind: 'refused' });
    expect(await redeem('h2', T0 + 23)).toMatchObject({ kind: 'accepted' });
  });

  it('refuses the code from the end of its lifetime on', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    expect(await redeem('h1', T0 + TTL)).toMatchObject({ kind: 'refused' });
  });

  it("tells a wrong try of the code's holder whether the code is still live and until when; another vendor hears nothing of it", async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    expect(await redeem('wrong', T0 + 1000)).toEqual({ kind: 'refused', wrongTries: 1, locked: false, liveCode: { expiresAt: T0 + TTL } });
    const other = await store.redeem(A, { hashes: ['wrong'], now: T0 + 2000, maxAttempts: MAX, lockMs: LOCK, holder: 'other-vendor' });
    expect(other).toEqual({ kind: 'refused', wrongTries: 2, locked: false, liveCode: 'none' });
    expect(await redeem('wrong', T0 + TTL)).toEqual({ kind: 'refused', wrongTries: 3, locked: false, liveCode: 'none' });
  });

  it('keeps a handed-back code its holder: a wrong try after the restore still hears it is live', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await redeem('h1', T0 + 1);
    expect(await store.restore(A, { hash: 'h1', expiresAt: T0 + TTL, restores: 0, now: T0 + 2, holder: V })).toBe(true);
    expect(await redeem('wrong', T0 + 3)).toMatchObject({ kind: 'refused', liveCode: { expiresAt: T0 + TTL } });
  });

  it('replaces an earlier code with a newer one', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await store.issue(A, { hash: 'h2', now: T0 + 1000, ttlMs: TTL, holder: V });
    expect(await redeem('h1', T0 + 2000)).toMatchObject({ kind: 'refused' });
    expect(await redeem('h2', T0 + 3000)).toMatchObject({ kind: 'accepted' });
  });

  it('locks after the last allowed wrong try, and then refuses even the right code and new codes', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    const results = await wrong(MAX, T0 + 1000);
    expect(results.map((r) => r.kind === 'refused' && [r.wrongTries, r.locked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
      [5, true],
    ]);
    expect(await redeem('h1', T0 + 2000)).toEqual({ kind: 'locked', retryAfterMs: LOCK - 1000 });
    expect(await store.issue(A, { hash: 'h2', now: T0 + 3000, ttlMs: TTL, holder: V })).toEqual({ kind: 'locked', retryAfterMs: LOCK - 2000 });
    expect(await redeem('h2', T0 + 4000)).toMatchObject({ kind: 'locked' });
  });

  it('keeps counting wrong tries across a new send', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await wrong(3, T0 + 1000);
    await store.issue(A, { hash: 'h2', now: T0 + 2000, ttlMs: TTL, holder: V });
    expect((await wrong(2, T0 + 3000)).at(-1)).toEqual({ kind: 'refused', wrongTries: 5, locked: true, liveCode: 'none' });
    expect(await redeem('h2', T0 + 4000)).toMatchObject({ kind: 'locked' });
  });

  it('forgets wrong tries after a success, and after the lock time since the last one', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await wrong(4, T0 + 1000);
    expect(await redeem('h1', T0 + 2000)).toMatchObject({ kind: 'accepted' });
    expect(await redeem('x', T0 + 3000)).toEqual({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' });
    expect(await redeem('x', T0 + 3000 + LOCK)).toEqual({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' });
  });

  it('lifts the lock after the lock time, with no code left to use', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await wrong(MAX, T0);
    expect(await redeem('h1', T0 + LOCK)).toEqual({ kind: 'refused', wrongTries: 1, locked: false, liveCode: 'none' });
    expect(await store.issue(A, { hash: 'h2', now: T0 + LOCK, ttlMs: TTL, holder: V })).toEqual({ kind: 'issued' });
    expect(await redeem('h2', T0 + LOCK + 1)).toMatchObject({ kind: 'accepted' });
  });

  it('keeps customers apart', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    expect(await redeem('h1', T0, { customerId: 10004 })).toMatchObject({ kind: 'refused' });
    expect(await redeem('h1', T0)).toMatchObject({ kind: 'accepted' });
  });

  it('locks a customer for every vendor: wrong tries count per customer, whoever makes them', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    // The hash binds the vendor (two-factor.ts), so another vendor's tries are wrong codes for the same customer.
    await wrong(MAX, T0, A);
    expect(await redeem('h1', T0 + 1)).toMatchObject({ kind: 'locked' });
    expect(await store.issue(A, { hash: 'h2', now: T0 + 1, ttlMs: TTL, holder: V })).toMatchObject({ kind: 'locked' });
  });

  it('discards a code only while it is still the one with that hash', async () => {
    await store.issue(A, { hash: 'h1', now: T0, ttlMs: TTL, holder: V });
    await store.issue(A, { hash: 'h2', now: T0, ttlMs: TTL, holder: V });
    await store.discard(A, 'h1');
    expect(await redeem('h2', T0)).toMatchObject({ kind: 'accepted' });
    await store.issue(A, { hash: 'h3', now: T0, ttlMs: TTL, holder: V });
    await store.discard(A, 'h3');
    expect(await redeem('h3', T0)).toMatchObject({ kind: 'refused' });
  });
});

describe('memory two-factor store', () => {
  it('forgets pairs with nothing left to remember once it holds many', async () => {
    const store = new MemoryTwoFactorStore(3);
    for (const customerId of [1, 2]) await store.issue({ customerId }, { hash: 'h', now: T0, ttlMs: 1000, holder: V });
    await store.redeem({ customerId: 3 }, { hashes: ['h'], now: T0, maxAttempts: MAX, lockMs: 1000, holder: V });
    await store.issue({ customerId: 4 }, { hash: 'h', now: T0 + 999, ttlMs: 1000, holder: V });
    // Everything was still live at T0 + 999; at T0 + 1000 only customer 4's code is.
    expect(store.size).toBe(4);
    await store.issue({ customerId: 5 }, { hash: 'h', now: T0 + 1000, ttlMs: 1000, holder: V });
    expect(store.size).toBe(2);
  });
});

describe('Redis two-factor store', () => {
  it('keeps both keys of a customer in one cluster slot, with a TTL, holding only the hash', async () => {
    const client = await redisClient(process.env.TEST_REDIS_URL as string);
    const store = new RedisTwoFactorStore(client, `test-${randomUUID()}:`);
    const [codeKey, triesKey] = store.keys(A);
    expect(codeKey.match(/\{[^}]+\}/)?.[0]).toBe('{2fa:10001}');
    expect(triesKey.match(/\{[^}]+\}/)?.[0]).toBe('{2fa:10001}');
    await store.issue(A, { hash: 'the-hash', now: Date.now(), ttlMs: TTL, holder: V });
    await store.redeem(A, { hashes: ['wrong'], now: Date.now(), maxAttempts: MAX, lockMs: LOCK, holder: V });
    expect(await client.hgetall(codeKey)).toEqual({ hash: 'the-hash', expiresAt: expect.stringMatching(/^\d+$/), restores: '0', holder: V });
    expect(await client.pttl(codeKey)).toBeGreaterThan(TTL - 5000);
    expect(await client.pttl(triesKey)).toBeGreaterThan(LOCK - 5000);
  });

  it('answers a wrong try on a live code stored without a holder (by an instance from before holders) as of unknown holder', async () => {
    const client = await redisClient(process.env.TEST_REDIS_URL as string);
    const store = new RedisTwoFactorStore(client, `test-${randomUUID()}:`);
    const now = Date.now();
    await client.hset(store.keys(A)[0], 'hash', 'old-hash', 'expiresAt', String(now + TTL), 'restores', '0');
    expect(await store.redeem(A, { hashes: ['wrong'], now, maxAttempts: MAX, lockMs: LOCK, holder: V })).toEqual({
      kind: 'refused',
      wrongTries: 1,
      locked: false,
      liveCode: 'unknown',
    });
    expect(await store.redeem(A, { hashes: ['old-hash'], now, maxAttempts: MAX, lockMs: LOCK, holder: V })).toMatchObject({ kind: 'accepted' });
  });

  it('reports Redis gone as StoreUnavailableError', async () => {
    const server = await startRedisServer();
    const client = await redisClient(server.url);
    const store = new RedisTwoFactorStore(client, 'test:');
    try {
      await server.stop();
      await expect(store.issue(A, { hash: 'h', now: T0, ttlMs: TTL, holder: V })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.redeem(A, { hashes: ['h'], now: T0, maxAttempts: MAX, lockMs: LOCK, holder: V })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.discard(A, 'h')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await server.stop();
    }
  });
});
