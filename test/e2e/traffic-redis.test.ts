/**
 * The gateway's own traffic counts shared through a real Redis: two gateway instances on one
 * Redis take requests, and `GET /v1/traffic` on either shows their sum; the per-minute and
 * per-hour hashes expire after 8 days. With Redis down, requests are answered without waiting for
 * the counts, which reach Redis once it is back.
 *
 * Loopback only; both gateways stop when the tests end.
 */
import Redis from 'ioredis';
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { within } from '../support/within';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { testTempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const REDIS_URL = process.env.TEST_REDIS_URL as string;
const EIGHT_DAYS = 8 * 24 * 3600;

interface TrafficBody {
  source: string;
  note: string;
  series: Array<{ vendorId: string; apiId: string; statusClass: string; points: Array<[number, number]> }>;
}

async function traffic(gateway: TestGateway, query: string): Promise<TrafficBody> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/traffic?${query}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as TrafficBody;
}

async function send(gateway: TestGateway, key: string | null, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    const res = await fetch(`${gateway.url}/genders`, { headers: key ? { 'X-Vendor-Token': key } : {} });
    await res.arrayBuffer();
  }
}

const totals = (body: TrafficBody): Record<string, number> =>
  Object.fromEntries(body.series.map((s) => [`${s.vendorId} ${s.apiId} ${s.statusClass}`, s.points.reduce((sum, [, n]) => sum + n, 0)]));

describe('the gateway’s own traffic counts in Redis', () => {
  const keyPrefix = `traffic${process.pid}:`;
  let one: TestGateway;
  let two: TestGateway;
  let redis: Redis;

  beforeAll(async () => {
    const config = { redis: { url: REDIS_URL, keyPrefix, seedAccessFile: 'always' as const } };
    one = await startTestGateway(config);
    two = await startTestGateway(config);
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await redis?.quit();
  });

  it('adds up the requests of every instance sharing the Redis', async () => {
    await send(one, SANDBOX_KEYS.demo, 4);
    await send(two, SANDBOX_KEYS.demo, 3);
    await send(two, null, 2);
    const expected = { 'demo-vendor GETgenders 2xx': 7, 'anonymous GETgenders 4xx': 2 };
    // The other instance's counts arrive with its next flush (every 5 s).
    await within(15_000, async () => {
      const seen = totals(await traffic(one, 'range=1h'));
      return seen['demo-vendor GETgenders 2xx'] === 7 && seen['anonymous GETgenders 4xx'] === 2;
    });
    const fromOne = await traffic(one, 'range=1h');
    expect(fromOne.source).toBe('gateway');
    expect(fromOne.note).toContain('every instance sharing this Redis');
    expect(totals(fromOne)).toEqual(expected);
    expect(totals(await traffic(two, 'range=24h'))).toEqual(expected);
    // Seven days are read from the hourly hashes.
    expect(totals(await traffic(two, 'range=7d&vendor=demo-vendor'))).toEqual({ 'demo-vendor GETgenders 2xx': 7 });
    // by=class: one series per status class over every vendor and API id, each point a sum.
    const summed = await traffic(one, 'range=1h&by=class');
    expect(totals(summed)).toEqual({ '* * 2xx': 7, '* * 4xx': 2 });
    expect(summed.series.map((s) => s.points.length)).toEqual([60, 60]);
  });

  it('keeps each minute and hour for 8 days in one hash-tag slot', async () => {
    const keys = await redis.keys(`${keyPrefix}{traffic}:*`);
    const minutes = keys.filter((k) => k.includes('{traffic}:m:'));
    const hours = keys.filter((k) => k.includes('{traffic}:h:'));
    expect(minutes.length).toBeGreaterThan(0);
    expect(hours.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(EIGHT_DAYS - 60);
      expect(ttl).toBeLessThanOrEqual(EIGHT_DAYS);
    }
    const minute = minutes.sort().at(-1) as string;
    expect(await redis.hgetall(minute)).toMatchObject({ 'demo-vendor GETgenders 2xx': expect.stringMatching(/^\d+$/) });
  });
});

describe('the traffic counts while Redis is down', () => {
  let server: RedisServerHandle;
  let gateway: TestGateway;
  let redis: Redis;
  const keyPrefix = `trafficdown${process.pid}:`;

  /** Every request counted in the Redis minute hashes, whatever its class. */
  async function countedInRedis(): Promise<number> {
    let sum = 0;
    for (const key of await redis.keys(`${keyPrefix}{traffic}:m:*`)) {
      for (const n of Object.values(await redis.hgetall(key))) sum += Number(n);
    }
    return sum;
  }

  beforeAll(async () => {
    server = await startRedisServer({ dir: testTempDir('traffic-redis-') });
    gateway = await startTestGateway({ redis: { url: server.url, keyPrefix, seedAccessFile: 'always' } });
    redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    redis?.disconnect();
    await gateway?.stop().catch(() => undefined);
    await server?.stop(true);
  });

  it('answers requests without waiting for the counts, and saves them when Redis is back', async () => {
    await redis.connect();
    await send(gateway, SANDBOX_KEYS.demo, 2);
    await within(15_000, async () => (await countedInRedis()) === 2);
    await redis.save();
    redis.disconnect();
    await server.stop(true);

    for (let i = 0; i < 3; i += 1) {
      const started = Date.now();
      const res = await fetch(`${gateway.url}/genders`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
      await res.arrayBuffer();
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // Two flushes fail meanwhile; the process carries on.
    await new Promise((r) => setTimeout(r, 11_000));

    await server.start();
    await redis.connect();
    await within(30_000, async () => (await countedInRedis()) === 5);
  }, 90_000);
});
