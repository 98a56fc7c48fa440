import { Redis } from 'ioredis';
import { MemoryOneTimeValues, RedisOneTimeValues, type OneTimeValues } from './one-time-values';

const redisUrl = process.env.TEST_REDIS_URL as string;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl, { lazyConnect: false });
});
afterAll(async () => {
  await redis.quit();
});

describe.each([
  ['memory', (): OneTimeValues => new MemoryOneTimeValues()],
  ['Redis', (): OneTimeValues => new RedisOneTimeValues(redis, `one-time-test-${process.pid}-${Date.now()}:`)],
])('one-time values in %s', (_name, make) => {
  it('gives a value back once, then nothing', async () => {
    const values = make();
    await values.put('handoff-1', '{"adminId":"oidc:a"}', 60);
    expect(await values.take('handoff-1')).toBe('{"adminId":"oidc:a"}');
    expect(await values.take('handoff-1')).toBeNull();
    expect(await values.take('never-put')).toBeNull();
  });

  it('lets a key be claimed once while it lasts', async () => {
    const values = make();
    expect(await values.claim('state-1', 60)).toBe(true);
    expect(await values.claim('state-1', 60)).toBe(false);
    expect(await values.claim('state-2', 60)).toBe(true);
  });
});

it('forgets a value in memory once it expired', async () => {
  let now = 1_000;
  const values = new MemoryOneTimeValues(() => now);
  await values.put('k', 'v', 60);
  expect(await values.claim('c', 60)).toBe(true);
  now += 60_000;
  expect(await values.take('k')).toBeNull();
  expect(await values.claim('c', 60)).toBe(true);
});
