/**
 * gatewayctl `audit` (a page of the log, newest first), `audit export` (the chain since a date,
 * oldest first, as JSON lines ending with a signed checkpoint, for an archive) and `audit verify`
 * (the hash chain checked by the gateway, or an export file checked here, offline, with the
 * public key alone).
 *
 * Reads the audit log through the admin API (/v1/audit with its filters and its Link header,
 * /v1/audit/export, /v1/audit/verify, /v1/audit/public-key), and the export and public key files
 * given to `verify`; sets nothing; prints to stdout (and, for a page with older entries after it,
 * the --before to go on with, to stderr). `verify` exits 1 on a break, naming the first bad entry.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { ChainVerifier, publicKeys, type VerifyResult } from '../../access/audit-chain';
import type { AuditEntry } from '../../access/audit-log';
import { CommandFailure } from '../admin-client';
import { table } from '../output';
import { type CommandContext, wholeNumber } from './context';

const HASH = /^[0-9a-f]{64}$/;

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

/** An export file checked line by line, as the gateway would, ending with a signed checkpoint. */
async function verifyFile(file: string, publicKeyPem: string, expectedHead: string | undefined): Promise<VerifyResult> {
  const verifier = new ChainVerifier({ keys: publicKeys([publicKeyPem]), expectedHead, endsWithCheckpoint: true });
  let number = 0;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      number += 1;
      if (line.trim() === '') continue;
      let entry: { id: string };
      try {
        entry = JSON.parse(line) as { id: string };
      } catch {
        throw new CommandFailure(`audit chain broken at line ${number} of ${file}: the line is not JSON`);
      }
      if (!verifier.add(entry)) break;
    }
  } catch (err) {
    if (err instanceof CommandFailure) throw err;
    throw new CommandFailure(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  } finally {
    lines.close();
  }
  return verifier.result();
}

function summary(result: VerifyResult): string {
  const span = result.firstId ? ` (${result.firstId} to ${result.lastId})` : '';
  const unverified = result.unverifiedCheckpoints > 0 ? `, ${result.unverifiedCheckpoints} signed by another key` : '';
  return `audit chain intact: ${result.checked} entries${span}, ${result.checkpoints} signed checkpoints${unverified}, head ${result.head}\n`;
}

export function registerAuditCommands(program: Command, { api, show, json, io, print }: CommandContext): void {
  const audit = program
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
    });
  audit
    .command('export')
    .description('print the audit chain since a date as JSON lines, oldest first, ending with a signed checkpoint (for the archive)')
    .option('--since <date>', 'a date or date-time (ISO 8601, e.g. 2026-01-01); required; the export starts at the checkpoint before it')
    .action(async (own: { since?: string }, command: Command) => {
      // The listing's --since has the same name, and commander gives `audit export --since` to it.
      const since = own.since ?? command.parent?.opts<AuditOptions>().since;
      if (since === undefined) command.error("error: required option '--since <date>' not specified");
      // Written as it arrives, so a long retention never sits in memory. JSON lines whatever
      // --json says: the archive format is the point of this command.
      const response = await api().stream('audit/export', { since });
      const decoder = new TextDecoder();
      // A reader that went away (`| head`) ends the download too, instead of reading on for nobody.
      const gone = (): boolean => (io.stdout as { destroyed?: boolean }).destroyed === true;
      for await (const chunk of response.body ?? []) {
        if (gone()) return; // leaving the loop cancels the download
        print(decoder.decode(chunk as Uint8Array, { stream: true }));
      }
      print(decoder.decode());
    });
  audit
    .command('verify')
    .description("check the audit hash chain: the gateway's, or an export file offline; exit 1 naming the first bad entry")
    .option('--file <export.jsonl>', 'an `audit export` file, checked here with the public key alone')
    .option('--head <hash>', "a head you hold (e.g. the hash of an earlier export's last line): its entry must still be there")
    .option('--public-key <pem file>', 'the checkpoint public key (default: asked of the gateway, GET /v1/audit/public-key)')
    .action(async (options: { file?: string; head?: string; publicKey?: string }) => {
      if (options.head !== undefined && !HASH.test(options.head)) throw new CommandFailure('--head must be a SHA-256 hash: 64 lowercase hexadecimal digits.');
      let result: VerifyResult;
      if (options.file === undefined) {
        result = await api().request<VerifyResult>('GET', 'audit/verify', { query: { head: options.head } });
      } else {
        let pem: string;
        try {
          pem = options.publicKey === undefined ? await (await api().stream('audit/public-key')).text() : readFileSync(options.publicKey, 'utf8');
        } catch (err) {
          if (err instanceof CommandFailure) throw err;
          throw new CommandFailure(`cannot read the public key ${options.publicKey}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        try {
          result = await verifyFile(options.file, pem, options.head);
        } catch (err) {
          if (err instanceof CommandFailure) throw err;
          throw new CommandFailure(`the public key is not a PEM public key: ${(err as Error).message}`);
        }
      }
      if (!result.ok) throw new CommandFailure(`audit chain broken at entry ${result.firstBadId ?? '(none)'}: ${result.reason ?? 'unknown'}`);
      show(result, summary);
    });
}
