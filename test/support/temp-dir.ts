/**
 * Temporary folders for tests, all under one folder per test run that global setup creates
 * and global teardown removes, so a run leaves nothing behind even when a test fails midway.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The variable global setup sets for the workers: the run's own temporary folder. */
export const TEST_TMP_VARIABLE = 'CBG_TEST_TMP';

/** A fresh folder `<prefix>XXXXXX` under the run's temporary folder. */
export function testTempDir(prefix: string): string {
  return mkdtempSync(path.join(process.env[TEST_TMP_VARIABLE] ?? os.tmpdir(), prefix));
}
