/**
 * Two whole gateways on a real three-master Redis Cluster (loopback): every multi-key script
 * and transaction stays in one slot thanks to the hash-tagged key names, a change made through
 * one instance reaches the other through cluster pub/sub, and the rate limit is one global count.
 */
import { topologyDocument, topologyKeys, vendorStatus, writeAccessFile } from '../support/access-fixture';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster';
import { askRedis } from '../support/redis-sentinel';
import { within } from '../support/within';

jest.setTimeout(60_000);

const keys = topologyKeys();
const TIGHT_POINTS = 6;

function admin(gateway: TestGateway, method: string, path: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${gateway.adminPort}/v1${path}`, { method, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
}

describe('gateways on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let a: TestGateway;
  let b: TestGateway;
  const keyPrefix = 'cluster:';

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const shared = {
      // One seed node is enough: the client learns the rest of the cluster from it.
      // A generous command timeout: on a busy machine the default 100 ms sent some counts to the
      // insurance limiter (ceil(points / instances) each), which is its own test's business.
      redis: { nodes: cluster.nodes.slice(0, 1), keyPrefix, seedAccessFile: 'always' as const, commandTimeoutMs: 2000 },
      rateLimit: { expectedInstances: 2 },
      access: { file: writeAccessFile(topologyDocument(keys, TIGHT_POINTS)), keyUsageFlushIntervalMs: 100 },
    };
    a = await startTestGateway(shared);
    b = await startTestGateway(shared);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await cluster?.stop();
  });

  it('serves vendors and keeps the access records and changes in the slot of their hash tag', async () => {
    expect(await vendorStatus(a.url, keys.teller)).toBe(200);
    expect(await vendorStatus(b.url, keys.teller)).toBe(200);
    const owner = await cluster.ownerOf(`${keyPrefix}{access}:version`);
    expect(
      await askRedis(owner, (c) =>
        c.exists(
          `${keyPrefix}{access}:vendors`,
          `${keyPrefix}{access}:keys`,
          `${keyPrefix}{access}:users`,
          `${keyPrefix}{access}:version`,
          `${keyPrefix}{access}:changes`,
        ),
      ),
    ).toBe(5);
  });

  it('refuses on instance B, within 1 s, a key revoked through instance A', async () => {
    expect(await vendorStatus(b.url, keys.spare)).toBe(200);
    expect((await admin(a, 'DELETE', '/keys/k-spare')).status).toBe(204);
    const tookMs = await within(1000, async () => (await vendorStatus(b.url, keys.spare)) === 401);
    expect(tookMs).toBeLessThan(1000);
  });

  it('writes the audit log and key usage to the cluster and reads them back from either instance', async () => {
    const audit = (await (await admin(b, 'GET', '/audit?limit=5')).json()) as Array<{ action: string; target: string }>;
    expect(audit[0]).toMatchObject({ target: 'keys/k-spare' });
    await within(2000, async () => {
      const list = (await (await admin(b, 'GET', '/vendors/acme/keys')).json()) as Array<{ id: string; lastUsedAt?: string }>;
      return list.find((k) => k.id === 'k-teller')?.lastUsedAt !== undefined;
    });
  });

  it('lets exactly the vendor limit through, whichever instance each request hits', async () => {
    const statuses = await Promise.all(Array.from({ length: TIGHT_POINTS * 3 }, (_, i) => vendorStatus((i % 2 ? a : b).url, keys.tight)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(TIGHT_POINTS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(TIGHT_POINTS * 2);
  });
});
