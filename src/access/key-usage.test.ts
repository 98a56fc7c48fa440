import Redis from 'ioredis';
import { createLogger } from '../logging/logger';
import { KeyUsageTracker, MemoryKeyUsageStore, RedisKeyUsageStore, type KeyUsageStore } from './key-usage';

const logger = createLogger('silent');

describe.each([
  ['memory', () => new MemoryKeyUsageStore()],
  ['Redis', () => new RedisKeyUsageStore(new Redis(process.env.TEST_REDIS_URL as string), `ku${process.pid}x${Math.random().toString(36).slice(2)}:`)],
] as Array<[string, () => KeyUsageStore]>)('key usage on the %s store', (_name, makeStore) => {
  let store: KeyUsageStore;
  beforeEach(() => {
    store = makeStore();
  });
  afterEach(() => {
    if (store instanceof RedisKeyUsageStore) (store as unknown as { client: Redis }).client.disconnect();
  });

  it('keeps the latest time per key, whatever order instances save in', async () => {
    await store.save(new Map([['k1', 2000], ['k2', 500]]));
    await store.save(new Map([['k1', 1000], ['k2', 900]]));
    expect(await store.load(['k1', 'k2', 'k3'])).toEqual(new Map([['k1', 2000], ['k2', 900]]));
  });

  it('reports uses before they are flushed, and saves them on flush', async () => {
    const tracker = new KeyUsageTracker(store, 60_000, logger);
    tracker.record('k9', Date.parse('2026-01-02T03:04:05Z'));
    expect(await tracker.lastUsed(['k9', 'other'])).toEqual(new Map([['k9', '2026-01-02T03:04:05.000Z']]));
    expect(await store.load(['k9'])).toEqual(new Map());
    await tracker.stop();
    expect(await store.load(['k9'])).toEqual(new Map([['k9', Date.parse('2026-01-02T03:04:05Z')]]));
  });
});
