/**
 * gatewayctl `portal-users` against the admin app in this process (memory store): an invitation
 * prints the `cbp_` token once with its warning, the list shows its prefix and never the token, a
 * new token replaces it, removal empties the list; JSON with --json; bad input names the field;
 * with approvals required an invitation is filed, a removal applies at once.
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import path from 'node:path';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback } from '../../test/support/listen';
import { MemoryAccessStore, readAccessFile } from '../access/access-store';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { createAdminApp } from '../admin/admin-app';
import { AdminDirectory } from '../admin/operations/admin-directory';
import { PortalUsers } from '../admin/operations/portal-users';
import { Proposals } from '../admin/operations/proposals';
import { createLogger } from '../logging/logger';
import { runGatewayctl } from './gatewayctl';

const TOKEN = 'cli-test-admin-token-abcdef';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');
const PORTAL_TOKEN = /cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('gatewayctl portal-users', () => {
  let server: http.Server;
  let env: Record<string, string>;

  async function ctl(...argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runGatewayctl(argv, {
      env,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  }

  beforeEach(async () => {
    const audit = new MemoryAuditLog();
    const service = accessServiceFor(new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit }));
    const portalUsers = new PortalUsers(service.writer, { tokenTtlDays: 90 });
    const app = createAdminApp({ service, admins: new AdminDirectory(service.writer), portalUsers, audit, adminToken: TOKEN, logger: createLogger('silent') });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { GATEWAY_ADMIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ADMIN_TOKEN: TOKEN };
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it('invites a portal user and prints the token once with a warning, lists its prefix only, issues a new token and removes the user', async () => {
    const invited = await ctl('portal-users', 'invite', 'demo-vendor', '--email', 'dev@demo.example', '--name', 'Dana Dev');
    expect(invited).toMatchObject({ code: 0, stderr: '' });
    const tokens = invited.stdout.match(PORTAL_TOKEN) ?? [];
    expect(tokens).toHaveLength(1);
    const token = tokens[0] as string;
    const id = /Invited portal user (pu-[0-9a-f]{12}) \(Dana Dev <dev@demo\.example>\) to vendor demo-vendor\./.exec(invited.stdout)?.[1] as string;
    expect(id).toBeDefined();
    expect(invited.stdout).toContain('shown this once and never again');
    expect(invited.stdout).toContain('/portal/');

    const listed = await ctl('portal-users', 'list', 'demo-vendor');
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+EMAIL\s+TOKEN PREFIX\s+TOKEN EXPIRES\s+CREATED\s+CREATED BY\n/);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+Dana Dev\\s+dev@demo\\.example\\s+${token.slice(0, 12)}\\s`));
    expect(listed.stdout).not.toContain(token);

    const reissued = await ctl('portal-users', 'new-token', 'demo-vendor', id);
    expect(reissued.code).toBe(0);
    const [next] = reissued.stdout.match(PORTAL_TOKEN) ?? [];
    expect(next).toBeDefined();
    expect(next).not.toBe(token);
    expect(reissued.stdout).toContain('the old one no longer signs in');
    expect((await ctl('portal-users', 'list', 'demo-vendor')).stdout).toContain((next as string).slice(0, 12));

    expect(await ctl('portal-users', 'remove', 'demo-vendor', id)).toEqual({
      code: 0,
      stdout: `Removed portal user ${id} of vendor demo-vendor.\n`,
      stderr: '',
    });
    expect((await ctl('portal-users', 'list', 'demo-vendor')).stdout.trim().split('\n')).toHaveLength(1);

    const entries = (await ctl('--json', 'audit')).stdout;
    for (const action of ['portal_user.invite', 'portal_user.token', 'portal_user.remove']) expect(entries).toContain(action);
    expect(entries).not.toContain(token);
    expect(entries).not.toContain(next);
  });

  it('prints JSON with --json, the token only in the answers that make one', async () => {
    const invited = JSON.parse((await ctl('--json', 'portal-users', 'invite', 'demo-vendor', '--email', 'ops@demo.example', '--name', 'Ops')).stdout) as {
      id: string;
      token: string;
      tokenPrefix: string;
      vendorId: string;
    };
    expect(invited).toMatchObject({ vendorId: 'demo-vendor', tokenPrefix: invited.token.slice(0, 12) });
    expect(invited.token).toMatch(/^cbp_/);

    const list = JSON.parse((await ctl('portal-users', 'list', 'demo-vendor', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(list.map((u) => u.id)).toEqual([invited.id]);
    expect(list[0]).not.toHaveProperty('token');
    expect(list[0]).not.toHaveProperty('tokenHash');

    const reissued = JSON.parse((await ctl('--json', 'portal-users', 'new-token', 'demo-vendor', invited.id)).stdout) as { token: string };
    expect(reissued.token).toMatch(/^cbp_/);
    expect(JSON.parse((await ctl('--json', 'portal-users', 'remove', 'demo-vendor', invited.id)).stdout)).toEqual({ removed: invited.id });
  });

  it('fails with exit 1 naming the bad field, an unknown vendor or portal user, and a missing option', async () => {
    const bad = await ctl('portal-users', 'invite', 'demo-vendor', '--email', 'not-an-address', '--name', 'Dana');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .+\n {2}email: .+\n/);
    expect(bad.stdout).toBe('');

    const unknownVendor = await ctl('portal-users', 'list', 'no-such-vendor');
    expect(unknownVendor.code).toBe(1);
    expect(unknownVendor.stderr).toMatch(/^error: /);
    // Another vendor's portal user is as unknown as one that never was.
    const elsewhere = JSON.parse((await ctl('--json', 'portal-users', 'invite', 'readonly-partner', '--email', 'r@p.example', '--name', 'R')).stdout) as {
      id: string;
    };
    expect((await ctl('portal-users', 'remove', 'demo-vendor', elsewhere.id)).code).toBe(1);
    expect((await ctl('portal-users', 'new-token', 'demo-vendor', elsewhere.id)).code).toBe(1);

    const missing = await ctl('portal-users', 'invite', 'demo-vendor', '--email', 'dev@demo.example');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("required option '--name <name>' not specified");
  });

  it('with approvals required, files an invitation and a new token for approval (no token printed) and removes at once', async () => {
    const approvalAudit = new MemoryAuditLog();
    const service = accessServiceFor(new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit: approvalAudit }));
    const admins = new AdminDirectory(service.writer);
    const portalUsers = new PortalUsers(service.writer, { tokenTtlDays: 90 });
    const deps = { service, admins, portalUsers, audit: approvalAudit, adminToken: TOKEN, logger: createLogger('silent') };
    // One portal user invited before four eyes were turned on, on the same store.
    const before = await listenOnLoopback(createAdminApp(deps));
    env = { GATEWAY_ADMIN_URL: before.url, ADMIN_TOKEN: TOKEN };
    const { id } = JSON.parse((await ctl('--json', 'portal-users', 'invite', 'demo-vendor', '--email', 'early@demo.example', '--name', 'Early')).stdout) as {
      id: string;
    };
    await before.close();
    const approving = await listenOnLoopback(
      createAdminApp({ ...deps, proposals: new Proposals(service, { approvals: 'required', changeTtlHours: 72 }, admins, portalUsers) }),
    );
    try {
      env = { GATEWAY_ADMIN_URL: approving.url, ADMIN_TOKEN: TOKEN };
      const filed = await ctl('portal-users', 'invite', 'demo-vendor', '--email', 'dev@demo.example', '--name', 'Dana Dev');
      expect(filed.code).toBe(0);
      expect(filed.stdout).toMatch(
        /^Filed for approval as change chg-[0-9a-f]+ \(portal_user\.invite vendors\/demo-vendor\/portal-users\S*\); it applies once another admin approves it\.\n$/,
      );
      const reissue = await ctl('portal-users', 'new-token', 'demo-vendor', id);
      expect(reissue.stdout).toMatch(/^Filed for approval as change chg-[0-9a-f]+ \(portal_user\.token /);
      expect(filed.stdout + reissue.stdout).not.toMatch(PORTAL_TOKEN);
      expect((JSON.parse((await ctl('--json', 'portal-users', 'list', 'demo-vendor')).stdout) as Array<{ id: string }>).map((u) => u.id)).toEqual([id]);

      expect((await ctl('portal-users', 'remove', 'demo-vendor', id)).stdout).toBe(`Removed portal user ${id} of vendor demo-vendor.\n`);
      expect((await ctl('--json', 'portal-users', 'list', 'demo-vendor')).stdout.trim()).toBe('[]');
    } finally {
      await approving.close();
    }
  });
});
