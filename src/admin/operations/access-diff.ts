/**
 * What replacing one access document by another changes, named by id: vendors, their fields,
 * keys and licences; users and their permissions. Key hashes are reported as changed, never
 * shown. Used by the whole-document replace (dry run and apply) and its audit entry.
 *
 * Pure: reads two documents, returns their difference.
 */
import type { AccessDocument, Licence, Permission } from '../../access/model';

export interface FieldChange {
  readonly field: string;
  /** Absent for a key's hash: the diff names what changed, not the hash itself. */
  readonly from?: unknown;
  readonly to?: unknown;
}

export interface ItemChanges {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: Array<{ readonly id: string; readonly fields: FieldChange[] }>;
}

export interface VendorDiff {
  readonly id: string;
  readonly fields: FieldChange[];
  readonly keys: ItemChanges;
  readonly licences: ItemChanges;
}

export interface UserDiff {
  readonly id: string;
  readonly permissions: ItemChanges;
}

/** What replacing one access document by another changes, by id. */
export interface AccessDiff {
  readonly identical: boolean;
  readonly vendors: { readonly added: string[]; readonly removed: string[]; readonly changed: VendorDiff[] };
  readonly users: { readonly added: string[]; readonly removed: string[]; readonly changed: UserDiff[] };
}

/** Deep equality of JSON values, absent and undefined fields alike. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return aKeys.length === bKeys.length && aKeys.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function fieldChanges<T extends object>(before: T, after: T, fields: ReadonlyArray<keyof T & string>, hidden: readonly string[] = []): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of fields) {
    if (sameValue(before[field], after[field])) continue;
    changes.push(hidden.includes(field) ? { field } : { field, from: before[field], to: after[field] });
  }
  return changes;
}

function itemChanges<T extends { id: string }>(before: readonly T[], after: readonly T[], compare: (a: T, b: T) => FieldChange[]): ItemChanges {
  const old = new Map(before.map((item) => [item.id, item]));
  const current = new Map(after.map((item) => [item.id, item]));
  const changed: ItemChanges['changed'] = [];
  for (const [id, item] of current) {
    const previous = old.get(id);
    if (!previous) continue;
    const fields = compare(previous, item);
    if (fields.length > 0) changed.push({ id, fields });
  }
  return {
    added: [...current.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !current.has(id)),
    changed,
  };
}

const KEY_FIELDS = ['prefix', 'hash', 'userId', 'status', 'expiresAt', 'createdAt', 'lastUsedAt'] as const;
const isEmpty = (changes: ItemChanges): boolean => changes.added.length === 0 && changes.removed.length === 0 && changes.changed.length === 0;

/** The changes from `before` to `after`, named by id; key hashes are reported as changed, never shown. */
export function diffAccessDocuments(before: AccessDocument, after: AccessDocument): AccessDiff {
  const vendors = itemChanges(before.vendors, after.vendors, () => []);
  const oldVendors = new Map(before.vendors.map((v) => [v.id, v]));
  const changedVendors: VendorDiff[] = [];
  for (const vendor of after.vendors) {
    const previous = oldVendors.get(vendor.id);
    if (!previous) continue;
    const diff: VendorDiff = {
      id: vendor.id,
      fields: fieldChanges(previous, vendor, ['name', 'status', 'rateLimit']),
      keys: itemChanges(previous.keys, vendor.keys, (a, b) => fieldChanges(a, b, KEY_FIELDS, ['hash'])),
      licences: itemChanges<Licence>(previous.licences, vendor.licences, (a, b) => fieldChanges(a, b, ['api', 'expiresAt'])),
    };
    if (diff.fields.length > 0 || !isEmpty(diff.keys) || !isEmpty(diff.licences)) changedVendors.push(diff);
  }
  const users = itemChanges(before.users, after.users, () => []);
  const oldUsers = new Map(before.users.map((u) => [u.id, u]));
  const changedUsers: UserDiff[] = [];
  for (const user of after.users) {
    const previous = oldUsers.get(user.id);
    if (!previous) continue;
    const permissions = itemChanges<Permission>(previous.permissions, user.permissions, (a, b) => fieldChanges(a, b, ['api']));
    if (!isEmpty(permissions)) changedUsers.push({ id: user.id, permissions });
  }
  const identical =
    vendors.added.length + vendors.removed.length + changedVendors.length + users.added.length + users.removed.length + changedUsers.length === 0;
  return {
    identical,
    vendors: { added: vendors.added, removed: vendors.removed, changed: changedVendors },
    users: { added: users.added, removed: users.removed, changed: changedUsers },
  };
}
