/** Jest global teardown: stops the shared Redis that global setup started and removes the run's temporary folder. */
import { rmSync } from 'node:fs';
import { TEST_TMP_VARIABLE } from './temp-dir';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__SHARED_REDIS__?.stop();
  const dir = process.env[TEST_TMP_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
