/**
 * Jest global setup of every project: the run's temporary folder (see temp-dir.ts), set in
 * CBG_TEST_TMP for the workers. The Redis projects add the shared Redis (global-setup.ts).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_TMP_VARIABLE } from './temp-dir';

export default async function runTempSetup(): Promise<void> {
  // Every temporary folder of the run lives under this one; run-temp-teardown.ts removes it.
  process.env[TEST_TMP_VARIABLE] = mkdtempSync(path.join(os.tmpdir(), 'cbg-test-run-'));
}
