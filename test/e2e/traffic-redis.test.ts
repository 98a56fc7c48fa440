/**
 * The gateway's own traffic counts shared through a real Redis: two gateway instances on one
 * Redis take requests, and `GET /v1/traffic` on either shows their sum; the per-minute and
 * per-hour hashes expire after 8 days.
 *
 * Loopback only; both gateways stop when the tests end.
 */
import Redis from 'ioredis';
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { within } from '../support/within';

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
