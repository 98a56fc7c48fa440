/**
 * gatewayctl `audit` (a page of the log, newest first) and `audit export` (everything since a
 * date, oldest first, as JSON lines for an archive).
 *
 * Reads the audit log through the admin API (/v1/audit with its filters and its Link header,
 * /v1/audit/export); sets nothing; prints to stdout (and, for a page with older entries after
 * it, the --before to go on with, to stderr).
 */
import type { Command } from 'commander';
import type { AuditEntry } from '../../access/audit-log';
import { table } from '../output';
import { type CommandContext, wholeNumber } from './context';

/** Entries per admin API call of `audit export` (the API's largest page). */
const EXPORT_PAGE = 1000;

/** The `before` cursor of `Link: <...>; rel="next"`, or null on the last page. */
function nextCursor(link: string | null): string | null {
  const target = /<([^>]*)>;\s*rel="next"/.exec(link ?? '')?.[1];
  return target === undefined ? null : new URL(target, 'http://gateway').searchParams.get('before');
}

interface AuditOptions {
  limit?: number;
  before?: string;
  vendor?: string;
  actor?: string;
  action?: string;
  since?: string;
  until?: string;
}

export function registerAuditCommands(program: Command, { api, show, json, io, print }: CommandContext): void {
  program
    .command('audit')
    .description('show the audit log, newest first, filtered by the gateway')
    .option('--limit <n>', 'how many entries (default 50, at most 1000)', wholeNumber)
    .option('--before <entryId>', 'entries older than this one (the next page)')
    .option('--vendor <vendorId>', 'entries that concern this vendor (its keys, its users, whole-document changes that touched it)')
    .option('--actor <actor>', 'entries by this actor (admin:otto, or otto)')
    .option('--action <action>', 'entries of this action (key.revoke), or of a family (key)')
    .option('--since <date>', 'entries written at or after this date or date-time (ISO 8601)')
    .option('--until <date>', 'entries written at or before this date-time, or on or before this date (ISO 8601)')
    .action(async (options: AuditOptions) => {
      const older: { before: string | null } = { before: null };
      const { limit, ...filters } = options;
      const entries = await api().request<AuditEntry[]>('GET', 'audit', {
        query: { limit: limit === undefined ? undefined : String(limit), ...filters },
        answerHeaders: (headers) => {
          older.before = nextCursor(headers.get('link'));
        },
      });
      show(entries, (l) =>
        table(
          ['AT', 'ACTOR', 'ACTION', 'TARGET', 'VENDORS', 'ID'],
          l.map((e) => [e.at, e.actor, e.action, e.target, (e.vendorIds ?? []).join(','), e.id]),
        ),
      );
      // The page may be short (the gateway scans a bounded part of the log per page): say how to go on.
      if (older.before !== null && !json()) io.stderr.write(`older entries: the same command with --before ${older.before}\n`);
    })
    .command('export')
    .description('print the audit entries written since a date as JSON lines, oldest first (for the archive)')
    .option('--since <date>', 'a date or date-time (ISO 8601, e.g. 2026-01-01); required')
    .action(async (own: { since?: string }, command: Command) => {
      // The listing's --since has the same name, and commander gives `audit export --since` to it.
      const since = own.since ?? command.parent?.opts<AuditOptions>().since;
      if (since === undefined) command.error("error: required option '--since <date>' not specified");
      const options = { since };
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
