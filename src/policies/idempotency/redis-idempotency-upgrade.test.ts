/**
 * A rolling upgrade of the Redis idempotency record, on a real Redis: instances of the layout
 * before (one hash per key) and of this one (one string) share the keys for a while. Records of
 * the older layout replay byte for byte here and stay theirs to settle; an older instance that
 * meets a record of this layout fails on it (so its step answers 503) and writes nothing. The
 * older instances' scripts are quoted as they ran (the claim without its epoch check, which
 * touches no record).
 */
import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisIdempotencyStore } from './redis-idempotency-store';
import type { StoredResponse } from './idempotency-store';

const OLD_CLAIM = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local record = redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'deadline', 'status', 'contentType', 'body', 'location')
local state = record[1]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'in_flight', 'fingerprint', ARGV[1], 'token', ARGV[2], 'deadline', string.format('%.0f', now + tonumber(ARGV[3])))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]))
  return {'claimed'}
end
if record[2] ~= ARGV[1] then return {'mismatch'} end
if state == 'completed' then return {'completed', record[4], record[5], record[6], record[7]} end
if state == 'in_flight' then
  if now < tonumber(record[3]) then return {'in_flight'} end
  redis.call('HSET', KEYS[1], 'state', 'unknown')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return {'unknown'}
`;

const OLD_COMPLETE = `
local owner = redis.call('HGET', KEYS[1], 'token')
if owner and owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'completed', 'fingerprint', ARGV[2], 'token', ARGV[1], 'status', ARGV[3], 'contentType', ARGV[4], 'body', ARGV[5], 'location', ARGV[7])
redis.call('HDEL', KEYS[1], 'deadline')
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`;

const OLD_RELEASE = `
local record = redis.call('HMGET', KEYS[1], 'token', 'state')
if record[1] ~= ARGV[1] or record[2] == 'completed' then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

const RETENTION_MS = 86_400_000;
const client = new Redis(process.env.TEST_REDIS_URL as string, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 500, lazyConnect: true });
client.on('error', () => undefined);
beforeAll(() => client.connect());
afterAll(() => client.disconnect());

let prefixCounter = 0;
function newStore(inFlightMs = 30_000): RedisIdempotencyStore {
  return new RedisIdempotencyStore(client, {
    keyPrefix: `test:upgrade:${process.pid}:${++prefixCounter}:`,
    timings: { inFlightMs, retentionMs: RETENTION_MS },
  });
}

/** The fingerprint both layouts compute for a body: this one keeps the bytes, the older one their hex. */
const fingerprintOf = (body: string): Buffer => createHmac('sha256', 'pepper').update(body).digest();

/** An older instance, on the same Redis as the store: its scripts, its hex fingerprints. */
const older = {
  claim: (store: RedisIdempotencyStore, key: string, fingerprint: Buffer, token: string, inFlightMs = 30_000): Promise<unknown> =>
    client.eval(OLD_CLAIM, 1, store.recordKey(key), fingerprint.toString('hex'), token, inFlightMs, RETENTION_MS),
  complete: (store: RedisIdempotencyStore, key: string, fingerprint: Buffer, token: string, answer: StoredResponse): Promise<unknown> =>
    client.eval(
      OLD_COMPLETE,
      1,
      store.recordKey(key),
      token,
      fingerprint.toString('hex'),
      answer.status,
      answer.contentType,
      answer.body,
      RETENTION_MS,
      answer.location ?? '',
    ),
  release: (store: RedisIdempotencyStore, key: string, token: string): Promise<unknown> => client.eval(OLD_RELEASE, 1, store.recordKey(key), token),
};

const receipt: StoredResponse = {
  status: 201,
  contentType: 'application/xml; charset=utf-8',
  body: Buffer.from('<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><Amount>10.00</Amount><ReceiptNo>7</ReceiptNo></ReceiptPaymentDto>'),
};

describe('Redis idempotency records across a rolling upgrade', () => {
  it('replays a deposit completed by an older instance byte for byte, its Location too, and still tells another body apart', async () => {
    const store = newStore();
    const fingerprint = fingerprintOf('deposit');
    const created = { ...receipt, body: Buffer.from([0x7b, 0x00, 0xff, 0x7d]), location: '/bankaccounts/42' };
    await older.claim(store, 'k1', fingerprint, 'old-owner');
    await older.complete(store, 'k1', fingerprint, 'old-owner', created);
    expect(await store.claim('k1', fingerprint, 'new')).toEqual({ kind: 'completed', response: created });
    expect(await store.claim('k1', fingerprintOf('another deposit'), 'new')).toEqual({ kind: 'mismatch' });
    // Records written before Location was kept have no such field.
    await older.claim(store, 'k2', fingerprint, 'old-owner');
    await older.complete(store, 'k2', fingerprint, 'old-owner', receipt);
    await client.hdel(store.recordKey('k2'), 'location');
    expect(await store.claim('k2', fingerprint, 'new')).toEqual({ kind: 'completed', response: receipt });
  });

  it("keeps an older instance's claim in flight, then unknown past its deadline, and leaves it a hash its owner can still settle", async () => {
    const store = newStore(1000);
    const fingerprint = fingerprintOf('deposit');
    await older.claim(store, 'k', fingerprint, 'old-owner', 1000);
    expect(await store.claim('k', fingerprint, 'new')).toEqual({ kind: 'in_flight' });
    // This code's settling scripts never own a hash: they leave it alone.
    await store.complete('k', fingerprint, 'new', { ...receipt, body: Buffer.from('<forged/>') });
    await store.markUnknown('k', fingerprint, 'new');
    await store.release('k', 'new');
    expect(await client.type(store.recordKey('k'))).toBe('hash');
    expect(await client.hget(store.recordKey('k'), 'state')).toBe('in_flight');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await store.claim('k', fingerprint, 'new')).toEqual({ kind: 'unknown' });
    expect(await client.hget(store.recordKey('k'), 'state')).toBe('unknown');
    expect(await client.pttl(store.recordKey('k'))).toBeGreaterThan(RETENTION_MS - 5000);
    // The core answered the older instance late: its outcome, known now, replaces unknown.
    expect(await older.complete(store, 'k', fingerprint, 'old-owner', receipt)).toBe(1);
    expect(await store.claim('k', fingerprint, 'new')).toEqual({ kind: 'completed', response: receipt });
  });

  it('makes an older instance fail on a record of this layout, in flight or completed, so it posts nothing and changes nothing', async () => {
    const store = newStore();
    const fingerprint = fingerprintOf('deposit');
    await store.claim('flight', fingerprint, 'new-owner');
    await store.claim('done', fingerprint, 'new-owner');
    await store.complete('done', fingerprint, 'new-owner', receipt);
    for (const key of ['flight', 'done']) {
      const before = await client.getBuffer(store.recordKey(key));
      await expect(older.claim(store, key, fingerprint, 'old')).rejects.toThrow(/WRONGTYPE/);
      await expect(older.release(store, key, 'old')).rejects.toThrow(/WRONGTYPE/);
      expect(await client.getBuffer(store.recordKey(key))).toEqual(before);
    }
    expect(await store.claim('flight', fingerprint, 'retry')).toEqual({ kind: 'in_flight' });
    expect(await store.claim('done', fingerprint, 'retry')).toEqual({ kind: 'completed', response: receipt });
  });
});
