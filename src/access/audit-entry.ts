/**
 * An audit entry as the stores keep it: scrubbed of secrets, timestamped, linked into the hash
 * chain (audit-chain.ts), or made a signed checkpoint; and the order of entry ids. Shared by the
 * memory and Redis stores (audit-log.ts). Reads nothing; sets nothing.
 */
import { StoreUnavailableError } from '../errors/error-catalogue';
import { CHECKPOINT_ACTION, CHECKPOINT_ACTOR, entryHash } from './audit-chain';
import type { AuditSigner } from './audit-signer';
import type { AuditEntry, AuditEntryInput, AuditHead } from './audit-types';

const ENTRY_ID = /^(\d{1,15})-(\d{1,15})$/;
/** Appends computed again when another writer moved the head; then a 503. */
export const APPEND_ATTEMPTS = 20;

const SECRET_PROPERTIES = new Set(['secret', 'token', 'adminToken', 'password', 'authorization']);
const API_KEY_SHAPE = /cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}/g;

function scrub(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(API_KEY_SHAPE, '[redacted]');
  if (Array.isArray(value)) return value.map(scrub);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      if (!SECRET_PROPERTIES.has(name) && inner !== undefined) out[name] = scrub(inner);
    }
    return out;
  }
  return value;
}

export type StoredEntry = Omit<AuditEntry, 'id'>;
export type UnchainedEntry = Omit<StoredEntry, 'prevHash' | 'hash'>;

export function newEntry(input: AuditEntryInput): UnchainedEntry {
  return {
    at: new Date().toISOString(),
    actor: input.actor,
    action: input.action,
    target: input.target,
    vendorIds: [...new Set(input.vendorIds ?? [])].sort(),
    before: scrub(input.before) ?? null,
    after: scrub(input.after) ?? null,
    ...(input.approval === undefined ? {} : { approval: scrub(input.approval) }),
  };
}

/** The entry linked to `prevHash`, with its own hash. */
export function chained(entry: UnchainedEntry, prevHash: string): StoredEntry {
  const linked = { ...entry, prevHash };
  return { ...linked, hash: entryHash(linked) };
}

/** The checkpoint entry for a head, or null when `onlyIfNew` and nothing was written since the last. */
export function checkpointEntry(signer: AuditSigner, head: AuditHead, onlyIfNew: boolean): UnchainedEntry | null {
  if (onlyIfNew && (head.count === 0 || head.checkpoint)) return null;
  const at = new Date().toISOString();
  // vendorIds stored even when empty: a read fills a missing one in, and the hash covers what is stored.
  return {
    at,
    actor: CHECKPOINT_ACTOR,
    action: CHECKPOINT_ACTION,
    target: 'audit',
    vendorIds: [],
    before: null,
    after: signer.sign(head.hash, head.count, at),
  };
}

/** Orders entry ids as the stream does; null for anything that is not one. */
export function idKey(id: string): [number, number] | null {
  const m = ENTRY_ID.exec(id);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export const idBefore = (a: [number, number], b: [number, number]): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
export const atOrBefore = (a: string, b: string): boolean => !idBefore(idKey(b) as [number, number], idKey(a) as [number, number]);

export const headMovedTooOften = (): StoreUnavailableError =>
  new StoreUnavailableError(new Error(`the audit chain head moved ${APPEND_ATTEMPTS} times while appending (other writers); nothing was written`));
