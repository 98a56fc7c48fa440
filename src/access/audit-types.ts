/**
 * The audit log's shapes: an entry, what a writer hands in, the queries and pages, the chain's
 * head and the store interface both stores implement (audit-log.ts, memory-audit-log.ts). Kept
 * apart so the entry and filter helpers they use need not import a store. Reads and sets nothing.
 */
import type { AuditConfig } from './audit-log.schema';
import type { AuditSigner } from './audit-signer';

export interface AuditEntry {
  /** `<ms since the epoch>-<sequence>`: ordered as the entries were written. */
  readonly id: string;
  /** ISO 8601, UTC. */
  readonly at: string;
  readonly actor: string;
  /** `vendor.create`, `key.issue`, `access.replace`, ... */
  readonly action: string;
  /** The admin API path of what changed: `vendors/acme`, `keys/key-1`, `access`. */
  readonly target: string;
  /**
   * The vendors the change concerns, sorted, each once: a key's vendor, the vendors whose keys
   * act as a user whose permissions changed, every vendor a whole-document change touched; []
   * for admin accounts and sign-ins. Entries written before the field existed read as [].
   */
  readonly vendorIds: readonly string[];
  readonly before: unknown;
  readonly after: unknown;
  /**
   * Four eyes: who made the change and when, who approved it and when; or, for a change that
   * only reduces access, that it applied without approval.
   */
  readonly approval?: unknown;
  /** The hash of the entry before it (GENESIS_HASH for the first); entries of earlier releases have none. */
  readonly prevHash?: string;
  /** SHA-256 hex over prevHash and every other field but `id` (audit-chain.ts). */
  readonly hash?: string;
}

/** What a writer hands in; `vendorIds` left out means none (sign-ins, admin accounts); the store chains it. */
export type AuditEntryInput = Omit<AuditEntry, 'id' | 'at' | 'vendorIds' | 'prevHash' | 'hash'> & { readonly vendorIds?: readonly string[] };

/** What `GET /v1/audit` filters by; each one left out matches every entry. */
export interface AuditFilter {
  /** A vendor id the entry names in `vendorIds` (older entries: their target is `vendors/<id>` or below). */
  readonly vendor?: string;
  /** `admin:otto`, or `otto` for any actor of that id. */
  readonly actor?: string;
  /** `key.revoke`, or `key` for every action of that family. */
  readonly action?: string;
  /** Written at or after this time (ms since the epoch). */
  readonly sinceMs?: number;
  /** Written at or before this time (ms since the epoch). */
  readonly untilMs?: number;
}

export interface AuditQuery extends AuditFilter {
  readonly limit: number;
  /** An entry id: list the entries older than it (the next page). Not an entry id: nothing. */
  readonly before?: string;
}

/** A page of the log, newest first; `next` is the `before` cursor of the next page, null at the end. */
export interface AuditPage {
  readonly items: AuditEntry[];
  readonly next: string | null;
}

export interface AuditRangeQuery {
  /** Entries written at or after this time (ms since the epoch). */
  readonly sinceMs: number;
  /** An entry id: continue after it (the next page of an export). */
  readonly after?: string;
  /** An entry id: stop with it. */
  readonly until?: string;
  readonly limit: number;
}

/** The chain's head as the store recorded it with its last append. */
export interface AuditHead {
  readonly hash: string;
  /** Entries appended since the chain began. */
  readonly count: number;
  /** Whether the last entry is a checkpoint. */
  readonly checkpoint: boolean;
}

export interface AuditLog {
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Newest first: the entries of `page`. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Newest first, filtered, scanning at most AUDIT_SCAN_BUDGET entries: a page may hold fewer
   * than `limit` entries and still have a `next` (the scan stopped, not the log).
   */
  page(query: AuditQuery): Promise<AuditPage>;
  /** Oldest first, exactly as stored (entries older than `vendorIds` lack it), for the archive export and verification. */
  range(query: AuditRangeQuery): Promise<AuditEntry[]>;
  /** Writes a signed checkpoint; with `onlyIfNew`, only when an entry was written since the last one. */
  checkpoint(options?: { readonly onlyIfNew?: boolean }): Promise<AuditEntry | null>;
  head(): Promise<AuditHead>;
  /** The newest checkpoint written at or before a time (an export starts there), or null. */
  checkpointBefore(sinceMs: number): Promise<string | null>;
  readonly signer: AuditSigner;
}

export interface AuditLogOptions {
  readonly retention?: Pick<AuditConfig, 'retentionDays' | 'maxEntries'>;
  /** Told how many entries younger than retentionDays the maxEntries guard trimmed. */
  readonly onTrimmedEarly?: (count: number) => void;
  /** Signs checkpoints; a key generated for this process when not given. */
  readonly signer?: AuditSigner;
  /** Told when a checkpoint the count asked for could not be written (the next append asks again). */
  readonly onCheckpointFailed?: (err: unknown) => void;
}
