/**
 * Jest global setup: one shared real Redis for the suite (TEST_REDIS_URL for the workers),
 * unless TEST_REDIS_URL already points at one. Tests that stop Redis start their own. Also the
 * run's temporary folder (see temp-dir.ts).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedisServer, type RedisServerHandle } from './redis-server';
import { TEST_TMP_VARIABLE } from './temp-dir';

declare global {
  var __SHARED_REDIS__: RedisServerHandle | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Every temporary folder of the run lives under this one; global teardown removes it.
  process.env[TEST_TMP_VARIABLE] = mkdtempSync(path.join(os.tmpdir(), 'cbg-test-run-'));
  if (process.env.TEST_REDIS_URL) return;
  const redis = await startRedisServer();
  globalThis.__SHARED_REDIS__ = redis;
  process.env.TEST_REDIS_URL = redis.url;
}
