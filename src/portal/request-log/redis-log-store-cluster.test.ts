/**
 * The request log on a real three-master Redis Cluster: each vendor's keys share the slot of
 * their hash tag, vendors on different masters are written in one batch, another client reads
 * them, and the total cap is kept across masters.
 */
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { startRedisCluster, type RedisClusterHandle } from '../../../test/support/redis-cluster';
import { createLogger } from '../../logging/logger';
import { createRequestLog } from './create-request-log';
import type { RequestLog, RequestLogEntry } from './request-log';

jest.setTimeout(60_000);

let cluster: RedisClusterHandle;
const clients: Cluster[] = [];
const logs: RequestLog[] = [];

function clusterClient(): Cluster {
  const client = new Cluster(cluster.nodes, { redisOptions: { commandTimeout: 2000, maxRetriesPerRequest: 0 } });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

function logOn(client: Cluster, keyPrefix: string, maxEntriesTotal = 1_000_000): RequestLog {
  const log = createRequestLog(
    { enabled: true, retentionHours: 72, maxEntriesPerVendor: 100_000, maxEntriesTotal, flushIntervalMs: 60_000 },
    { redis: client, keyPrefix, logger: createLogger('silent') },
  ) as RequestLog;
  logs.push(log);
  return log;
}

function entries(count: number): RequestLogEntry[] {
  const end = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(end - count + i).toISOString(),
    requestId: randomUUID(),
    apiId: 'GETaccounts',
    status: 200,
    durationMs: 3.2,
    keyPrefix: 'cbk_a1B2c3D4',
  }));
}

/** Vendor ids whose keys live on three different masters. */
async function vendorsOnEveryMaster(keyPrefix: string): Promise<string[]> {
  const byOwner = new Map<number, string>();
  for (let i = 0; byOwner.size < 3 && i < 200; i++) {
    const vendorId = `vendor-${i}`;
    const owner = await cluster.ownerOf(`${keyPrefix}{reqlog:${vendorId}}:log`);
    if (!byOwner.has(owner)) byOwner.set(owner, vendorId);
  }
  return [...byOwner.values()];
}

beforeAll(async () => {
  cluster = await startRedisCluster();
});
afterAll(async () => {
  for (const log of logs) await log.stop().catch(() => undefined);
  for (const client of clients) client.disconnect();
  await cluster?.stop();
});

describe('the request log on a Redis Cluster', () => {
  it('writes vendors on different masters in one batch, each with its keys in its own slot, and another client reads them', async () => {
    const keyPrefix = 'cluster1:';
    const vendors = await vendorsOnEveryMaster(keyPrefix);
    expect(vendors).toHaveLength(3);
    const writer = logOn(clusterClient(), keyPrefix);
    const reader = logOn(clusterClient(), keyPrefix);
    const written = new Map(vendors.map((vendorId) => [vendorId, entries(5)]));
    for (const [vendorId, list] of written) for (const entry of list) writer.record(vendorId, entry);
    await writer.flush();
    for (const [vendorId, list] of written) {
      expect(await cluster.ownerOf(`${keyPrefix}{reqlog:${vendorId}}:ids`)).toBe(await cluster.ownerOf(`${keyPrefix}{reqlog:${vendorId}}:log`));
      expect(await reader.find(vendorId, (list[2] as RequestLogEntry).requestId)).toEqual(list[2]);
      expect((await reader.list(vendorId, { limit: 10 })).items.map((e) => e.requestId)).toEqual(list.map((e) => e.requestId).reverse());
    }
    expect(await reader.find(vendors[0] as string, (written.get(vendors[1] as string)?.[0] as RequestLogEntry).requestId)).toBeNull();
  });

  it('keeps the total cap across masters, cutting the biggest vendor', async () => {
    const keyPrefix = 'cluster2:';
    const [big, small] = await vendorsOnEveryMaster(keyPrefix);
    const log = logOn(clusterClient(), keyPrefix, 1000);
    for (const entry of entries(900)) log.record(big as string, entry);
    await log.flush();
    for (const entry of entries(200)) log.record(small as string, entry);
    await log.flush();
    const count = async (vendorId: string): Promise<number> => {
      let n = 0;
      let after: string | undefined;
      do {
        const page = await log.list(vendorId, { limit: 200, ...(after ? { after } : {}) });
        n += page.items.length;
        after = page.next ?? undefined;
      } while (after);
      return n;
    };
    // 1,100 > 1,000: cut to 900, the big vendor first (fair shares: 200 and 700).
    expect(await count(small as string)).toBe(200);
    expect(await count(big as string)).toBe(700);
  });
});
