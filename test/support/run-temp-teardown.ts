/** Jest global teardown of every project: removes the run's temporary folder (run-temp-setup.ts). */
import { rmSync } from 'node:fs';
import { TEST_TMP_VARIABLE } from './temp-dir';

export default async function runTempTeardown(): Promise<void> {
  const dir = process.env[TEST_TMP_VARIABLE];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
