/**
 * A whole gateway on a Sentinel-monitored Redis (one master, one replica, one sentinel, all
 * real processes on loopback): it finds the master through the sentinel, survives the
 * master's crash without a 5xx for keys it knows, then writes admin changes and counts rate
 * limits on the promoted replica.
 */
import { topologyDocument, topologyKeys, vendorStatus, writeAccessFile } from '../support/access-fixture';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { askRedis, startSentinelSetup, type SentinelSetup } from '../support/redis-sentinel';
import { within } from '../support/within';

jest.setTimeout(60_000);

const keys = topologyKeys();
const TIGHT_POINTS = 5;

async function redisUp(gateway: TestGateway): Promise<boolean> {
  const body = (await (await fetch(`${gateway.statusUrl}/health/ready`)).json()) as { redis?: { up: boolean } };
  return body.redis?.up === true;
}

describe('a gateway on Redis Sentinel', () => {
  let setup: SentinelSetup;
  let gateway: TestGateway;
  let newMaster: number;
  const keyPrefix = `sentinel${process.pid}:`;
  const rateLimitPrefix = `rl-sentinel${process.pid}`;

  beforeAll(async () => {
    setup = await startSentinelSetup();
    gateway = await startTestGateway({
      // A generous command timeout: this test is about failover, not about a busy CI machine.
      redis: { sentinels: setup.sentinels, name: setup.masterName, keyPrefix, seedAccessFile: 'always', configPollIntervalMs: 200, commandTimeoutMs: 1000 },
      // Five instances' share of the limit while Redis is away: 1. Counting 5 after the
      // failover shows the count is in Redis, not in this process.
      rateLimit: { keyPrefix: rateLimitPrefix, expectedInstances: TIGHT_POINTS },
      access: { file: writeAccessFile(topologyDocument(keys, TIGHT_POINTS)) },
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await setup?.stop();
  });

  it('keeps the access records on the master the sentinel names', async () => {
    expect(await vendorStatus(gateway.url, keys.teller)).toBe(200);
    const masterPort = await setup.masterPort();
    expect(await askRedis(masterPort, (c) => c.hexists(`${keyPrefix}{access}:keys`, 'k-spare'))).toBe(1);
  });

  it('survives the master crashing without a 5xx for known keys', async () => {
    const oldMaster = await setup.killMaster();
    const promoted: { port: number | null } = { port: null };
    const failover = setup.waitForFailover(oldMaster, 30_000).then((port) => (promoted.port = port));

    // Known keys keep working from the in-process copy while there is no master at all.
    const statuses: number[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !(promoted.port !== null && (await redisUp(gateway)))) {
      statuses.push(await vendorStatus(gateway.url, keys.teller));
      await new Promise((r) => setTimeout(r, 50));
    }
    newMaster = await failover;
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('takes admin writes on the promoted replica', async () => {
    // Retried: Sentinel may hand out the new address a moment after the health check saw Redis.
    await within(5000, async () => {
      const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/keys/k-spare`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      return res.status === 204;
    });
    await within(1000, async () => (await vendorStatus(gateway.url, keys.spare)) === 401);
    expect(JSON.parse((await askRedis(newMaster, (c) => c.hget(`${keyPrefix}{access}:keys`, 'k-spare'))) ?? '{}')).toMatchObject({ status: 'revoked' });
  });

  it('counts rate limits on the promoted replica', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < TIGHT_POINTS + 3; i++) statuses.push(await vendorStatus(gateway.url, keys.tight));
    expect(statuses).toEqual([...Array<number>(TIGHT_POINTS).fill(200), 429, 429, 429]);
    const counters = await askRedis(newMaster, (c) => c.keys(`${keyPrefix}${rateLimitPrefix}*`));
    expect(counters.some((key) => key.includes('k-tight'))).toBe(true);
  });
});
