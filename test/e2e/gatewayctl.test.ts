/**
 * gatewayctl end to end against a running gateway (sandbox core, Redis mode): apply a file,
 * issue a key, call the vendor API with it, revoke it, see 401; delete a vendor and see its key
 * stop working; invite a vendor portal user whose token signs in to the portal until a new token
 * replaces it or the user is removed; and the built CLI (dist/, as installed) ending quietly when
 * its reader closes the pipe early (`gatewayctl audit export | head -1`).
 */
import { spawn } from 'node:child_process';
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

  it('deletes a vendor, saying what went with it, and its key stops working', async () => {
    const file = path.join(testTempDir('cbg-ctl-'), 'access.yaml');
    writeFileSync(
      file,
      stringify({
        vendors: [{ id: 'doomed', name: 'Doomed Ltd', licences: [{ api: 'GET*' }] }],
        users: [{ id: 'doomed.app', permissions: [{ api: 'GET*' }] }],
      }),
    );
    expect((await ctl(gateway, 'apply', '-f', file, '--prune')).code).toBe(0);
    const { secret } = JSON.parse((await ctl(gateway, '--json', 'keys', 'issue', 'doomed', '--user', 'doomed.app')).stdout) as { secret: string };
    const call = () => fetch(`${gateway.url}/accounts/50001`, { headers: { 'X-Vendor-Token': secret } });
    await within(1000, async () => (await call()).status === 200);

    const deleted = await ctl(gateway, 'vendors', 'delete', 'doomed');
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted vendor doomed (Doomed Ltd) with 1 licence and 1 key (1 active).\n' });
    await within(1000, async () => (await call()).status === 401);
  });

  it('invites a portal user whose token signs in to the portal, replaces it with a new token, and removes the user to a 401', async () => {
    expect((await ctl(gateway, 'vendors', 'create', 'portalco', '--name', 'Portal Co')).code).toBe(0);
    const signIn = async (token: string): Promise<number> => {
      const res = await fetch(`${gateway.url}/portal/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-requested-by': 'cbg-portal-ui' },
        body: JSON.stringify({ token }),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const invited = await ctl(gateway, 'portal-users', 'invite', 'portalco', '--email', 'dev@portalco.example', '--name', 'Pat Dev');
    expect(invited.code).toBe(0);
    const [token] = invited.stdout.match(/cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g) ?? [];
    const id = /Invited portal user (pu-[0-9a-f]{12})/.exec(invited.stdout)?.[1] as string;
    expect(await signIn(token as string)).toBe(200);

    const { token: next } = JSON.parse((await ctl(gateway, '--json', 'portal-users', 'new-token', 'portalco', id)).stdout) as { token: string };
    expect(await signIn(token as string)).toBe(401);
    expect(await signIn(next)).toBe(200);

    expect((await ctl(gateway, 'portal-users', 'remove', 'portalco', id)).code).toBe(0);
    expect(await signIn(next)).toBe(401);
    const audit = (await ctl(gateway, '--json', 'audit', '--vendor', 'portalco')).stdout;
    for (const action of ['portal_user.invite', 'portal_user.token', 'portal_user.remove']) expect(audit).toContain(action);
    expect(audit).not.toContain(token);
    expect(audit).not.toContain(next);
  });

  it('ends quietly with exit 0 when its reader closes the pipe after the first line (audit export | head -1)', async () => {
    // Enough audit entries that the export outgrows a pipe's buffer (64 KiB): the CLI is still
    // writing when the reader goes.
    const admin = (body: unknown) =>
      fetch(`http://127.0.0.1:${gateway.adminPort}/v1/vendors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => admin({ id: `pipe-${batch}-${i}`, name: `Pipe vendor ${'x'.repeat(180)}` })));
    }
    const child = spawn(process.execPath, [path.join(__dirname, '../../dist/cli/gatewayctl.js'), 'audit', 'export', '--since', '2000-01-01'], {
      env: { PATH: process.env.PATH ?? '', GATEWAY_ADMIN_URL: `http://127.0.0.1:${gateway.adminPort}`, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const firstLine = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        // `head -1`: the first line read, the pipe closed with the rest unread.
        if (text.includes('\n')) {
          child.stdout.destroy();
          resolve(text.slice(0, text.indexOf('\n')));
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(JSON.parse(firstLine)).toEqual(expect.any(Object));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('applies a hand-written file without licence and permission ids, and its export applies back to the same bytes', async () => {
    const dir = testTempDir('cbg-ctl-');
    const file = path.join(dir, 'hand.yaml');
    writeFileSync(
      file,
      stringify({
        vendors: [{ id: 'hand', name: 'Hand Ltd', licences: [{ api: 'GET*' }] }],
        users: [{ id: 'hand.app', permissions: [{ api: 'GETaccounts*' }] }],
      }),
    );
    expect((await ctl(gateway, 'apply', '-f', file, '--prune')).code).toBe(0);
    const first = await ctl(gateway, 'export');
    expect(first.stdout).toMatch(/id: lic-[0-9a-f]{12}\n/);
    const exported = path.join(dir, 'exported.yaml');
    writeFileSync(exported, first.stdout);
    expect((await ctl(gateway, 'apply', '-f', exported)).stdout).toContain('No changes.');
    expect((await ctl(gateway, 'apply', '-f', file)).stdout).toContain('No changes.');
    expect((await ctl(gateway, 'export')).stdout).toBe(first.stdout);
  });

  it('exits non-zero with the problem message on failure', async () => {
    const result = await ctl(gateway, 'keys', 'revoke', 'no-such-key');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no-such-key|not found/i);
  });
});
