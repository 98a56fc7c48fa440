/**
 * The access config in Redis outlives the staging lifetime of every whole-document write, and a
 * store whose records vanished is never served as if it were whole — through whole gateways on
 * a real Redis, with `redis.accessStageTtlMs` shortened so the tests outwait it:
 * - a seeded store, an uploaded document (PUT /v1/access, large enough to be staged) and a file
 *   applied with gatewayctl each keep every live record, with no expiry, and a gateway started
 *   after the staging lifetime serves them;
 * - a gateway started on a store whose records vanished is not ready and says why, while one
 *   that still serves a good copy keeps answering vendors; admin changes answer 503 naming the
 *   problem, and the metrics report it.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { runGatewayctl } from '../../src/cli/gatewayctl';
import { testKey, type IssuedTestKey } from '../support/access-fixture';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { testTempDir } from '../support/temp-dir';
import { within } from '../support/within';
import type { AccessDocument } from '../../src/access/model';

const REDIS_URL = process.env.TEST_REDIS_URL as string;
const STAGE_TTL_MS = 300;
/** Above the admin service's bulk threshold (1,000 operations), so the write is staged and swapped. */
const STAGED_KEYS = 1_100;

const gateways: TestGateway[] = [];
let raw: Redis;
let prefixCounter = 0;

function uniquePrefix(): string {
  prefixCounter += 1;
  return `integrity-e2e:${process.pid}:${prefixCounter}:`;
}

async function gatewayOn(keyPrefix: string, seed: 'always' | 'never' = 'never'): Promise<TestGateway> {
  const gateway = await startTestGateway({
    redis: { url: REDIS_URL, keyPrefix, seedAccessFile: seed, accessStageTtlMs: STAGE_TTL_MS, configPollIntervalMs: 100 },
  });
  gateways.push(gateway);
  return gateway;
}

async function stopGateway(gateway: TestGateway): Promise<void> {
  gateways.splice(gateways.indexOf(gateway), 1);
  await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 100 });
}

/** One vendor with many keys: `first` is a key the test calls with. */
function largeDocument(): { document: AccessDocument; first: IssuedTestKey } {
  const first = testKey('k-0', 'teller');
  const keys = [first.record, ...Array.from({ length: STAGED_KEYS - 1 }, (_, i) => testKey(`k-${i + 1}`, 'teller').record)];
  return {
    first,
    document: {
      vendors: [{ id: 'fintech', name: 'Fintech Ltd', status: 'active', licences: [{ id: 'l-read', api: 'GET*' }], keys }],
      users: [{ id: 'teller', permissions: [{ id: 'p-read', api: 'GET*' }] }],
    } as AccessDocument,
  };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function expiringKeys(keyPrefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of ['version', 'vendors', 'keys', 'users', 'keyhash', 'admins', 'pending', 'manifest']) {
    const key = `${keyPrefix}{access}:${name}`;
    if ((await raw.pttl(key)) > 0) found.push(key);
  }
  return found;
}

async function vendorStatus(gateway: TestGateway, key: string): Promise<number> {
  const res = await fetch(`${gateway.url}/genders`, { headers: { 'X-Vendor-Token': key } });
  await res.arrayBuffer();
  return res.status;
}

async function readiness(gateway: TestGateway): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.statusUrl}/health/ready`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function metric(gateway: TestGateway, line: string): Promise<boolean> {
  const text = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
  return text.split('\n').includes(line);
}

beforeAll(() => {
  raw = new Redis(REDIS_URL);
});

afterAll(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 100 });
  raw.disconnect();
});

describe('whole-document writes keep the live access records for good', () => {
  it('a seeded store keeps its records past the staging lifetime, and a gateway started later serves them', async () => {
    const prefix = uniquePrefix();
    const seeding = await gatewayOn(prefix, 'always');
    await stopGateway(seeding);
    await pause(STAGE_TTL_MS * 2);
    expect(await expiringKeys(prefix)).toEqual([]);
    const later = await gatewayOn(prefix);
    expect(await vendorStatus(later, SANDBOX_KEYS.demo)).toBe(200);
    expect((await readiness(later)).status).toBe(200);
  });

  it('an uploaded document (PUT /v1/access, staged) keeps its records past the staging lifetime', async () => {
    const prefix = uniquePrefix();
    const writer = await gatewayOn(prefix);
    const { document, first } = largeDocument();
    const res = await fetch(`http://127.0.0.1:${writer.adminPort}/v1/access`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(document),
    });
    expect(res.status).toBe(200);
    await pause(STAGE_TTL_MS * 2);
    expect(await expiringKeys(prefix)).toEqual([]);
    expect(await raw.hlen(`${prefix}{access}:keys`)).toBe(STAGED_KEYS);
    const later = await gatewayOn(prefix);
    expect(await vendorStatus(later, first.secret)).toBe(200);
  });

  it('a file applied with gatewayctl keeps its records past the staging lifetime', async () => {
    const prefix = uniquePrefix();
    const writer = await gatewayOn(prefix);
    const { document, first } = largeDocument();
    const file = path.join(testTempDir('cbg-integrity-'), 'access.yaml');
    writeFileSync(file, stringify(document));
    let stderr = '';
    const code = await runGatewayctl(['apply', '-f', file], {
      env: { GATEWAY_ADMIN_URL: `http://127.0.0.1:${writer.adminPort}`, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      stdout: { write: () => undefined },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    await pause(STAGE_TTL_MS * 2);
    expect(await expiringKeys(prefix)).toEqual([]);
    await stopGateway(writer);
    const later = await gatewayOn(prefix);
    expect(await vendorStatus(later, first.secret)).toBe(200);
  });
});

describe('a store whose records vanished while its version stayed', () => {
  it('leaves a gateway started on it not ready, saying why, while one with a good copy keeps serving', async () => {
    const prefix = uniquePrefix();
    const serving = await gatewayOn(prefix, 'always');
    expect(await vendorStatus(serving, SANDBOX_KEYS.demo)).toBe(200);
    await raw.del(...['vendors', 'keys', 'users', 'keyhash'].map((name) => `${prefix}{access}:${name}`));

    const started = await gatewayOn(prefix);
    const ready = await readiness(started);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready', accessConfig: { loaded: false } });
    expect(ready.body.reason).toMatch(/^the access config in Redis is inconsistent: version 1 has lost records \(vendors 0 of \d+, keys 0 of \d+/);
    expect(await metric(started, 'gateway_access_config_inconsistent 1')).toBe(true);

    // The instance that loaded before the loss finds it at its next version check and keeps serving.
    await within(2000, () => metric(serving, 'gateway_access_config_inconsistent 1'));
    expect(await metric(serving, 'gateway_access_config_inconsistencies_total 1')).toBe(true);
    expect(await vendorStatus(serving, SANDBOX_KEYS.demo)).toBe(200);
    expect(await readiness(serving)).toMatchObject({
      status: 200,
      body: { accessConfig: { loaded: true, problem: expect.stringContaining('has lost records') as unknown } },
    });

    // Admin changes answer 503 naming the problem, on both instances, instead of retrying into a 409.
    for (const gateway of [serving, started]) {
      const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/vendors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'initech', name: 'Initech', licences: [] }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'store_unavailable', detail: expect.stringContaining('version 1 has lost records') as unknown });
    }

    // The mend: the serving instance's own document written whole; the other then loads it.
    const exported = await fetch(`http://127.0.0.1:${serving.adminPort}/v1/access`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, accept: 'application/json' },
    });
    const put = await fetch(`http://127.0.0.1:${serving.adminPort}/v1/access`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: await exported.text(),
    });
    expect(put.status).toBe(200);
    await within(3000, async () => (await readiness(started)).status === 200);
    expect(await vendorStatus(started, SANDBOX_KEYS.demo)).toBe(200);
    expect(await metric(started, 'gateway_access_config_inconsistent 0')).toBe(true);
    expect(await metric(serving, 'gateway_access_config_records{kind="vendor"} 2')).toBe(true);
  });
});
