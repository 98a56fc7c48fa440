/**
 * gatewayctl `apply` and `export`: the whole access document, declaratively.
 *
 * Reads the file given to `apply -f` and the live document (PUT / GET /v1/access). `apply`
 * always dry-runs first, and refuses (exit 1, listing them) a file that would remove anything
 * unless --prune; it then sets the live document unless --dry-run, at the version its dry run
 * read (given with --if-match, the dry run reads at that one), sent as `If-Match`; both print to stdout.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { AccessDiff } from '../../admin/operations/access-diff';
import type { AccessDocument } from '../../access/model';
import { CommandFailure } from '../admin-client';
import { formatDiff, removalsOf } from '../output';
import { allowEmptyQuery, type CommandContext } from './context';

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
    .option('--prune', 'also remove what the file leaves out (vendors, keys, licences, users, permissions); refused without it')
    .option('--allow-empty', 'take licence and permission patterns that match no API id (refused otherwise)')
    .option('--if-match <version>', "apply only at this version (from an earlier dry run); by default the version this run's own dry run read")
    .action(async (options: { file: string; dryRun?: boolean; prune?: boolean; allowEmpty?: boolean; ifMatch?: string }) => {
      let text: string;
      try {
        text = await readFile(options.file, 'utf8');
      } catch (err) {
        throw new CommandFailure(`cannot read ${options.file}: ${(err as Error).message}`);
      }
      // Sent unparsed, so the API validates (and reports on) exactly the file the operator wrote.
      const contentType = options.file.toLowerCase().endsWith('.json') ? 'application/json' : 'application/yaml';
      const put = <T>(query: Record<string, string | undefined>, headers?: Record<string, string>): Promise<T> =>
        api().request<T>('PUT', 'access', { raw: { text, contentType }, query: { ...query, ...allowEmptyQuery(options) }, headers });
      // Always a dry run first: it reads the version the change applies at (never against a config
      // that moved meanwhile: a vendor deleted since would come back), and what it would remove.
      const ifMatch = options.ifMatch === undefined ? undefined : { 'if-match': `"${options.ifMatch}"` };
      const preview = await put<Replaced>({ dryRun: 'true' }, ifMatch);
      const removals = removalsOf(preview.diff);
      if (options.dryRun) {
        // Said up front: the same apply without --prune would refuse.
        const prune = removals.length > 0 && !options.prune ? `It removes ${removals.length}: apply needs --prune for that.\n` : '';
        show(preview, (r) => `Dry run against version ${r.version}; nothing applied.\n${formatDiff(r.diff)}${prune}`);
        return;
      }
      if (removals.length > 0 && !options.prune) {
        throw new CommandFailure(
          `The file leaves out ${removals.length === 1 ? 'this, which apply would remove' : `these ${removals.length}, which apply would remove`}; nothing applied. ` +
            `Add them to the file, or give --prune to remove them:\n${removals.map((r) => `  - ${r}`).join('\n')}`,
        );
      }
      const version = String(preview.version);
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
