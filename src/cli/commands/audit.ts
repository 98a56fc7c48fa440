/**
 * gatewayctl `audit` (a page of the log, newest first) and `audit export` (everything since a
 * date, oldest first, as JSON lines for an archive).
 *
 * Reads the audit log through the admin API (/v1/audit, /v1/audit/export); sets nothing;
 * prints to stdout.
 */
import type { Command } from 'commander';
import type { AuditEntry } from '../../access/audit-log';
import { table } from '../output';
import { type CommandContext, wholeNumber } from './context';

/** Entries per admin API call of `audit export` (the API's largest page). */
const EXPORT_PAGE = 1000;

export function registerAuditCommands(program: Command, { api, show, print }: CommandContext): void {
  program
    .command('audit')
    .description('show the audit log, newest first')
    .option('--limit <n>', 'how many entries (default 50, at most 1000)', wholeNumber)
    .option('--before <entryId>', 'entries older than this one (the next page)')
    .action(async (options: { limit?: number; before?: string }) => {
      const entries = await api().request<AuditEntry[]>('GET', 'audit', {
        query: { limit: options.limit === undefined ? undefined : String(options.limit), before: options.before },
      });
      show(entries, (l) =>
        table(
          ['AT', 'ACTOR', 'ACTION', 'TARGET', 'ID'],
          l.map((e) => [e.at, e.actor, e.action, e.target, e.id]),
        ),
      );
    })
    .command('export')
    .description('print the audit entries written since a date as JSON lines, oldest first (for the archive)')
    .requiredOption('--since <date>', 'a date or date-time (ISO 8601, e.g. 2026-01-01)')
    .action(async (options: { since: string }) => {
      // Page by page, each line written as it comes, so a long retention never sits in memory.
      // JSON lines whatever --json says: the archive format is the point of this command.
      for (let after: string | undefined; ;) {
        const page = await api().request<AuditEntry[]>('GET', 'audit/export', { query: { since: options.since, after, limit: String(EXPORT_PAGE) } });
        for (const entry of page) print(`${JSON.stringify(entry)}\n`);
        if (page.length < EXPORT_PAGE) break;
        after = page[page.length - 1]?.id;
      }
    });
}
