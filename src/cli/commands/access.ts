/**
 * gatewayctl `apply` and `export`: the whole access document, declaratively.
 *
 * Reads the file given to `apply -f` and the live document (PUT / GET /v1/access). `apply`
 * sets the live document unless --dry-run, at the version its own dry run read (or the one
 * given with --if-match), sent as `If-Match`; both print to stdout.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { AccessDiff } from '../../admin/operations/access-diff';
import type { AccessDocument } from '../../access/model';
import { CommandFailure } from '../admin-client';
import { formatDiff } from '../output';
import type { CommandContext } from './context';

interface Replaced {
  readonly dryRun: boolean;
  readonly applied: boolean;
  readonly version: number;
  readonly diff: AccessDiff;
}

/** A whole-document change filed for approval (admin.approvals: required). */
interface Filed {
  readonly status: 'pending';
  readonly id: string;
  readonly preview: { readonly after: { readonly diff: AccessDiff } };
}

export function registerAccessCommands(program: Command, { api, show, json, print }: CommandContext): void {
  program
    .command('apply')
    .description('replace the live access document with a declarative file (YAML or JSON)')
    .requiredOption('-f, --file <file>', 'the access document')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--if-match <version>', "apply only at this version (from an earlier dry run); by default the version this run's own dry run read")
    .action(async (options: { file: string; dryRun?: boolean; ifMatch?: string }) => {
      let text: string;
      try {
        text = await readFile(options.file, 'utf8');
      } catch (err) {
        throw new CommandFailure(`cannot read ${options.file}: ${(err as Error).message}`);
      }
      // Sent unparsed, so the API validates (and reports on) exactly the file the operator wrote.
      const contentType = options.file.toLowerCase().endsWith('.json') ? 'application/json' : 'application/yaml';
      const put = <T>(query: Record<string, string | undefined>, headers?: Record<string, string>): Promise<T> =>
        api().request<T>('PUT', 'access', { raw: { text, contentType }, query, headers });
      // The change applies at the version it was read against, never against a config that moved
      // meanwhile (a vendor deleted since would come back): the dry run reads the version.
      let version = options.ifMatch;
      if (version === undefined || options.dryRun) {
        const preview = await put<Replaced>({ dryRun: 'true' }, version === undefined ? undefined : { 'if-match': `"${version}"` });
        if (options.dryRun) {
          show(preview, (r) => `Dry run against version ${r.version}; nothing applied.\n${formatDiff(r.diff)}`);
          return;
        }
        version = String(preview.version);
      }
      const result = await put<Replaced | Filed>({}, { 'if-match': `"${version}"` });
      show(result, (r) => {
        if ('status' in r)
          return `Filed for approval as change ${r.id}, against version ${version}; it applies only as previewed:\n${formatDiff(r.preview.after.diff)}`;
        const headline = r.applied ? `Applied; the access document is now version ${r.version}.` : `Already in force at version ${r.version}; nothing applied.`;
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
}
