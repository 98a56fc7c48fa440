/**
 * Access stores behind one interface, and the memory store (sandbox mode, no REDIS_URL).
 *
 * A store holds the access config as records (access-state.ts) with one version, raised by
 * every change. A change is committed whole or not at all, together with its audit entry, and
 * is kept as a delta that instances replay in order (`changesSince`); an instance loads every
 * record (`load`) only at start or when it finds a gap. The memory store keeps the records, the
 * recent deltas and the audit log in this process; the Redis store implements the same interface
 * for a fleet.
 *
 * Reads the declarative access file once (`readAccessFile`), validated by the access document
 * schema.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { AuditEntryInput, AuditLog } from './audit-log';
import { StartupError } from '../errors/startup-error';
import { accessDocumentSchema, documentField, withGrantIds, type AccessDocument, type AdminAccount, type PortalUser, type Proposal } from './model';
import {
  DOCUMENT_KINDS,
  documentToRecords,
  operationsBetween,
  recordJson,
  vendorWithKeys,
  type AccessOp,
  type AccessRecords,
  type KeyEntity,
  type RecordKind,
  type UserRecord,
  type VendorRecord,
} from './access-state';

interface VersionedAccessDocument {
  readonly version: number;
  readonly document: AccessDocument;
}

/** One committed change as instances replay it; `ops` null: too large for a delta, load again. */
export interface AccessChange {
  readonly version: number;
  readonly ops: readonly AccessOp[] | null;
}

export interface AccessCommit {
  readonly ops: readonly AccessOp[];
  /** Apply only while the config is still at this version (whole-document writes). */
  readonly expectedVersion?: number;
  /** Written in the same atomic step as the change, so neither exists without the other. */
  readonly audit: AuditEntryInput | null;
}

export interface AccessReplaceAll {
  readonly expectedVersion?: number;
  readonly audit: AuditEntryInput | null;
  /**
   * The write mends a store that lost records: the records carry admins, proposals and portal users too
   * (from the copy the writer serves), and they are written as well.
   */
  readonly mend?: boolean;
}

export interface LoadedAccess {
  readonly version: number;
  /** Where to follow changes from (`changesSince`). */
  readonly cursor: string;
  /**
   * True when the store proved the records whole for this version (the Redis store's manifest,
   * written by the same script as the version); false when it cannot tell (a store written by an
   * earlier release), and the cache then judges a load by what it held before.
   */
  readonly vouched?: boolean;
}

/** This instance's newest copy, which a shared store writes back when it is found behind it. */
export type LastGoodCopy = () => { readonly version: number; readonly records: AccessRecords } | null;

export type ChangesSince = { readonly changes: AccessChange[]; readonly cursor: string } | 'gap';

export interface AccessStore {
  /**
   * Hands every record over in batches (a large config never holds the event loop long) and
   * returns the version they make up with the cursor to follow later changes from. Changes made
   * while loading may show in the batches; replaying the changes after the cursor fixes them up.
   */
  load(onBatch: (records: Partial<AccessRecords>) => void): Promise<LoadedAccess>;
  /** The changes after `cursor` in order, or 'gap' when some after `version` are gone. */
  changesSince(cursor: string, version: number): Promise<ChangesSince>;
  /** Applies a small change atomically; returns the new version. */
  commit(change: AccessCommit): Promise<number>;
  /**
   * Makes the records exactly these, as one new version (large whole-document writes); answers
   * the version with the cursor just after it. The writer serves the records it holds from there
   * (AccessCache.adopt) instead of loading them back; every other instance loads them.
   */
  replaceAll(records: AccessRecords, change: AccessReplaceAll): Promise<LoadedAccess>;
  /** Calls `onChange` after any change, on this instance or another; returns an unsubscribe. */
  subscribe(onChange: () => void): () => void;
  /** Where a shared store finds this instance's newest copy when it must heal. */
  serveAsLastGoodCopy?(source: LastGoodCopy): void;
  /**
   * What is wrong with the shared store's records as its latest check found them (records gone
   * while the version stayed), at which version, or null. A change of finding is reported to
   * `subscribe`'s listeners.
   */
  integrity?(): StoreIntegrityProblem | null;
  close(): Promise<void>;
}

export interface StoreIntegrityProblem {
  readonly problem: string;
  /** The store's version when it was found. */
  readonly version: number;
}

export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`access config changed meanwhile (expected version ${expected}, found ${actual})`);
  }
}

/**
 * A shared store whose records do not add up to its version: they expired, were evicted or were
 * deleted while the version stayed. Loading it would serve a config with vendors and keys
 * missing, and a change computed on it would be written on top of the loss.
 */
export class AccessStoreIntegrityError extends Error {
  override readonly name = 'AccessStoreIntegrityError';
  constructor(readonly problem: string) {
    super(`the access store is inconsistent: ${problem}`);
  }
}

/** A guarded record no longer holds what the change was computed from, or an invariant fails. */
export class RecordConflictError extends Error {
  override readonly name = 'RecordConflictError';
  constructor(
    readonly reason: 'changed' | 'no_vendor' | 'duplicate_key_hash',
    readonly kind: RecordKind,
    readonly id: string,
  ) {
    super(
      reason === 'changed'
        ? `${kind} "${id}" changed meanwhile`
        : reason === 'no_vendor'
          ? `a key or portal user names vendor "${id}", which does not exist`
          : `key "${id}" has the hash of another key`,
    );
  }
}

/** A start-up failure (exit 2): access.file (ACCESS_FILE) cannot be read or is invalid. */
class AccessFileError extends StartupError {
  override readonly name = 'AccessFileError';

  constructor(message: string) {
    super('access-file', message);
  }
}

/** Parses and validates a declarative access file; errors name the file and each bad key. */
function parseAccessDocument(text: string, source: string): AccessDocument {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new AccessFileError(`${source}: not valid YAML: ${(err as Error).message}`);
  }
  // Licences and permissions without ids get theirs first, as PUT /v1/access gives them.
  const idIssues = withGrantIds(raw);
  const result = accessDocumentSchema.safeParse(raw ?? {});
  const issues = [...idIssues, ...(result.success ? [] : result.error.issues)];
  if (!result.success || issues.length > 0) {
    const lines = issues.map((i) => `  ${documentField(i.path, raw).words}: ${i.message}`);
    throw new AccessFileError(`${source}: invalid access document:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function readAccessFile(file: string): AccessDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new AccessFileError(`access.file (ACCESS_FILE) ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseAccessDocument(text, file);
}

/** Every record of a store as one document (tests, small tools): vendors and users by id. */
export async function readDocument(store: AccessStore): Promise<VersionedAccessDocument> {
  const vendors: VendorRecord[] = [];
  const keys: KeyEntity[] = [];
  const users: UserRecord[] = [];
  const loaded = await store.load((batch) => {
    vendors.push(...(batch.vendors ?? []));
    keys.push(...(batch.keys ?? []));
    users.push(...(batch.users ?? []));
  });
  const state = new Map<string, Map<string, unknown>>([
    ['vendor', new Map(vendors.map((v) => [v.id, v]))],
    ['key', new Map(keys.map((k) => [k.id, k]))],
    ['user', new Map(users.map((u) => [u.id, u]))],
  ]);
  let version = loaded.version;
  const changes = await store.changesSince(loaded.cursor, loaded.version);
  if (changes !== 'gap') {
    for (const change of changes.changes) {
      if (change.ops === null) return readDocument(store);
      for (const op of change.ops) {
        if (op.value) state.get(op.kind)?.set(op.id, op.value);
        else state.get(op.kind)?.delete(op.id);
      }
      version = change.version;
    }
  }
  const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const allKeys = [...(state.get('key') as Map<string, KeyEntity>).values()].sort(byId);
  return {
    version,
    document: {
      vendors: [...(state.get('vendor') as Map<string, VendorRecord>).values()].sort(byId).map((v) =>
        vendorWithKeys(
          v,
          allKeys.filter((k) => k.vendorId === v.id),
        ),
      ),
      users: [...(state.get('user') as Map<string, UserRecord>).values()].sort(byId),
    },
  };
}

/** Replaces a store's whole config with a document (tests, seeding): one guarded change. */
export async function writeDocument(store: AccessStore, document: AccessDocument, expectedVersion?: number): Promise<number> {
  const current = await readDocument(store);
  if (expectedVersion !== undefined && current.version !== expectedVersion) throw new VersionConflictError(expectedVersion, current.version);
  const ops = operationsBetween(documentToRecords(current.document), documentToRecords(accessDocumentSchema.parse(document)));
  return store.commit({ ops, expectedVersion: current.version, audit: null });
}

/** How many changes the memory store keeps for instances that fall behind (there is one). */
const MEMORY_CHANGES_KEPT = 1000;

interface MemoryAccessStoreOptions {
  /** Where a change's audit entry goes, in the same step as the change. */
  readonly audit?: AuditLog;
}

export class MemoryAccessStore implements AccessStore {
  private version = 1;
  private readonly records: Record<RecordKind, Map<string, unknown>> = {
    vendor: new Map(),
    key: new Map(),
    user: new Map(),
    admin: new Map(),
    proposal: new Map(),
    portalUser: new Map(),
  };
  private readonly keyIdByHash = new Map<string, string>();
  private readonly changes: AccessChange[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    document: AccessDocument,
    private readonly options: MemoryAccessStoreOptions = {},
  ) {
    this.setAll(documentToRecords(accessDocumentSchema.parse(document)));
  }

  async load(onBatch: (records: Partial<AccessRecords>) => void): Promise<LoadedAccess> {
    onBatch(this.snapshot());
    return { version: this.version, cursor: String(this.version) };
  }

  async changesSince(cursor: string, version: number): Promise<ChangesSince> {
    const after = Number(cursor);
    const changes = this.changes.filter((c) => c.version > after);
    if (this.version > version && changes[0]?.version !== version + 1) return 'gap';
    return { changes, cursor: String(this.version) };
  }

  async commit(change: AccessCommit): Promise<number> {
    if (change.expectedVersion !== undefined && change.expectedVersion !== this.version) {
      throw new VersionConflictError(change.expectedVersion, this.version);
    }
    this.check(change.ops);
    for (const op of change.ops) this.applyOp(op);
    return this.committed(change.ops, change.audit);
  }

  async replaceAll(records: AccessRecords, change: AccessReplaceAll): Promise<LoadedAccess> {
    if (change.expectedVersion !== undefined && change.expectedVersion !== this.version) {
      throw new VersionConflictError(change.expectedVersion, this.version);
    }
    this.setAll(records);
    const version = await this.committed(null, change.audit);
    return { version, cursor: String(version) };
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private snapshot(): AccessRecords {
    return {
      vendors: [...this.records.vendor.values()] as VendorRecord[],
      keys: [...this.records.key.values()] as KeyEntity[],
      users: [...this.records.user.values()] as UserRecord[],
      admins: [...this.records.admin.values()] as AdminAccount[],
      proposals: [...this.records.proposal.values()] as Proposal[],
      portalUsers: [...this.records.portalUser.values()] as PortalUser[],
    };
  }

  private async committed(ops: readonly AccessOp[] | null, audit: AuditEntryInput | null): Promise<number> {
    this.version += 1;
    this.changes.push({ version: this.version, ops });
    if (this.changes.length > MEMORY_CHANGES_KEPT) this.changes.shift();
    if (audit) await this.options.audit?.append(audit);
    for (const listener of this.listeners) listener();
    return this.version;
  }

  /** The same checks as the Redis commit script, all before anything is written. */
  private check(ops: readonly AccessOp[]): void {
    const vendorAfter = new Map<string, boolean>();
    const touchedKeys = new Set<string>();
    for (const op of ops) {
      if (op.kind === 'vendor') vendorAfter.set(op.id, op.value !== null);
      if (op.kind === 'key') touchedKeys.add(op.id);
    }
    for (const op of ops) {
      if (op.expect !== undefined) {
        const stored = this.records[op.kind].get(op.id);
        const same = op.expect === null ? stored === undefined : stored !== undefined && recordJson(op.kind, stored) === recordJson(op.kind, op.expect);
        if (!same) throw new RecordConflictError('changed', op.kind, op.id);
      }
      if ((op.kind === 'key' || op.kind === 'portalUser') && op.value) {
        if (!(vendorAfter.get(op.value.vendorId) ?? this.records.vendor.has(op.value.vendorId))) {
          throw new RecordConflictError('no_vendor', 'vendor', op.value.vendorId);
        }
      }
      if (op.kind === 'key' && op.value) {
        const owner = this.keyIdByHash.get(op.value.hash);
        if (owner !== undefined && owner !== op.id && !touchedKeys.has(owner)) throw new RecordConflictError('duplicate_key_hash', 'key', op.id);
      }
    }
  }

  private applyOp(op: AccessOp): void {
    if (op.kind === 'key') {
      const old = this.records.key.get(op.id) as KeyEntity | undefined;
      if (old && this.keyIdByHash.get(old.hash) === op.id) this.keyIdByHash.delete(old.hash);
      if (op.value) this.keyIdByHash.set(op.value.hash, op.id);
    }
    if (op.value) this.records[op.kind].set(op.id, op.value);
    else this.records[op.kind].delete(op.id);
  }

  /** The records given; admins, proposals and portal users only when given (see AccessRecords). */
  private setAll(records: AccessRecords): void {
    for (const kind of DOCUMENT_KINDS) this.records[kind].clear();
    this.keyIdByHash.clear();
    if (records.admins) {
      this.records.admin.clear();
      for (const admin of records.admins) this.records.admin.set(admin.id, admin);
    }
    if (records.proposals) {
      this.records.proposal.clear();
      for (const proposal of records.proposals) this.records.proposal.set(proposal.id, proposal);
    }
    if (records.portalUsers) {
      this.records.portalUser.clear();
      for (const portalUser of records.portalUsers) this.records.portalUser.set(portalUser.id, portalUser);
    }
    for (const vendor of records.vendors) this.records.vendor.set(vendor.id, vendor);
    for (const key of records.keys) {
      this.records.key.set(key.id, key);
      this.keyIdByHash.set(key.hash, key.id);
    }
    for (const user of records.users) this.records.user.set(user.id, user);
  }
}
