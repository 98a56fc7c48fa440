/**
 * The access config as separate records, the unit in which it is stored and synchronised:
 * vendors (without their keys), keys (each naming its vendor) and users, which make up the
 * declarative document, and beside them admins, four-eyes proposals and portal users (same store, same
 * version, same change stream, never part of the document). A change, as the change stream
 * carries it, is a list of operations, each setting or deleting one whole record, optionally
 * guarded by what the record must hold before; applying the same operations in the same order
 * always gives the same state, which is what lets an instance replay deltas on top of any
 * snapshot taken meanwhile.
 *
 * Pure: converts between the declarative document and records, computes the operations that
 * turn one into the other, and gives each record its stored JSON form.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  adminAccountSchema,
  keySchema,
  proposalSchema,
  licenceSchema,
  permissionSchema,
  portalUserSchema,
  rateLimitSchema,
  userSchema,
  vendorSchema,
  type AccessDocument,
  type AdminAccount,
  type ApiKeyRecord,
  type PortalUser,
  type Proposal,
  type User,
  type Vendor,
} from './model';

/** A vendor without its keys: what the vendor record holds. */
export const vendorRecordSchema = vendorSchema.omit({ keys: true });
export type VendorRecord = z.infer<typeof vendorRecordSchema>;

/** A key with the vendor it belongs to. */
export const keyEntitySchema = keySchema.extend({ vendorId: vendorSchema.shape.id }).strict();
export type KeyEntity = z.infer<typeof keyEntitySchema>;

const userRecordSchema = userSchema;
export type UserRecord = User;

/**
 * Vendors, keys and users make up the declarative access document; admins, proposals and
 * portal users are kept beside them (same store, same changes, same audit) but are never part
 * of it. A proposal's records are named `change` in Redis and the change stream
 * (redis-access-wire.ts).
 */
export type RecordKind = 'vendor' | 'key' | 'user' | 'admin' | 'proposal' | 'portalUser';

export interface RecordValues {
  readonly vendor: VendorRecord;
  readonly key: KeyEntity;
  readonly user: UserRecord;
  readonly admin: AdminAccount;
  readonly proposal: Proposal;
  readonly portalUser: PortalUser;
}

export const RECORD_SCHEMAS = {
  vendor: vendorRecordSchema,
  key: keyEntitySchema,
  user: userRecordSchema,
  admin: adminAccountSchema,
  proposal: proposalSchema,
  portalUser: portalUserSchema,
} as const;
export const RECORD_KINDS: readonly RecordKind[] = ['vendor', 'key', 'user', 'admin', 'proposal', 'portalUser'];
/** The kinds of the declarative document, which a whole-document write replaces. */
export const DOCUMENT_KINDS: readonly RecordKind[] = ['vendor', 'key', 'user'];
/** Where each kind's records sit in AccessRecords. */
export const RECORDS_FIELD = { vendor: 'vendors', key: 'keys', user: 'users', admin: 'admins', proposal: 'proposals', portalUser: 'portalUsers' } as const;

/**
 * Sets (value) or deletes (null) one record. `expect`, when present, is what the record must
 * hold when the change applies (null: must not exist); a change whose guard fails applies nothing.
 */
export type AccessOp = {
  [K in RecordKind]: { readonly kind: K; readonly id: string; readonly value: RecordValues[K] | null; readonly expect?: RecordValues[K] | null };
}[RecordKind];

/** The records of one access config. */
export interface AccessRecords {
  readonly vendors: readonly VendorRecord[];
  readonly keys: readonly KeyEntity[];
  readonly users: readonly UserRecord[];
  /** Absent: left as they are (a whole-document write never touches admins, proposals or portal users). */
  readonly admins?: readonly AdminAccount[];
  readonly proposals?: readonly Proposal[];
  readonly portalUsers?: readonly PortalUser[];
}

/** The stored form of a record: its schema's output as JSON, so equal records give equal text. */
export function recordJson(kind: RecordKind, value: unknown): string {
  return JSON.stringify(RECORD_SCHEMAS[kind].parse(value));
}

/**
 * Every property name a record of each kind may hold, nested ones included, in its schema's
 * order: as JSON.stringify's property list it writes a record's properties in that order,
 * whatever order the record was built or sent in.
 */
const propertyOrder = (...shapes: object[]): string[] => [...new Set(shapes.flatMap((shape) => Object.keys(shape)))];
const PROPERTY_ORDER: Readonly<Record<RecordKind, string[]>> = {
  vendor: propertyOrder(vendorRecordSchema.shape, rateLimitSchema.shape, licenceSchema.shape),
  key: propertyOrder(keyEntitySchema.shape),
  user: propertyOrder(userSchema.shape, permissionSchema.shape),
  admin: propertyOrder(adminAccountSchema.shape, adminAccountSchema.shape.enrolment.unwrap().shape),
  // A proposal's args and preview hold any JSON: written as it is, not by a property list.
  proposal: [],
  portalUser: propertyOrder(portalUserSchema.shape),
};

/**
 * The stored form of a record already validated (read from a store, or taken from a validated
 * document): the same text as `recordJson`, without validating it again.
 */
export function canonicalJson(kind: RecordKind, record: RecordValues[RecordKind]): string {
  return kind === 'proposal' ? recordJson(kind, record) : JSON.stringify(record, PROPERTY_ORDER[kind]);
}

export function documentToRecords(document: AccessDocument): AccessRecords {
  const vendors: VendorRecord[] = [];
  const keys: KeyEntity[] = [];
  for (const { keys: vendorKeys, ...vendor } of document.vendors) {
    vendors.push(vendor);
    for (const key of vendorKeys) keys.push({ ...key, vendorId: vendor.id });
  }
  return { vendors, keys, users: [...document.users] };
}

/**
 * Like `documentToRecords`, for a document parsed for this one use: each key object gets its
 * `vendorId` in place instead of being copied (100,000 keys are not held twice). The document's
 * keys then carry `vendorId` too; compare them, never store or show them.
 */
export function takeRecords(document: AccessDocument): AccessRecords {
  const vendors: VendorRecord[] = [];
  const keys: KeyEntity[] = [];
  for (const { keys: vendorKeys, ...vendor } of document.vendors) {
    vendors.push(vendor);
    for (const key of vendorKeys) keys.push(Object.assign(key, { vendorId: vendor.id }));
  }
  return { vendors, keys, users: [...document.users] };
}

export function keyRecord(key: KeyEntity): ApiKeyRecord {
  const { vendorId: _vendorId, ...record } = key;
  return record;
}

export function vendorWithKeys(vendor: VendorRecord, keys: Iterable<KeyEntity>): Vendor {
  return { ...vendor, keys: Array.from(keys, keyRecord) };
}

/**
 * The operations that turn `current` into `next`, each guarded by the record it replaces, so
 * they apply only to the state they were computed from. Unchanged records are left out. Both
 * sides are schema output (a store's records, a validated document's).
 */
export function operationsBetween(current: AccessRecords, next: AccessRecords): AccessOp[] {
  const ops: AccessOp[] = [];
  const diff = <K extends RecordKind>(kind: K, before: readonly RecordValues[K][], after: readonly RecordValues[K][]): void => {
    const old = new Map(before.map((record) => [record.id, record]));
    const seen = new Set<string>();
    for (const record of after) {
      seen.add(record.id);
      const previous = old.get(record.id);
      if (previous && canonicalJson(kind, previous) === canonicalJson(kind, record)) continue;
      ops.push({ kind, id: record.id, value: record, expect: previous ?? null } as AccessOp);
    }
    for (const [id, previous] of old) if (!seen.has(id)) ops.push({ kind, id, value: null, expect: previous } as AccessOp);
  };
  diff('vendor', current.vendors, next.vendors);
  diff('user', current.users, next.users);
  diff('key', current.keys, next.keys);
  // A vendor the document drops takes its portal users along: a vendor made again under the same
  // id later must not find another organisation's developers waiting in its portal.
  const vendorsKept = new Set(next.vendors.map((vendor) => vendor.id));
  for (const user of current.portalUsers ?? []) {
    if (!vendorsKept.has(user.vendorId)) ops.push({ kind: 'portalUser', id: user.id, value: null, expect: user });
  }
  return ops;
}

/**
 * A digest of what a set of operations does, whatever order they were made in: two plans with
 * the same digest write the same records over the same records. A whole-document change is
 * approved only while its plan still has the digest its preview had.
 */
export function planDigest(ops: readonly AccessOp[]): string {
  const lines = ops.map(
    (op) =>
      `${op.kind}\u0000${op.id}\u0000${op.value ? canonicalJson(op.kind, op.value) : 'null'}\u0000${op.expect ? canonicalJson(op.kind, op.expect) : 'null'}`,
  );
  return `sha256:${createHash('sha256').update(lines.sort().join('\n')).digest('hex')}`;
}

/** The ids of keys that the operations delete (their last-use times go with them). */
export function removedKeyIds(ops: readonly AccessOp[]): string[] {
  return ops.filter((op) => op.kind === 'key' && op.value === null).map((op) => op.id);
}
