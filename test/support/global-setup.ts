/**
 * Jest global setup of the Redis projects (component, e2e): one shared real Redis for the run
 * (TEST_REDIS_URL for the workers), unless TEST_REDIS_URL already points at one. Tests that stop
 * Redis start their own. The unit project has none (unit-without-redis.ts).
 */
import { startRedisServer, type RedisServerHandle } from './redis-server';

declare global {
  var __SHARED_REDIS__: RedisServerHandle | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_REDIS_URL) return;
  const redis = await startRedisServer();
  globalThis.__SHARED_REDIS__ = redis;
  process.env.TEST_REDIS_URL = redis.url;
}
