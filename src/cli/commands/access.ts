/**
 * gatewayctl `apply` and `export`: the whole access document, declaratively.
 *
 * Reads the file given to `apply -f` and the live document (PUT / GET /v1/access). `apply`
 * sets the live document unless --dry-run; both print to stdout.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { stringify as toYaml } from 'yaml';
import type { AccessDiff } from '../../access/access-diff';
import type { AccessDocument } from '../../access/model';
import { CommandFailure } from '../admin-client';
import { formatDiff } from '../output';
import type { CommandContext } from './context';

export function registerAccessCommands(program: Command, { api, show, json, print }: CommandContext): void {
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
      // Sent unparsed, so the API validates (and reports on) exactly the file the operator wrote.
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
}
