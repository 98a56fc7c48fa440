/**
 * Jest global setup: one shared real Redis for the suite (TEST_REDIS_URL for the workers),
 * unless TEST_REDIS_URL already points at one. Tests that stop Redis start their own.
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
