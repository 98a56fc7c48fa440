#!/usr/bin/env node
/**
 * gatewayctl: the command line for the admin API (README "gatewayctl"). Applies and
 * exports the access document, manages vendors, keys, licences, permissions and rate limits,
 * and reads and exports the audit log.
 *
 * Reads GATEWAY_ADMIN_URL (default http://127.0.0.1:8081) and ADMIN_TOKEN from the
 * environment it is given (the token only from there, never a flag, so it stays out of shell
 * history and process lists), and the file given to `apply`. Sets nothing locally; prints
 * tables (or JSON with --json) to stdout, problems to stderr, and returns the exit code:
 * 0 on success, 1 on any failure.
 */
import { readFile } from 'node:fs/promises';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { AccessDiff, ItemChanges } from '../access/access-diff';
import type { KeyView, VendorView } from '../access/access-service';
import type { AdminView, AdminWithToken } from '../access/admin-directory';
import type { AccessDocument, Licence, Permission } from '../access/model';
import type { AuditEntry } from '../admin/audit';

export interface GatewayctlIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';
const REQUEST_TIMEOUT_MS = 30_000;
/** Entries per admin API call of `audit export` (the API's largest page). */
const EXPORT_PAGE = 1000;

interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A failure to report: the admin API's problem (detail and field errors), or a local one. */
class CommandFailure extends Error {
  constructor(
    readonly detail: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(detail);
  }
}

interface RequestOptions {
  readonly body?: unknown;
  /** A body sent as it is, with its own media type (apply sends a YAML file unchanged). */
  readonly raw?: { readonly text: string; readonly contentType: string };
  readonly query?: Readonly<Record<string, string | undefined>>;
}

class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`/v1/${path}`, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    let body: string | undefined;
    if (options.raw) {
      body = options.raw.text;
      headers['content-type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CommandFailure(`cannot reach the admin API at ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw problemOf(response, text);
    return (text.length > 0 ? JSON.parse(text) : null) as T;
  }
}

function problemOf(response: Response, text: string): CommandFailure {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; errors?: unknown };
    if (typeof problem.detail === 'string') {
      return new CommandFailure(problem.detail, Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : []);
    }
  } catch {
    // Not a problem body (a proxy's error page, say): the status line is all there is to say.
  }
  return new CommandFailure(`the admin API answered ${response.status} ${response.statusText}`);
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number.');
  return Number(value);
}

const segment = (id: string): string => encodeURIComponent(id);

/** Plain columns, padded to the widest cell; `-` for an empty cell. */
function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number | undefined>>): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === undefined || cell === '' ? '-' : String(cell))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const lines = cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '));
  return `${lines.join('\n')}\n`;
}

const formatValue = (value: unknown): string =>
  value === undefined ? '(none)' : typeof value === 'object' ? JSON.stringify(value) : String(value);

function itemLines(kind: string, changes: ItemChanges, indent: string): string[] {
  return [
    ...changes.added.map((id) => `${indent}+ ${kind} ${id}`),
    ...changes.removed.map((id) => `${indent}- ${kind} ${id}`),
    ...changes.changed.map(
      (item) =>
        `${indent}~ ${kind} ${item.id}: ` +
        item.fields.map((f) => ('from' in f || 'to' in f ? `${f.field} ${formatValue(f.from)} -> ${formatValue(f.to)}` : `${f.field} changed`)).join(', '),
    ),
  ];
}

function formatDiff(diff: AccessDiff): string {
  if (diff.identical) return 'No changes.\n';
  const lines: string[] = [];
  lines.push(...diff.vendors.added.map((id) => `+ vendor ${id}`), ...diff.vendors.removed.map((id) => `- vendor ${id}`));
  for (const vendor of diff.vendors.changed) {
    lines.push(`~ vendor ${vendor.id}`);
    lines.push(...vendor.fields.map((f) => `    ${f.field}: ${formatValue(f.from)} -> ${formatValue(f.to)}`));
    lines.push(...itemLines('licence', vendor.licences, '    '), ...itemLines('key', vendor.keys, '    '));
  }
  lines.push(...diff.users.added.map((id) => `+ user ${id}`), ...diff.users.removed.map((id) => `- user ${id}`));
  for (const user of diff.users.changed) lines.push(`~ user ${user.id}`, ...itemLines('permission', user.permissions, '    '));
  return `${lines.join('\n')}\n`;
}

function buildProgram(io: GatewayctlIo): Command {
  const print = (text: string): void => {
    io.stdout.write(text);
  };
  let client: AdminClient | null = null;
  const api = (): AdminClient => {
    const token = io.env.ADMIN_TOKEN;
    if (!token) throw new CommandFailure('ADMIN_TOKEN is not set; export the admin token first.');
    client ??= new AdminClient(io.env.GATEWAY_ADMIN_URL || DEFAULT_ADMIN_URL, token);
    return client;
  };

  const program = new Command('gatewayctl')
    .description('Manage the Core Banking Gateway through its admin API (GATEWAY_ADMIN_URL, ADMIN_TOKEN).')
    .option('--json', 'print JSON instead of tables, for scripts')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  const json = (): boolean => program.opts<{ json?: boolean }>().json === true;
  /** Prints JSON when asked for, else the human form. */
  const show = <T>(value: T, human: (value: T) => string): void => print(json() ? `${JSON.stringify(value, null, 2)}\n` : human(value));

  program
    .command('apply')
    .description('replace the live access document with a declarative file (YAML or JSON)')
    .requiredOption('-f, --file <file>', 'the access document')
    .option('--dry-run', 'show what would change, change nothing')
    .action(async (options: { file: string; dryRun?: boolean }) => {
      let text: string;
      try {
        text = await readFile(options.file, 'utf8');
      } catch (err) {
        throw new CommandFailure(`cannot read ${options.file}: ${(err as Error).message}`);
      }
      const contentType = options.file.toLowerCase().endsWith('.json') ? 'application/json' : 'application/yaml';
      const result = await api().request<{ dryRun: boolean; applied: boolean; version: number; diff: AccessDiff }>('PUT', 'access', {
        raw: { text, contentType },
        query: { dryRun: options.dryRun ? 'true' : undefined },
      });
      show(result, (r) => {
        const headline = r.dryRun
          ? `Dry run against version ${r.version}; nothing applied.`
          : r.applied
            ? `Applied; the access document is now version ${r.version}.`
            : `Already in force at version ${r.version}; nothing applied.`;
        return `${headline}\n${formatDiff(r.diff)}`;
      });
    });

  program
    .command('export')
    .description('print the live access document (YAML; JSON with --json)')
    .action(async () => {
      const document = await api().request<AccessDocument>('GET', 'access');
      if (json()) {
        print(`${JSON.stringify(document, null, 2)}\n`);
        return;
      }
      // A vendor or a user at a time: a config of 100,000 keys never becomes one huge YAML string.
      for (const section of ['vendors', 'users'] as const) {
        const items: readonly unknown[] = document[section];
        if (items.length === 0) print(`${section}: []\n`);
        else {
          print(`${section}:\n`);
          for (const item of items) print(toYaml([item]));
        }
      }
    });

  const vendors = program.command('vendors').description('list, create, suspend and resume vendors');
  vendors
    .command('list')
    .description('list vendors')
    .action(async () => {
      const list = await api().request<VendorView[]>('GET', 'vendors');
      show(list, (l) =>
        table(
          ['ID', 'NAME', 'STATUS', 'RATE LIMIT', 'LICENCES', 'KEYS'],
          l.map((v) => [
            v.id,
            v.name,
            v.status,
            v.rateLimit ? `${v.rateLimit.points}/${v.rateLimit.durationSeconds}s` : undefined,
            v.licences.length,
            v.keys.filter((k) => k.status === 'active').length,
          ]),
        ),
      );
    });
  vendors
    .command('create <vendorId>')
    .description('create a vendor')
    .requiredOption('--name <name>', 'the vendor\'s display name')
    .option('--points <n>', 'rate limit: requests per window', wholeNumber)
    .option('--duration-seconds <n>', 'rate limit: window length in seconds', wholeNumber)
    .option('--suspended', 'create it suspended')
    .action(async (vendorId: string, options: { name: string; points?: number; durationSeconds?: number; suspended?: boolean }) => {
      const rateLimit =
        options.points === undefined && options.durationSeconds === undefined
          ? undefined
          : { points: options.points, durationSeconds: options.durationSeconds };
      const vendor = await api().request<VendorView>('POST', 'vendors', {
        body: { id: vendorId, name: options.name, status: options.suspended ? 'suspended' : 'active', rateLimit },
      });
      show(vendor, (v) => `Created vendor ${v.id} (${v.status}).\n`);
    });
  for (const [verb, status] of [
    ['suspend', 'suspended'],
    ['resume', 'active'],
  ] as const) {
    vendors
      .command(`${verb} <vendorId>`)
      .description(`${verb} a vendor (status ${status})`)
      .action(async (vendorId: string) => {
        const vendor = await api().request<VendorView>('PATCH', `vendors/${segment(vendorId)}`, { body: { status } });
        show(vendor, (v) => `Vendor ${v.id} is ${v.status}.\n`);
      });
  }

  const keys = program.command('keys').description('issue, list and revoke vendor API keys');
  keys
    .command('issue <vendorId>')
    .description('issue a key; its secret is printed this once')
    .requiredOption('--user <userId>', 'the banking-application user the key acts as')
    .option('--expires-at <iso>', 'expiry, ISO 8601 with offset')
    .option('--id <keyId>', 'the key id (generated when absent)')
    .option('--certificate-thumbprint <x5t#S256...>', 'bind the key to these client certificates (one or two)')
    .action(async (vendorId: string, options: { user: string; expiresAt?: string; id?: string; certificateThumbprint?: string[] }) => {
      const issued = await api().request<KeyView & { secret: string }>('POST', `vendors/${segment(vendorId)}/keys`, {
        body: { id: options.id, userId: options.user, expiresAt: options.expiresAt, certificateThumbprints: options.certificateThumbprint },
      });
      show(
        issued,
        (k) =>
          `Issued key ${k.id} (${k.prefix}) for vendor ${vendorId}, user ${k.userId}.\n` +
          `Secret, shown this once; store it now:\n${k.secret}\n`,
      );
    });
  keys
    .command('list <vendorId>')
    .description('list a vendor\'s keys')
    .action(async (vendorId: string) => {
      const list = await api().request<KeyView[]>('GET', `vendors/${segment(vendorId)}/keys`);
      show(list, (l) =>
        table(
          ['ID', 'PREFIX', 'USER', 'STATUS', 'EXPIRES', 'CREATED', 'LAST USED', 'CERTIFICATES'],
          l.map((k) => [k.id, k.prefix, k.userId, k.status, k.expiresAt, k.createdAt, k.lastUsedAt, k.certificateThumbprints?.length ? String(k.certificateThumbprints.length) : undefined]),
        ),
      );
    });
  keys
    .command('bind <keyId> [thumbprints...]')
    .description('bind a key to one or two client certificates (x5t#S256), or unbind it with none; the secret stays')
    .action(async (keyId: string, thumbprints: string[]) => {
      const key = await api().request<KeyView>('PATCH', `keys/${segment(keyId)}`, { body: { certificateThumbprints: thumbprints } });
      show(key, (k) => (k.certificateThumbprints ? `Bound key ${k.id} to ${k.certificateThumbprints.join(', ')}.\n` : `Key ${k.id} is bound to no certificate.\n`));
    });
  keys
    .command('revoke <keyId>')
    .description('revoke a key (it stays listed, revoked)')
    .action(async (keyId: string) => {
      await api().request<null>('DELETE', `keys/${segment(keyId)}`);
      show({ revoked: keyId }, () => `Revoked key ${keyId}.\n`);
    });

  const admins = program.command('admins').description('named admins and their roles (owner only)');
  admins
    .command('list')
    .description('list named admins (the bootstrap ADMIN_TOKEN is the owner "bootstrap")')
    .action(async () => {
      const list = await api().request<AdminView[]>('GET', 'admins');
      show(list, (l) => table(['ID', 'NAME', 'ROLE', 'TOKEN PREFIX', 'CREATED'], l.map((a) => [a.id, a.name, a.role, a.tokenPrefix, a.createdAt])));
    });
  admins
    .command('create <name>')
    .description('create an admin; its token is printed this once')
    .requiredOption('--role <role>', 'viewer, operator, approver or owner')
    .option('--id <adminId>', 'the admin id (generated when absent)')
    .action(async (name: string, options: { role: string; id?: string }) => {
      const created = await api().request<AdminWithToken>('POST', 'admins', { body: { id: options.id, name, role: options.role } });
      show(created, (a) => `Created admin ${a.id} (${a.name}, ${a.role}).\nToken, shown this once; hand it over now:\n${a.token}\n`);
    });
  admins
    .command('rotate <adminId>')
    .description('give an admin a new token; the old one stops working at once')
    .action(async (adminId: string) => {
      const rotated = await api().request<AdminWithToken>('POST', `admins/${segment(adminId)}/token`);
      show(rotated, (a) => `New token for admin ${a.id}, shown this once:\n${a.token}\n`);
    });
  admins
    .command('delete <adminId>')
    .description('delete an admin; its token stops working at once')
    .action(async (adminId: string) => {
      await api().request<null>('DELETE', `admins/${segment(adminId)}`);
      show({ deleted: adminId }, () => `Deleted admin ${adminId}.\n`);
    });

  const licences = program.command('licences').description('grant, list and revoke vendor licences');
  licences
    .command('grant <vendorId> <api>')
    .description('licence a vendor for an API id or pattern (GETaccounts/{accountId}, GET*)')
    .option('--expires-at <iso>', 'expiry, ISO 8601 with offset')
    .option('--id <licenceId>', 'the licence id (generated when absent)')
    .action(async (vendorId: string, apiPattern: string, options: { expiresAt?: string; id?: string }) => {
      const licence = await api().request<Licence>('POST', `vendors/${segment(vendorId)}/licences`, {
        body: { id: options.id, api: apiPattern, expiresAt: options.expiresAt },
      });
      show(licence, (l) => `Granted licence ${l.id} (${l.api}) to vendor ${vendorId}.\n`);
    });
  licences
    .command('list <vendorId>')
    .description('list a vendor\'s licences')
    .action(async (vendorId: string) => {
      const list = await api().request<Licence[]>('GET', `vendors/${segment(vendorId)}/licences`);
      show(list, (l) => table(['ID', 'API', 'EXPIRES'], l.map((x) => [x.id, x.api, x.expiresAt])));
    });
  licences
    .command('revoke <vendorId> <licenceId>')
    .description('revoke a vendor\'s licence')
    .action(async (vendorId: string, licenceId: string) => {
      await api().request<null>('DELETE', `vendors/${segment(vendorId)}/licences/${segment(licenceId)}`);
      show({ revoked: licenceId }, () => `Revoked licence ${licenceId} of vendor ${vendorId}.\n`);
    });

  const permissions = program.command('permissions').description('grant, list and revoke user permissions');
  permissions
    .command('grant <userId> <api>')
    .description('let a user call an API id or pattern (the user is created by the first grant)')
    .option('--id <permissionId>', 'the permission id (generated when absent)')
    .action(async (userId: string, apiPattern: string, options: { id?: string }) => {
      const permission = await api().request<Permission>('POST', `users/${segment(userId)}/permissions`, {
        body: { id: options.id, api: apiPattern },
      });
      show(permission, (p) => `Granted permission ${p.id} (${p.api}) to user ${userId}.\n`);
    });
  permissions
    .command('list <userId>')
    .description('list a user\'s permissions')
    .action(async (userId: string) => {
      const list = await api().request<Permission[]>('GET', `users/${segment(userId)}/permissions`);
      show(list, (l) => table(['ID', 'API'], l.map((p) => [p.id, p.api])));
    });
  permissions
    .command('revoke <userId> <permissionId>')
    .description('revoke a user\'s permission')
    .action(async (userId: string, permissionId: string) => {
      await api().request<null>('DELETE', `users/${segment(userId)}/permissions/${segment(permissionId)}`);
      show({ revoked: permissionId }, () => `Revoked permission ${permissionId} of user ${userId}.\n`);
    });

  program
    .command('rate-limit')
    .description('set vendors\' rate limits')
    .command('set <vendorId>')
    .description('set a vendor\'s rate limit')
    .requiredOption('--points <n>', 'requests per window', wholeNumber)
    .requiredOption('--duration-seconds <n>', 'window length in seconds', wholeNumber)
    .action(async (vendorId: string, options: { points: number; durationSeconds: number }) => {
      const limit = await api().request<{ points: number; durationSeconds: number }>('PUT', `vendors/${segment(vendorId)}/rate-limit`, {
        body: { points: options.points, durationSeconds: options.durationSeconds },
      });
      show(limit, (l) => `Vendor ${vendorId} may make ${l.points} requests per ${l.durationSeconds} s.\n`);
    });

  program
    .command('audit')
    .description('show the audit log, newest first')
    .option('--limit <n>', 'how many entries (default 50, at most 1000)', wholeNumber)
    .option('--before <entryId>', 'entries older than this one (the next page)')
    .action(async (options: { limit?: number; before?: string }) => {
      const entries = await api().request<AuditEntry[]>('GET', 'audit', {
        query: { limit: options.limit === undefined ? undefined : String(options.limit), before: options.before },
      });
      show(entries, (l) => table(['AT', 'ACTOR', 'ACTION', 'TARGET', 'ID'], l.map((e) => [e.at, e.actor, e.action, e.target, e.id])));
    })
    .command('export')
    .description('print the audit entries written since a date as JSON lines, oldest first (for the archive)')
    .requiredOption('--since <date>', 'a date or date-time (ISO 8601, e.g. 2026-01-01)')
    .action(async (options: { since: string }) => {
      // Page by page, each line written as it comes, so a long retention never sits in memory.
      for (let after: string | undefined; ; ) {
        const page = await api().request<AuditEntry[]>('GET', 'audit/export', { query: { since: options.since, after, limit: String(EXPORT_PAGE) } });
        for (const entry of page) io.stdout.write(`${JSON.stringify(entry)}\n`);
        if (page.length < EXPORT_PAGE) break;
        after = page[page.length - 1]?.id;
      }
    });

  return program;
}

/** Runs one gatewayctl command line (the arguments after the program name); resolves to the exit code. */
export async function runGatewayctl(argv: readonly string[], io: GatewayctlIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CommandFailure) {
      io.stderr.write(`error: ${err.detail}\n`);
      for (const field of err.errors) io.stderr.write(`  ${field.field}: ${field.message}\n`);
      return 1;
    }
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  runGatewayctl(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
