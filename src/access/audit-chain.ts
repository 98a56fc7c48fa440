/**
 * The audit log's hash chain and signed checkpoints, as pure functions: the hash of an entry,
 * the checkpoint's signed statement, and the verifier that walks entries oldest first. Used by
 * the stores (audit-log.ts), the admin API (`/v1/audit/verify`, `/v1/audit/export`) and
 * `gatewayctl audit verify --file`, which checks an export offline with the public key alone.
 *
 * hash = SHA-256 hex of `prevHash` followed by the canonical JSON (keys sorted, at every depth)
 * of the stored entry without `hash` and `id`. Every other field is covered, whatever it is
 * named, so a field added later is covered without a change here. The id is left out because
 * Redis assigns it inside the append script, after the gateway computed the hash; the covered
 * `at` carries the time and `prevHash` fixes the order, so the id is a locator only.
 *
 * A checkpoint is a chained entry (action `audit.checkpoint`, actor `gateway`) whose `after`
 * holds the head it anchors (its own prevHash), how many entries the chain had by then, the
 * signing key's id and an Ed25519 signature over those and its time. Whoever holds only the
 * public key can check it and cannot make one. The chain starts at GENESIS_HASH; retention trims
 * only up to a checkpoint, so the oldest kept entry is the first ever or a signed checkpoint, and
 * anything else at the front means entries were removed. Reads nothing; sets nothing.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);
export const CHECKPOINT_ACTION = 'audit.checkpoint';
export const CHECKPOINT_ACTOR = 'gateway';
const STATEMENT_VERSION = 'cbg-audit-checkpoint/1';

/** JSON with object keys sorted at every depth and undefined properties left out, as JSON.stringify would. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v: unknown) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort();
    return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash an entry should carry: over its prevHash and every field but `hash` and `id`. */
export function entryHash(entry: Readonly<Record<string, unknown>>): string {
  const { hash: _hash, id: _id, ...covered } = entry;
  return createHash('sha256')
    .update(`${String(entry.prevHash)}${canonicalJson(covered)}`)
    .digest('hex');
}

/** A public key's id: SHA-256 hex of its DER (SubjectPublicKeyInfo) form, first 32 digits. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 32);
}

/** What a checkpoint entry keeps in `after`. */
export interface CheckpointBody {
  readonly head: string;
  readonly count: number;
  readonly keyId: string;
  readonly signature: string;
}

const statement = (head: string, count: number, at: string, keyId: string): Buffer =>
  Buffer.from(canonicalJson({ v: STATEMENT_VERSION, head, count, at, keyId }));

/** Signs "the chain had `count` entries ending in `head` at `at`" with an Ed25519 private key. */
export function signCheckpoint(privateKey: KeyObject, keyId: string, head: string, count: number, at: string): CheckpointBody {
  return { head, count, keyId, signature: sign(null, statement(head, count, at, keyId), privateKey).toString('base64') };
}

interface ChainedEntry {
  readonly id: string;
  readonly [field: string]: unknown;
}

const isCheckpoint = (entry: ChainedEntry): boolean => entry.action === CHECKPOINT_ACTION && entry.actor === CHECKPOINT_ACTOR;

type CheckpointCheck = 'valid' | 'unknown-key' | 'invalid';

function checkCheckpoint(entry: ChainedEntry, keys: ReadonlyMap<string, KeyObject>): CheckpointCheck {
  const body = entry.after as Partial<CheckpointBody> | null;
  if (!body || typeof body.head !== 'string' || typeof body.signature !== 'string' || typeof body.keyId !== 'string') return 'invalid';
  if (body.head !== entry.prevHash || typeof body.count !== 'number' || typeof entry.at !== 'string') return 'invalid';
  const key = keys.get(body.keyId);
  if (!key) return 'unknown-key';
  return verify(null, statement(body.head, body.count, entry.at, body.keyId), key, Buffer.from(body.signature, 'base64')) ? 'valid' : 'invalid';
}

/** The public keys checkpoints are checked with, by key id. */
export function publicKeys(pems: readonly string[]): Map<string, KeyObject> {
  return new Map(pems.map((pem) => createPublicKey(pem)).map((key) => [keyIdOf(key), key]));
}

export interface VerifyOptions {
  readonly keys: ReadonlyMap<string, KeyObject>;
  /** A head an auditor holds: it must be the hash of an entry of the chain (newest entries not removed). */
  readonly expectedHead?: string;
  /** The head the store recorded with its last write: the last entry must carry it. */
  readonly recordedHead?: string;
  /** An export: the last entry must be a checkpoint signed by one of `keys`. */
  readonly endsWithCheckpoint?: boolean;
}

export interface VerifyResult {
  readonly ok: boolean;
  /** Chained entries checked. */
  readonly checked: number;
  readonly firstBadId?: string;
  readonly reason?: string;
  /** The hash of the last entry checked (GENESIS_HASH for none). */
  readonly head: string;
  /** Checkpoints whose signature verified, and those signed by a key not in `keys`. */
  readonly checkpoints: number;
  readonly unverifiedCheckpoints: number;
  /** Entries before the chain began (written by a release without it), not checked. */
  readonly unchained: number;
  readonly firstId?: string;
  readonly lastId?: string;
}

/** Walks entries oldest first and stops at the first break; `result()` says what it found. */
export class ChainVerifier {
  private checked = 0;
  private checkpoints = 0;
  private unverified = 0;
  private unchained = 0;
  private head = GENESIS_HASH;
  private firstId: string | undefined;
  private lastId: string | undefined;
  private lastWasValidCheckpoint = false;
  private sawExpected = false;
  private bad: { id: string; reason: string } | null = null;

  constructor(private readonly options: VerifyOptions) {}

  /** False once a break was found (later entries are not looked at). */
  add(stored: { readonly id: string }): boolean {
    if (this.bad) return false;
    const entry = stored as ChainedEntry;
    const problem = this.problemOf(entry);
    if (problem === 'unchained') return true;
    if (problem) {
      this.bad = { id: entry.id, reason: problem };
      return false;
    }
    this.checked += 1;
    this.firstId ??= entry.id;
    this.lastId = entry.id;
    this.head = entry.hash as string;
    if (this.head === this.options.expectedHead) this.sawExpected = true;
    return true;
  }

  private problemOf(entry: ChainedEntry): string | null | 'unchained' {
    if (typeof entry.hash !== 'string') {
      if (this.checked > 0) return 'the entry carries no hash: it was written outside the chain';
      this.unchained += 1;
      return 'unchained';
    }
    if (entryHash(entry) !== entry.hash) return 'the entry does not match its hash: it was edited';
    const checkpoint = isCheckpoint(entry) ? checkCheckpoint(entry, this.options.keys) : null;
    if (checkpoint === 'invalid') return 'the checkpoint signature does not verify';
    if (this.checked === 0 && entry.prevHash !== GENESIS_HASH && checkpoint !== 'valid') {
      return checkpoint === 'unknown-key'
        ? 'the oldest entry is a checkpoint signed by a key not given to verify with, so the entries trimmed before it cannot be vouched for'
        : 'the oldest entry is neither the first of the chain nor a signed checkpoint: older entries were removed';
    }
    if (this.checked > 0 && entry.prevHash !== this.head) {
      return 'its prevHash is not the hash of the entry before it: an entry before it was removed, inserted or moved';
    }
    if (checkpoint === 'valid') this.checkpoints += 1;
    if (checkpoint === 'unknown-key') this.unverified += 1;
    this.lastWasValidCheckpoint = checkpoint === 'valid';
    return null;
  }

  result(): VerifyResult {
    const found = { checked: this.checked, head: this.head, checkpoints: this.checkpoints, unverifiedCheckpoints: this.unverified, unchained: this.unchained };
    const span = { ...(this.firstId ? { firstId: this.firstId } : {}), ...(this.lastId ? { lastId: this.lastId } : {}) };
    const broken = this.bad ?? this.endProblem();
    if (broken) return { ok: false, ...found, firstBadId: broken.id, reason: broken.reason, ...span };
    return { ok: true, ...found, ...span };
  }

  /** What the end of the chain shows: newest entries removed, or an export without its signed end. */
  private endProblem(): { id: string; reason: string } | null {
    const last = this.lastId ?? '(none)';
    const { expectedHead, recordedHead, endsWithCheckpoint } = this.options;
    if (expectedHead !== undefined && expectedHead !== GENESIS_HASH && !this.sawExpected) {
      return {
        id: last,
        reason: `no entry has the expected head ${expectedHead}: entries after ${last} were removed (or the head is older than the oldest kept entry)`,
      };
    }
    if (recordedHead !== undefined && recordedHead !== this.head) {
      return {
        id: last,
        reason: `the chain head recorded with the last write is ${recordedHead}, not the last entry's hash: entries after ${last} were removed`,
      };
    }
    if (endsWithCheckpoint && !this.lastWasValidCheckpoint) {
      return { id: last, reason: 'the export does not end with a checkpoint signed by the given key: its end was cut off or altered' };
    }
    return null;
  }
}
