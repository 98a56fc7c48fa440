import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { createLogger } from '../logging/logger';
import { accessServiceFor } from '../../test/support/access-service';
import { MemoryAccessStore } from './access-store';
import { KeyUsageTracker, MemoryKeyUsageStore, RedisKeyUsageStore, type KeyUsageStore } from './key-usage';
import { accessDocumentSchema } from './model';

const logger = createLogger('silent');

const key = (id: string) => ({ id, prefix: 'cbk_AAAAAAAA', hash: `sha256:${createHash('sha256').update(id).digest('hex')}`, userId: 'teller' });
const twoVendors = () =>
  accessDocumentSchema.parse({
    vendors: [
      { id: 'acme', name: 'Acme', keys: [key('acme-1'), key('acme-2')] },
      { id: 'beta', name: 'Beta', keys: [key('beta-1')] },
    ],
    users: [],
  });

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
    await store.save(
      new Map([
        ['k1', 2000],
        ['k2', 500],
      ]),
    );
    await store.save(
      new Map([
        ['k1', 1000],
        ['k2', 900],
      ]),
    );
    expect(await store.load(['k1', 'k2', 'k3'])).toEqual(
      new Map([
        ['k1', 2000],
        ['k2', 900],
      ]),
    );
  });

  it('reports uses before they are flushed, and saves them on flush', async () => {
    const tracker = new KeyUsageTracker(store, 60_000, logger);
    tracker.record('k9', Date.parse('2026-01-02T03:04:05Z'));
    expect(await tracker.lastUsed(['k9', 'other'])).toEqual(new Map([['k9', '2026-01-02T03:04:05.000Z']]));
    expect(await store.load(['k9'])).toEqual(new Map());
    await tracker.stop();
    expect(await store.load(['k9'])).toEqual(new Map([['k9', Date.parse('2026-01-02T03:04:05Z')]]));
  });

  it("forgets the times of keys an access write removed: a deleted vendor's keys, keys a new document drops", async () => {
    const tracker = new KeyUsageTracker(store, 60_000, logger);
    const service = accessServiceFor(new MemoryAccessStore(twoVendors()), { keyUsage: tracker });
    await store.save(
      new Map([
        ['acme-1', 1000],
        ['acme-2', 2000],
        ['beta-1', 3000],
      ]),
    );
    tracker.record('acme-2', 2500);

    await service.deleteVendor('acme', 'admin:test');
    expect(await store.load(['acme-1', 'acme-2', 'beta-1'])).toEqual(new Map([['beta-1', 3000]]));
    await tracker.flush();
    expect(await store.load(['acme-2'])).toEqual(new Map());

    await service.replaceDocument({ vendors: [{ id: 'beta', name: 'Beta', keys: [] }], users: [] }, 'admin:test');
    expect(await store.load(['beta-1'])).toEqual(new Map());
  });
});
