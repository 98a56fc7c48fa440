/**
 * How the Redis access store's commit and swap scripts append the change's audit entry to the
 * hash chain (lua/audit-append.ts): the entry is prepared against the chain head this instance
 * knows; a script that finds the head moved (another instance wrote) refuses before its first
 * write and answers the head, and the entry is prepared again, at most `attempts` times, then a
 * 503. Reads and sets nothing itself: the script does.
 */
import { StoreUnavailableError } from '../errors/error-catalogue';
import type { AuditEntryInput, AuditStreamTarget } from './audit-log';

/** A commit or swap script's reply: status (1 written, -7 the audit head moved), version, then per script. */
export type AuditedReply = [number, number, string?, (string | number)?, (string | number)?, number?];
/** A script's audit arguments: the entry, retention ms and max entries; then its prevHash and hash. */
type AuditArgs = readonly [[string, string, string], [string, string]];

/**
 * Runs `run` (a script that appends `audit` with its change), preparing the entry again while
 * another writer moves the chain's head first. `needCheckpointAt`: where the reply says a
 * checkpoint is due.
 */
export async function withAuditEntry(
  target: AuditStreamTarget | undefined,
  audit: AuditEntryInput | null,
  needCheckpointAt: number,
  run: (args: AuditArgs) => Promise<AuditedReply>,
): Promise<AuditedReply> {
  if (!audit || !target)
    return run([
      ['', '0', '0'],
      ['', ''],
    ]);
  for (let attempt = 0; attempt < target.attempts; attempt++) {
    const prepared = await target.prepare(audit).catch((err: unknown) => {
      throw new StoreUnavailableError(err);
    });
    const reply = await run([
      [prepared.json, String(target.retentionMs), String(target.maxEntries)],
      [prepared.prevHash, prepared.hash],
    ]);
    if (reply[0] === -7) {
      target.moved(reply[2], reply[3], reply[4]);
      continue;
    }
    if (reply[0] === 1) target.written(prepared, Number(reply[3] ?? 0), Number(reply[needCheckpointAt]) === 1);
    return reply;
  }
  throw new StoreUnavailableError(target.headMovedTooOften());
}
