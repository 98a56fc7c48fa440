/**
 * Access documents for tests: generates real keys (so the gateway hashes and checks them as in
 * production) and writes a document to a temporary ACCESS_FILE.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../src/access/api-key';
import type { AccessDocument, ApiKeyRecord, Vendor } from '../../src/access/model';
import { testTempDir } from './temp-dir';

export interface IssuedTestKey {
  readonly secret: string;
  readonly record: ApiKeyRecord;
}

export function testKey(id: string, userId: string, extra: Partial<ApiKeyRecord> = {}): IssuedTestKey {
  const secret = generateApiKey();
  return { secret, record: { id, prefix: apiKeyPrefix(secret), hash: hashApiKey(secret), userId, status: 'active', ...extra } };
}

/** An active vendor of an access document, rate-limited to `points` a minute. */
export function testVendor(vendor: { id: string; name: string; points: number; licences: Vendor['licences']; keys: ApiKeyRecord[] }): Vendor {
  return {
    id: vendor.id,
    name: vendor.name,
    status: 'active',
    rateLimit: { points: vendor.points, durationSeconds: 60 },
    licences: vendor.licences,
    keys: vendor.keys,
  };
}

export function writeAccessFile(document: AccessDocument): string {
  const dir = testTempDir('cbg-access-');
  const file = path.join(dir, 'access.yaml');
  writeFileSync(file, stringify(document));
  return file;
}

/** Keys of the topology document: `spare` is the one a test may revoke. */
interface TopologyKeys {
  readonly teller: IssuedTestKey;
  readonly spare: IssuedTestKey;
  readonly tight: IssuedTestKey;
}

export function topologyKeys(): TopologyKeys {
  return { teller: testKey('k-teller', 'teller'), spare: testKey('k-spare', 'teller'), tight: testKey('k-tight', 'teller') };
}

/**
 * Two vendors for Redis topology tests: `acme` with a limit too high to reach (teller and
 * spare keys), and `tight` whose `tightPoints` per minute a test spends exactly.
 */
export function topologyDocument(keys: TopologyKeys, tightPoints: number): AccessDocument {
  return {
    vendors: [
      testVendor({ id: 'acme', name: 'Acme', points: 100_000, licences: [{ id: 'l', api: 'GET*' }], keys: [keys.teller.record, keys.spare.record] }),
      testVendor({ id: 'tight', name: 'Tight', points: tightPoints, licences: [{ id: 'l', api: 'GET*' }], keys: [keys.tight.record] }),
    ],
    users: [{ id: 'teller', permissions: [{ id: 'p', api: '*' }] }],
  };
}

/** The status of one vendor GET with `key`, body drained. */
export async function vendorStatus(baseUrl: string, key: IssuedTestKey, path = '/genders'): Promise<number> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { 'X-Vendor-Token': key.secret } });
  await res.arrayBuffer();
  return res.status;
}
