import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { accessServiceFor, storedForm } from '../../test/support/access-service';
import { AdminDirectory } from '../admin/operations/admin-directory';
import { MemoryAccessStore, readAccessFile, readDocument } from '../access/access-store';
import { createAdminApp } from '../admin/admin-app';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { createLogger } from '../logging/logger';
import { freePort } from '../../test/support/free-port';
import { runGatewayctl } from './gatewayctl';
import { Proposals } from '../admin/operations/proposals';
import { listenOnLoopback } from '../../test/support/listen';
import type { AccessDocument } from '../access/model';
import { testTempDir } from '../../test/support/temp-dir';

const TOKEN = 'cli-test-admin-token-abcdef';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('gatewayctl', () => {
  let server: http.Server;
  let store: MemoryAccessStore;
  let env: Record<string, string>;
  let dir: string;

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
    store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
    const service = accessServiceFor(store);
    const app = createAdminApp({ service, admins: new AdminDirectory(service.writer), audit, adminToken: TOKEN, logger: createLogger('silent') });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { GATEWAY_ADMIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ADMIN_TOKEN: TOKEN };
    dir = testTempDir('gatewayctl-');
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  function accessFileWithAcme(extension: 'yaml' | 'json'): string {
    const document = readAccessFile(SANDBOX_ACCESS);
    document.vendors.push({ id: 'acme', name: 'Acme', status: 'active', licences: [{ id: 'lic-acme', api: 'GET*' }], keys: [] });
    document.vendors[1]!.status = 'suspended';
    const file = path.join(dir, `access.${extension}`);
    writeFileSync(file, extension === 'json' ? JSON.stringify(document) : toYaml(document));
    return file;
  }

  it('shows what apply --dry-run would change and changes nothing', async () => {
    const run = await ctl('apply', '-f', accessFileWithAcme('yaml'), '--dry-run');

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Dry run against version 1; nothing applied.');
    expect(run.stdout).toContain('+ vendor acme');
    expect(run.stdout).toContain('~ vendor readonly-partner');
    expect(run.stdout).toContain('status: active -> suspended');
    expect((await readDocument(store)).version).toBe(1);
  });

  it('applies a YAML or JSON file, and says so when it is already in force', async () => {
    const applied = await ctl('apply', '-f', accessFileWithAcme('yaml'));
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied; the access document is now version 2.');
    expect((await readDocument(store)).document.vendors.map((v) => v.id)).toEqual(['acme', 'demo-vendor', 'readonly-partner']);

    const again = await ctl('apply', '-f', accessFileWithAcme('json'));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Already in force at version 2; nothing applied.\nNo changes.');
  });

  it('exports the live document as YAML that apply takes back unchanged, or as JSON', async () => {
    const exported = await ctl('export');
    expect(exported.code).toBe(0);
    expect(parseYaml(exported.stdout)).toEqual(JSON.parse(JSON.stringify(storedForm(readAccessFile(SANDBOX_ACCESS)))));

    const file = path.join(dir, 'exported.yaml');
    writeFileSync(file, exported.stdout);
    expect((await ctl('apply', '-f', file, '--dry-run')).stdout).toContain('No changes.');

    const json = await ctl('export', '--json');
    expect(JSON.parse(json.stdout)).toEqual(parseYaml(exported.stdout));
  });

  it('creates an admin and prints its enrolment code (never a token), which enrol redeems for the admin’s own token; rotates one’s own token, revokes another’s and deletes', async () => {
    const created = await ctl('admins', 'create', 'Otto Operator', '--role', 'operator', '--id', 'otto');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created admin otto (Otto Operator, operator).');
    expect(created.stdout).not.toMatch(/cba_/);
    const code = created.stdout.match(/cbe_[A-Za-z0-9_-]{27}/)?.[0] as string;
    expect(code).toMatch(/^cbe_/);

    // The new admin redeems the code with no ADMIN_TOKEN of their own.
    const { ADMIN_TOKEN: _owner, ...noToken } = env;
    const ownerEnv = env;
    env = noToken;
    const enrolled = await ctl('admins', 'enrol', code);
    env = ownerEnv;
    expect(enrolled.code).toBe(0);
    const token = enrolled.stdout.match(/cba_[A-Za-z0-9_-]{32}/)?.[0] as string;
    expect(token).toMatch(/^cba_/);

    const listed = await ctl('admins', 'list');
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+ROLE\s+SIGNS IN WITH\s+STATUS/);
    expect(listed.stdout).toMatch(/otto\s+Otto Operator\s+operator\s+token\s+active/);
    expect(listed.stdout).not.toContain(token);

    env = { ...ownerEnv, ADMIN_TOKEN: token };
    const rotated = await ctl('admins', 'rotate');
    env = ownerEnv;
    expect(rotated.stdout).toMatch(/New token for admin otto, shown this once:\ncba_/);
    const revoked = await ctl('admins', 'revoke', 'otto');
    expect(revoked.stdout).toBe('Revoked the token of admin otto.\n');
    expect(revoked.stdout).not.toMatch(/cba_/);
    expect(await ctl('admins', 'delete', 'otto')).toMatchObject({ code: 0, stdout: 'Deleted admin otto.\n' });
    expect((await ctl('admins', 'list', '--json')).stdout.trim()).toBe('[]');
  });

  it('applies at the version its own dry run read (If-Match), and refuses a stale --if-match', async () => {
    const ifMatch: Array<string | undefined> = [];
    server.on('request', (req: http.IncomingMessage) => {
      if (req.method === 'PUT') ifMatch.push(req.headers['if-match']);
    });
    const { version } = await readDocument(store);
    expect((await ctl('apply', '-f', accessFileWithAcme('yaml'))).code).toBe(0);
    expect(ifMatch).toEqual([undefined, `"${version}"`]);

    const stale = await ctl('apply', '-f', accessFileWithAcme('json'), '--if-match', String(version));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/not \d+; read it again/);
  });

  it('issues a key and prints its secret once, lists it by prefix, and revokes it', async () => {
    const issued = await ctl('keys', 'issue', 'demo-vendor', '--user', 'demo.teller', '--id', 'key-cli');
    expect(issued.code).toBe(0);
    const secrets = issued.stdout.match(/cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g) ?? [];
    expect(secrets).toHaveLength(1);
    const secret = secrets[0] as string;
    expect(issued.stdout).toContain(`Issued key key-cli (${secret.slice(0, 12)}) for vendor demo-vendor, user demo.teller.`);

    const listed = await ctl('keys', 'list', 'demo-vendor');
    expect(listed.stdout).toMatch(/^ID\s+PREFIX\s+USER\s+STATUS/);
    expect(listed.stdout).toMatch(new RegExp(`key-cli\\s+${secret.slice(0, 12)}\\s+demo.teller\\s+active`));
    expect(listed.stdout).not.toContain(secret);

    expect(await ctl('keys', 'revoke', 'key-cli')).toMatchObject({ code: 0, stdout: 'Revoked key key-cli.\n' });
    expect((await ctl('keys', 'list', 'demo-vendor')).stdout).toMatch(/key-cli\s+\S+\s+demo.teller\s+revoked/);
  });

  it('binds a key to client certificates at issue and later, and unbinds it, without re-issuing', async () => {
    const [first, second] = ['A'.repeat(43), 'b'.repeat(43)];
    const issued = JSON.parse(
      (await ctl('--json', 'keys', 'issue', 'demo-vendor', '--user', 'demo.teller', '--id', 'key-bound', '--certificate-thumbprint', first)).stdout,
    ) as { certificateThumbprints: string[] };
    expect(issued.certificateThumbprints).toEqual([first]);
    expect(await ctl('keys', 'bind', 'key-bound', first, second)).toMatchObject({ code: 0, stdout: `Bound key key-bound to ${first}, ${second}.\n` });
    expect(await ctl('keys', 'bind', 'key-bound')).toMatchObject({ code: 0, stdout: 'Key key-bound is bound to no certificate.\n' });
    expect((await ctl('keys', 'bind', 'key-bound', 'not-a-thumbprint')).code).not.toBe(0);
  });

  it('prints JSON that parses with --json, the secret included only in the issue answer', async () => {
    const vendors = JSON.parse((await ctl('vendors', 'list', '--json')).stdout) as Array<{ id: string }>;
    expect(vendors.map((v) => v.id)).toEqual(['demo-vendor', 'readonly-partner']);

    const issued = JSON.parse((await ctl('--json', 'keys', 'issue', 'readonly-partner', '--user', 'partner.reader')).stdout) as { id: string; secret: string };
    expect(issued.secret).toMatch(/^cbk_/);

    const keys = JSON.parse((await ctl('keys', 'list', 'readonly-partner', '--json')).stdout) as Array<{ id: string }>;
    expect(keys.map((k) => k.id)).toContain(issued.id);
    expect(JSON.stringify(keys)).not.toContain(issued.secret);
  });

  it('creates, suspends and resumes vendors, and sets a rate limit', async () => {
    expect((await ctl('vendors', 'create', 'acme', '--name', 'Acme Ltd', '--points', '60', '--duration-seconds', '60')).stdout).toBe(
      'Created vendor acme (active).\n',
    );
    expect((await ctl('vendors', 'suspend', 'acme')).stdout).toBe('Vendor acme is suspended.\n');
    expect((await ctl('vendors', 'list')).stdout).toMatch(/acme\s+Acme Ltd\s+suspended\s+60\/60s/);
    expect((await ctl('vendors', 'resume', 'acme')).stdout).toBe('Vendor acme is active.\n');

    const limited = await ctl('rate-limit', 'set', 'acme', '--points', '5', '--duration-seconds', '1');
    expect(limited).toMatchObject({ code: 0, stdout: 'Vendor acme may make 5 requests per 1 s.\n' });
    expect((await readDocument(store)).document.vendors.find((v) => v.id === 'acme')).toMatchObject({
      status: 'active',
      rateLimit: { points: 5, durationSeconds: 1 },
    });
  });

  it('grants, lists and revokes licences and permissions', async () => {
    expect((await ctl('licences', 'grant', 'readonly-partner', 'POSTapi/transaction/*', '--id', 'lic-cli')).stdout).toBe(
      'Granted licence lic-cli (POSTapi/transaction/*) to vendor readonly-partner.\n',
    );
    expect((await ctl('licences', 'list', 'readonly-partner')).stdout).toMatch(/lic-cli\s+POSTapi\/transaction\/\*/);
    expect((await ctl('licences', 'revoke', 'readonly-partner', 'lic-cli')).code).toBe(0);
    expect((await ctl('licences', 'list', 'readonly-partner')).stdout).not.toContain('lic-cli');

    expect((await ctl('permissions', 'grant', 'new.clerk', 'GETaccounts', '--id', 'perm-cli')).code).toBe(0);
    expect((await ctl('permissions', 'list', 'new.clerk')).stdout).toBe('ID        API\nperm-cli  GETaccounts\n');
    expect((await ctl('permissions', 'revoke', 'new.clerk', 'perm-cli')).code).toBe(0);
    expect((await ctl('permissions', 'list', 'new.clerk')).stdout).toBe('ID  API\n');
  });

  it('shows the audit log newest first', async () => {
    await ctl('vendors', 'create', 'acme', '--name', 'Acme');
    await ctl('vendors', 'suspend', 'acme');

    const run = await ctl('audit', '--limit', '1');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+VENDORS\s+ID$/);
    expect(run.stdout).toMatch(/admin:bootstrap\s+vendor.update\s+vendors\/acme\s+acme\s/);
    expect(run.stdout).not.toContain('vendor.create');
    expect(run.stdout).not.toContain(TOKEN);
    // Older entries exist: stderr says how to go on.
    expect(run.stderr).toMatch(/^older entries: the same command with --before \d+-\d+\n$/);
  });

  it('filters the audit log on the gateway by vendor, actor, action and dates', async () => {
    await ctl('vendors', 'create', 'acme', '--name', 'Acme');
    await ctl('vendors', 'create', 'acme-corp', '--name', 'Acme Corp');
    await ctl('vendors', 'suspend', 'acme');

    const today = new Date().toISOString().slice(0, 10);
    const run = await ctl('audit', '--vendor', 'acme', '--actor', 'bootstrap', '--action', 'vendor', '--since', today, '--until', today, '--json');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as Array<{ action: string; vendorIds: string[] }>).map((e) => [e.action, e.vendorIds])).toEqual([
      ['vendor.update', ['acme']],
      ['vendor.create', ['acme']],
    ]);
    const bad = await ctl('audit', '--since', 'yesterday');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('  since: a date or date-time');
  });

  it('fails with exit 1 and the problem detail, naming each bad field', async () => {
    const unknown = await ctl('keys', 'revoke', 'key-nobody');
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'error: No key "key-nobody".\n' });

    const invalid = await ctl('licences', 'grant', 'demo-vendor', 'not an api', '--expires-at', 'soon');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('error: The licence is not valid; see errors.\n');
    expect(invalid.stderr).toMatch(/^ {2}api: /m);
    expect(invalid.stderr).toMatch(/^ {2}expiresAt: /m);

    const duplicate = await ctl('vendors', 'create', 'demo-vendor', '--name', 'Again');
    expect(duplicate).toMatchObject({ code: 1, stderr: 'error: A vendor with id "demo-vendor" already exists.\n' });

    const badFile = path.join(dir, 'bad.yaml');
    writeFileSync(badFile, 'vendors:\n  - id: x\n');
    const badApply = await ctl('apply', '-f', badFile);
    expect(badApply.code).toBe(1);
    expect(badApply.stderr).toContain('  vendor "x", name: ');
  });

  it('fails with exit 1 without a token, with a wrong token (a streamed export too), with a missing file, or when the API is unreachable', async () => {
    env = { GATEWAY_ADMIN_URL: env.GATEWAY_ADMIN_URL as string };
    expect(await ctl('vendors', 'list')).toMatchObject({ code: 1, stderr: 'error: ADMIN_TOKEN is not set; export the admin token first.\n' });

    env.ADMIN_TOKEN = 'wrong';
    const wrong = await ctl('vendors', 'list');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: admin token not accepted/);
    expect(wrong.stderr).not.toContain('Bearer');
    expect(wrong.stderr).not.toContain('wrong');
    // The streamed export goes through the same client, so it says the same.
    const wrongExport = await ctl('audit', 'export', '--since', '2000-01-01');
    expect(wrongExport.code).toBe(1);
    expect(wrongExport.stderr).toMatch(/^error: admin token not accepted/);

    env.ADMIN_TOKEN = TOKEN;
    const missing = await ctl('apply', '-f', path.join(dir, 'absent.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');

    env.GATEWAY_ADMIN_URL = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await ctl('vendors', 'list');
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach the admin API at ${env.GATEWAY_ADMIN_URL}`);
  });

  it('refuses a licence or permission pattern that matches no API id, naming the nearest, unless --allow-empty', async () => {
    const refused = await ctl('licences', 'grant', 'readonly-partner', 'GETacounts/*');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: The pattern "GETacounts/*" of vendor "readonly-partner" matches no API id');
    expect(refused.stderr).toMatch(/^ {2}api: "GETacounts\/\*" matches no API id; nearest by edit distance: GETaccounts/m);
    expect((await ctl('permissions', 'grant', 'new.clerk', 'DELETEeverything')).stderr).toContain('of user "new.clerk" matches no API id');

    expect((await ctl('licences', 'grant', 'readonly-partner', 'GETacounts/*', '--id', 'lic-typo', '--allow-empty')).code).toBe(0);
    expect((await ctl('permissions', 'grant', 'new.clerk', 'DELETEeverything', '--allow-empty')).code).toBe(0);
    // Held already, it does not stop the document it is in from applying back.
    const file = path.join(dir, 'held.yaml');
    writeFileSync(file, (await ctl('export')).stdout);
    expect((await ctl('apply', '-f', file)).stdout).toContain('No changes.');

    const document = readAccessFile(SANDBOX_ACCESS);
    document.vendors[0]!.licences.push({ id: 'lic-new-typo', api: 'POSTnothing' });
    writeFileSync(file, toYaml(document));
    const apply = await ctl('apply', '-f', file, '--prune');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      `  vendor "${document.vendors[0]!.id}" licence ${document.vendors[0]!.licences.length}, api: "POSTnothing" matches no API id`,
    );
    expect((await ctl('apply', '-f', file, '--prune', '--allow-empty')).code).toBe(0);
  });

  it('applies a hand-written file without licence and permission ids, the same ids each time, and exports it back byte for byte', async () => {
    const file = path.join(dir, 'hand.yaml');
    writeFileSync(
      file,
      [
        'vendors:',
        '  - id: acme',
        '    name: Acme',
        '    licences:',
        '      - api: GETaccounts*',
        '      - api: GETbranches',
        'users:',
        '  - id: acme.app',
        '    permissions:',
        '      - api: GETaccounts*',
        '',
      ].join('\n'),
    );
    expect((await ctl('apply', '-f', file, '--prune')).code).toBe(0);
    const first = await ctl('export');
    const acme = (parseYaml(first.stdout) as { vendors: Array<{ id: string; licences: Array<{ id: string }> }> }).vendors.find((v) => v.id === 'acme');
    expect(acme?.licences.map((l) => l.id)).toEqual([expect.stringMatching(/^lic-[0-9a-f]{12}$/), expect.stringMatching(/^lic-[0-9a-f]{12}$/)]);
    expect((await ctl('apply', '-f', file)).stdout).toContain('No changes.');

    const exported = path.join(dir, 'exported.yaml');
    writeFileSync(exported, first.stdout);
    expect((await ctl('apply', '-f', exported)).stdout).toContain('No changes.');
    expect((await ctl('export')).stdout).toBe(first.stdout);

    // Two entries of one pattern would share the derived id: refused, named by vendor.
    writeFileSync(file, 'vendors:\n  - id: acme\n    name: Acme\n    licences:\n      - api: GETbranches\n      - api: GETbranches\n');
    const twice = await ctl('apply', '-f', file, '--prune');
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^ {2}vendor "acme" licence 2, api: same id "lic-[0-9a-f]{12}" as entry 1 \(derived from the pattern/m);
  });

  it('keeps the ids in force for patterns a hand-written file names without one', async () => {
    expect((await ctl('licences', 'grant', 'readonly-partner', 'GETbranches', '--id', 'lic-kept')).code).toBe(0);
    const document = JSON.parse((await ctl('export', '--json')).stdout) as AccessDocument;
    const partner = document.vendors.find((v) => v.id === 'readonly-partner')!;
    partner.licences = partner.licences.map(({ id: _id, ...rest }) => rest) as typeof partner.licences;
    const file = path.join(dir, 'no-ids.json');
    writeFileSync(file, JSON.stringify(document));
    expect((await ctl('apply', '-f', file)).stdout).toContain('No changes.');
  });

  it('refuses to apply a file that would remove anything, listing it, unless --prune; with --prune it applies at the version its dry run read', async () => {
    const ifMatch: Array<string | undefined> = [];
    server.on('request', (req: http.IncomingMessage) => {
      if (req.method === 'PUT') ifMatch.push(req.headers['if-match']);
    });
    const document = readAccessFile(SANDBOX_ACCESS);
    const [kept, dropped] = [document.vendors[0]!, document.vendors[1]!];
    document.vendors = [{ ...kept, licences: kept.licences.slice(1) }];
    const file = path.join(dir, 'smaller.yaml');
    writeFileSync(file, toYaml(document));
    const { version } = await readDocument(store);

    expect((await ctl('apply', '-f', file, '--dry-run')).stdout).toContain('It removes 2: apply needs --prune for that.\n');
    expect((await ctl('apply', '-f', file, '--dry-run', '--prune')).stdout).not.toContain('--prune');
    const refused = await ctl('apply', '-f', file);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('nothing applied. Add them to the file, or give --prune to remove them:');
    expect(refused.stderr).toContain(`  - vendor ${dropped.id} (with its keys and licences)`);
    expect(refused.stderr).toContain(`  - licence ${kept.licences[0]!.id} of vendor ${kept.id}`);
    expect((await readDocument(store)).version).toBe(version);

    ifMatch.length = 0;
    const pruned = await ctl('apply', '-f', file, '--prune');
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toContain(`- vendor ${dropped.id}`);
    expect(ifMatch).toEqual([undefined, `"${version}"`]);
    expect((await readDocument(store)).document.vendors.map((v) => v.id)).toEqual([kept.id]);
  });

  it('deletes a vendor and says what went with it', async () => {
    await ctl('vendors', 'create', 'acme', '--name', 'Acme Ltd');
    await ctl('licences', 'grant', 'acme', 'GET*', '--id', 'lic-all');
    await ctl('keys', 'issue', 'acme', '--user', 'acme.app', '--id', 'key-a');
    await ctl('keys', 'issue', 'acme', '--user', 'acme.app', '--id', 'key-b');
    await ctl('keys', 'revoke', 'key-b');
    expect(await ctl('vendors', 'delete', 'acme')).toMatchObject({
      code: 0,
      stdout: 'Deleted vendor acme (Acme Ltd) with 1 licence and 2 keys (1 active).\n',
    });
    expect((await ctl('vendors', 'list', '--json')).stdout).not.toContain('"acme"');
    expect(await ctl('vendors', 'delete', 'acme')).toMatchObject({ code: 1, stderr: 'error: No vendor "acme".\n' });
  });

  it('with approvals required, deletes a vendor at once and says a grant was filed for approval, not granted', async () => {
    const audit = new MemoryAuditLog();
    const approvalStore = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
    const service = accessServiceFor(approvalStore);
    const admins = new AdminDirectory(service.writer);
    const proposals = new Proposals(service, { approvals: 'required', changeTtlHours: 72 }, admins);
    const approving = await listenOnLoopback(createAdminApp({ service, admins, proposals, audit, adminToken: TOKEN, logger: createLogger('silent') }));
    try {
      env = { GATEWAY_ADMIN_URL: approving.url, ADMIN_TOKEN: TOKEN };
      const filed = await ctl('licences', 'grant', 'demo-vendor', 'GETbranches', '--id', 'lic-filed');
      expect(filed.code).toBe(0);
      expect(filed.stdout).toMatch(
        /^Filed for approval as change chg-[0-9a-f]+ \(licence\.grant vendors\/demo-vendor\/licences\/lic-filed\); it applies once another admin approves it\.\n$/,
      );

      const deleted = await ctl('vendors', 'delete', 'readonly-partner');
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toMatch(/^Deleted vendor readonly-partner /);
      expect((await readDocument(approvalStore)).document.vendors.map((v) => v.id)).toEqual(['demo-vendor']);
    } finally {
      await approving.close();
    }
  });

  it('lists single-sign-on admins with their email, blocks one at once and files its unblocking for approval', async () => {
    const audit = new MemoryAuditLog();
    const service = accessServiceFor(new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit }));
    const admins = new AdminDirectory(service.writer, { ssoIssuer: 'https://login.bank.example' });
    const proposals = new Proposals(service, { approvals: 'required', changeTtlHours: 72, singleSignOn: true }, admins);
    await admins.sso?.signIn({ subject: 'u-42', issuer: 'https://login.bank.example', name: 'Sam Sso', email: 'sam@bank.example', role: 'operator' });
    const app = await listenOnLoopback(createAdminApp({ service, admins, proposals, audit, adminToken: TOKEN, logger: createLogger('silent') }));
    try {
      env = { GATEWAY_ADMIN_URL: app.url, ADMIN_TOKEN: TOKEN };
      expect((await ctl('admins', 'list')).stdout).toMatch(/oidc:u-42\s+Sam Sso\s+operator\s+single sign-on \(sam@bank\.example\)\s+active/);
      expect(await ctl('admins', 'block', 'oidc:u-42')).toMatchObject({ code: 0, stdout: 'Blocked admin oidc:u-42; its sessions have ended.\n' });
      expect((await ctl('admins', 'list')).stdout).toMatch(/oidc:u-42\s+.*\s+blocked/);
      // Letting one back in grants: the bootstrap token may not (set-up is over with single sign-on).
      const unblock = await ctl('admins', 'unblock', 'oidc:u-42');
      expect(unblock.code).toBe(1);
      expect(unblock.stderr).toContain('bootstrap token only reads and takes access away');
    } finally {
      await app.close();
    }
  });

  it('rejects a bad command line with exit 1 and prints help with exit 0', async () => {
    const unknown = await ctl('vendors', 'explode');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'explode'");

    const badNumber = await ctl('rate-limit', 'set', 'acme', '--points', 'many', '--duration-seconds', '1');
    expect(badNumber.code).toBe(1);
    expect(badNumber.stderr).toContain('expected a whole number');

    const help = await ctl('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: gatewayctl');
  });
});
