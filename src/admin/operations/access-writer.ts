/**
 * How every admin write reaches the access store: plan on the current records, validate, commit
 * the operations with their audit entry in one step if every guard still holds, else plan again
 * on the new state (never applied blindly). Writes of this instance are queued, so they never
 * race each other.
 *
 * Reads the live AccessIndex (brought up to the store's version first, so a write and a read see
 * what any instance last wrote); sets records through the AccessStore and drops removed keys'
 * last-use times. A write may also be previewed (planned, nothing committed) or made as the
 * approval of a proposal, which it then consumes in the same step, and only while what it
 * changes is still what the change's preview showed.
 */
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors/error-catalogue';
import type { AuditEntryInput } from '../../access/audit-log';
import { AccessStoreIntegrityError, RecordConflictError, VersionConflictError, type AccessStore } from '../../access/access-store';
import { RECORD_SCHEMAS, recordJson, removedKeyIds, type AccessOp } from '../../access/access-state';
import { AccessIndex } from '../../access/access-index';
import type { AccessCache } from '../../access/cache';
import type { KeyUsageTracker } from '../../access/key-usage';
import type { Proposal } from '../../access/model';
import { fieldErrors } from './admin-inputs';
import { sameValue } from './access-diff';
import { vendorIdsOf } from './audit-vendors';
import { BOOTSTRAP_ID, LOCKED_BOOTSTRAP, setupOpen } from './four-eyes';

/** What a write did, for the audit log. */
export interface Change {
  readonly action: string;
  /** The admin API path of what changed: `vendors/acme`, `keys/key-1`, `access`. */
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
  /**
   * The vendors it concerns (the audit entry's `vendorIds`): left out, the writer resolves them
   * from the target on the records the change is planned on (audit-vendors.ts).
   */
  readonly vendorIds?: readonly string[];
}

/** A write's result; `change` is null when the write found nothing to change. */
export interface Outcome<T> {
  readonly result: T;
  readonly change: Change | null;
  /** A preview's digest of the whole records its write would write over (`pinOf`). */
  readonly pin?: string;
}

/** A plan for one write: its result, the audit change, and the operations that make it. */
export interface Plan<T> {
  readonly result: T;
  readonly change: Change | null;
  readonly ops: AccessOp[];
  /** Commit only at this config version (admin writes: set-up's latch depends on every admin record). */
  readonly expectedVersion?: number;
}

/**
 * A digest of every whole record a write's operations write over, and of the vendor a new key
 * or portal user joins (the set-up latch and the proposal itself left out): a proposal applies only
 * while these are what they were when it was previewed, not merely its own before-value (a
 * licence granted to a vendor deleted and made again, or suspended, meanwhile would not).
 */
function pinOf(index: AccessIndex, ops: readonly AccessOp[]): string {
  const json = (kind: AccessOp['kind'], record: unknown): string | null => (record ? recordJson(kind, record) : null);
  const entries = new Map<string, string | null>();
  for (const op of ops) {
    if (op.kind === 'proposal' || (op.kind === 'admin' && op.id === BOOTSTRAP_ID)) continue;
    entries.set(`${op.kind}/${op.id}`, json(op.kind, op.expect));
    const vendorId = (op.kind === 'key' || op.kind === 'portalUser') && op.value ? op.value.vendorId : undefined;
    if (vendorId !== undefined && !entries.has(`vendor/${vendorId}`)) entries.set(`vendor/${vendorId}`, json('vendor', index.vendor(vendorId)));
  }
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `sha256:${createHash('sha256').update(JSON.stringify(sorted)).digest('hex')}`;
}

/** Four eyes: who made a change and when, who approved it and when (kept in its audit entry). */
export interface Approval {
  readonly maker: string;
  readonly madeAt: string;
  readonly checker: string;
  readonly checkedAt: string;
}

/**
 * Who writes: an admin (`admin:<id>`), or the same with a mode: `preview` plans and commits
 * nothing; `approving` applies a proposal and removes it in the same step; `approval` is
 * recorded as it is (a change that needed none, and why).
 */
export type WriteBy =
  | string
  | {
      readonly actor: string;
      readonly preview?: boolean;
      readonly approving?: { readonly proposal: Proposal; readonly approval: Approval };
      readonly approval?: unknown;
      /** Made with the bootstrap token's set-up power (an admin write it made at once). */
      readonly setup?: boolean;
    };

export interface AccessWriterOptions {
  /** Attempts per write when other instances keep changing the same records meanwhile. */
  readonly maxAttempts?: number;
  /** Where removed keys' last-use times are dropped (see key-usage.ts). */
  readonly keyUsage?: Pick<KeyUsageTracker, 'lastUsed' | 'forgetRemoved'>;
}

const DEFAULT_MAX_ATTEMPTS = 10;

export const unchanged = <T>(result: T): Plan<T> => ({ result, change: null, ops: [] });

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The 503 of any change to a store whose records do not add up to its version. */
function inconsistentStore(problem: string, holdsCopy: boolean): GatewayError {
  const mend = holdsCopy
    ? 'A whole-document write (PUT /v1/access, gatewayctl apply) of the config this instance serves rewrites every record and mends it.'
    : 'This instance holds no copy of the config: send the whole-document write (PUT /v1/access, gatewayctl apply) to an instance that serves one, or, where none does, apply your last exported or declarative file here.';
  return new GatewayError('store_unavailable', `The access config in Redis is inconsistent: ${problem}. Changes are refused until it is mended. ${mend}`);
}

/** Each record a write would store, checked by its schema: a 400 naming every bad field. */
function validateOps(ops: readonly AccessOp[]): void {
  for (const op of ops) {
    if (!op.value) continue;
    const result = RECORD_SCHEMAS[op.kind].safeParse(op.value);
    if (!result.success) {
      throw new GatewayError('invalid_request', 'The change would make the access config invalid; see errors.', { errors: fieldErrors(result.error) });
    }
  }
}

interface Writer {
  readonly actor: string;
  readonly preview: boolean;
  readonly approving: Extract<WriteBy, object>['approving'];
  /** What the audit entry records under `approval`. */
  readonly approval: unknown;
  readonly setup: boolean;
}

export function writerOf(by: WriteBy): Writer {
  if (typeof by === 'string') return { actor: by, preview: false, approving: undefined, approval: undefined, setup: false };
  return { actor: by.actor, preview: by.preview ?? false, approving: by.approving, approval: by.approving?.approval ?? by.approval, setup: by.setup ?? false };
}

/**
 * Refuses, on the very records a write is planned on (and so committed at, since admin writes and
 * approvals commit only at that version), what only set-up allows once set-up is closed: the
 * bootstrap token's own admin writes, its approvals, and approving a change it filed. A check on
 * an earlier copy would let a write racing the second approver's enrolment commit after the latch.
 */
function refuseAfterSetup(writer: Writer, index: AccessIndex): void {
  if (setupOpen(index)) return;
  const checker = (writer.approving?.approval as { checker?: unknown } | undefined)?.checker;
  if (writer.setup || checker === `admin:${BOOTSTRAP_ID}`) throw new GatewayError('permission_denied', LOCKED_BOOTSTRAP);
  if (writer.approving?.proposal.makerId === BOOTSTRAP_ID) {
    throw new GatewayError(
      'conflict',
      `Change "${writer.approving.proposal.id}" was made by the bootstrap token, and set-up is closed; reject it, and have a current admin make it again if it is still wanted.`,
    );
  }
}

/** The change with the vendors it concerns, resolved on the records it is planned on. */
const withVendorIds = (index: AccessIndex, change: Change | null): Change | null => change && { ...change, vendorIds: vendorIdsOf(index, change) };

/** The audit entry of a change, with its approval when it had one. */
export function auditEntry(writer: Writer, change: Change): AuditEntryInput {
  return { actor: writer.actor, ...change, ...(writer.approval === undefined ? {} : { approval: writer.approval }) };
}

export class AccessWriter {
  private readonly maxAttempts: number;
  readonly keyUsage: AccessWriterOptions['keyUsage'];
  /** The last queued write of this instance; each write starts after the one before. */
  private writeQueue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly cache: AccessCache,
    readonly store: AccessStore,
    options: AccessWriterOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.keyUsage = options.keyUsage;
  }

  /**
   * The index at the store's current version: what any instance last wrote. With a store found
   * inconsistent, the copy this instance serves (reads, and the whole-document write that mends
   * the store); `forChange` refuses any other change then (503).
   */
  async index(options: { readonly forChange?: boolean } = {}): Promise<AccessIndex> {
    try {
      await this.cache.sync();
    } catch (err) {
      if (!(err instanceof AccessStoreIntegrityError)) throw err;
    }
    const index = this.cache.index;
    const problem = this.cache.problem;
    if (problem !== null && (options.forChange || !index)) throw inconsistentStore(problem, index !== null);
    if (!index) throw new GatewayError('store_unavailable', 'The access config is not loaded yet; retry shortly.', { headers: { 'Retry-After': '1' } });
    return index;
  }

  /**
   * What a whole-document write is planned on: the index (see `index`), or, where the store is
   * inconsistent and this instance holds no copy, an empty index at the store's version: the
   * write then rewrites the config from the document alone (the road back when no instance
   * holds a copy to mend from).
   */
  async wholeWriteIndex(): Promise<AccessIndex> {
    try {
      return await this.index();
    } catch (err) {
      const version = this.cache.inconsistentStoreVersion;
      if (version === null || this.cache.index) throw err;
      return new AccessIndex(version);
    }
  }

  queued<T>(run: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(run, run);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  /** Plan on the current records, validate, commit if every guard still holds; else again. */
  write<T>(by: WriteBy, plan: (index: AccessIndex) => Plan<T>): Promise<Outcome<T>> {
    const writer = writerOf(by);
    const { preview, approving } = writer;
    if (preview) {
      return this.index().then((index) => {
        const { result, change, ops } = plan(index);
        return { result, change: withVendorIds(index, change), pin: pinOf(index, ops) };
      });
    }
    return this.queued(async () => {
      for (let attempt = 1; ; attempt++) {
        const index = await this.index({ forChange: true });
        refuseAfterSetup(writer, index);
        const planned = plan(index);
        const { result, ops, expectedVersion } = planned;
        const change = withVendorIds(index, planned.change);
        if (change === null || ops.length === 0) {
          if (approving) throw new GatewayError('conflict', `Change "${approving.proposal.id}" would change nothing now; reject it.`);
          return { result, change: null };
        }
        // Checked on the records this commit is guarded by: an approval applies exactly what was previewed.
        const pinned = approving?.proposal.pin;
        if (
          approving &&
          (!sameValue(change.before, (approving.proposal.preview as { before?: unknown } | null)?.before) ||
            (pinned !== undefined && pinned !== pinOf(index, ops)))
        ) {
          throw new GatewayError(
            'conflict',
            `The config changed since change "${approving.proposal.id}" was made, so it would no longer apply as previewed; reject it and make it again. preview holds what it would change now.`,
            {
              preview: { action: change.action, target: change.target, before: change.before, after: change.after },
            },
          );
        }
        validateOps(ops);
        // Approving consumes the proposal in the same step: two approvers cannot both apply it.
        // (A write that drops proposals itself may name the one it consumes: it is removed once.)
        const all: AccessOp[] = approving
          ? [
              ...ops.filter((op) => op.kind !== 'proposal' || op.id !== approving.proposal.id),
              { kind: 'proposal', id: approving.proposal.id, value: null, expect: approving.proposal },
            ]
          : ops;
        try {
          // An approval commits only on the version it was checked on (else it is checked again).
          await this.store.commit({
            ops: all,
            audit: auditEntry(writer, change),
            ...(approving ? { expectedVersion: index.version } : expectedVersion === undefined ? {} : { expectedVersion }),
          });
          await this.afterCommit(all);
          return { result, change };
        } catch (err) {
          if (approving && err instanceof RecordConflictError && err.kind === 'proposal') {
            throw new GatewayError('conflict', `Change "${approving.proposal.id}" was approved or rejected meanwhile.`, { cause: err });
          }
          await this.afterConflict(err, attempt);
        }
      }
    });
  }

  /** Rethrows anything but a lost race, and a lost race once the attempts are spent. */
  async afterConflict(err: unknown, attempt: number): Promise<void> {
    if (err instanceof AccessStoreIntegrityError) throw inconsistentStore(err.problem, this.cache.index !== null);
    if (err instanceof RecordConflictError && err.reason === 'duplicate_key_hash') {
      throw new GatewayError('conflict', `Key "${err.id}" has the same hash as another key; every key needs its own secret.`, { cause: err });
    }
    if (!(err instanceof VersionConflictError || err instanceof RecordConflictError)) throw err;
    if (attempt >= this.maxAttempts) {
      throw new GatewayError('conflict', 'The access config kept changing during this write; try again.', { cause: err });
    }
    // Jitter, so two instances that collided do not collide again in lockstep.
    await pause(Math.random() * 10 * attempt);
  }

  /** Read-your-writes on this instance, and the removed keys' last-use times dropped. */
  async afterCommit(ops: readonly AccessOp[]): Promise<void> {
    await this.cache.sync();
    await this.keyUsage?.forgetRemoved(removedKeyIds(ops));
  }
}
