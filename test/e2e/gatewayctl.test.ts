/**
 * gatewayctl end to end against a running gateway (sandbox core, Redis mode): apply a file,
 * issue a key, call the vendor API with it, revoke it, see 401.
 */
import { stringify } from 'yaml';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runGatewayctl } from '../../src/cli/gatewayctl';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { within } from '../support/within';
import { testTempDir } from '../support/temp-dir';

async function ctl(gateway: TestGateway, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runGatewayctl(argv, {
    env: { GATEWAY_ADMIN_URL: `http://127.0.0.1:${gateway.adminPort}`, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

describe('gatewayctl against a running gateway', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix: `ctl${process.pid}:`, seedAccessFile: 'never' } });
  });
  afterAll(() => gateway.stop());

  it('applies a file, issues a key that works on the vendor API, and revokes it to a 401', async () => {
    const file = path.join(testTempDir('cbg-ctl-'), 'access.yaml');
    writeFileSync(
      file,
      stringify({
        vendors: [{ id: 'fintech', name: 'Fintech Ltd', licences: [{ id: 'l-read', api: 'GET*' }] }],
        users: [{ id: 'fintech.app', permissions: [{ id: 'p-read', api: 'GETaccounts*' }] }],
      }),
    );
    const dryRun = await ctl(gateway, 'apply', '-f', file, '--dry-run');
    expect(dryRun.code).toBe(0);
    expect((await ctl(gateway, '--json', 'vendors', 'list')).stdout.trim()).toBe('[]');

    expect((await ctl(gateway, 'apply', '-f', file)).code).toBe(0);
    const issued = await ctl(gateway, '--json', 'keys', 'issue', 'fintech', '--user', 'fintech.app');
    expect(issued.code).toBe(0);
    const { secret, id } = JSON.parse(issued.stdout) as { secret: string; id: string };
    expect(secret).toMatch(/^cbk_/);

    const call = () => fetch(`${gateway.url}/accounts/50001`, { headers: { 'X-Vendor-Token': secret } });
    await within(1000, async () => (await call()).status === 200);

    expect((await ctl(gateway, 'keys', 'revoke', id)).code).toBe(0);
    await within(1000, async () => (await call()).status === 401);
    const audit = await ctl(gateway, '--json', 'audit');
    expect(audit.stdout).not.toContain(secret);
  });

  it('exits non-zero with the problem message on failure', async () => {
    const result = await ctl(gateway, 'keys', 'revoke', 'no-such-key');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no-such-key|not found/i);
  });
});
