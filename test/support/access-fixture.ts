/**
 * Access documents for tests: generates real keys (so the gateway hashes and checks them as in
 * production) and writes a document to a temporary ACCESS_FILE.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../src/access/api-key';
import type { AccessDocument, ApiKeyRecord } from '../../src/access/model';

export interface IssuedTestKey {
  readonly secret: string;
  readonly record: ApiKeyRecord;
}

export function testKey(id: string, userId: string, extra: Partial<ApiKeyRecord> = {}): IssuedTestKey {
  const secret = generateApiKey();
  return { secret, record: { id, prefix: apiKeyPrefix(secret), hash: hashApiKey(secret), userId, status: 'active', ...extra } };
}

export function writeAccessFile(document: AccessDocument): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cbg-access-'));
  const file = path.join(dir, 'access.yaml');
  writeFileSync(file, stringify(document));
  return file;
}
