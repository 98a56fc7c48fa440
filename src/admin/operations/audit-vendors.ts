/**
 * Which vendors an admin change concerns, for its audit entry's `vendorIds`, resolved on the
 * records the change is planned on (so a key's vendor is known even when the change removes it):
 * a vendor's own paths name it; a key (`keys/<id>`) names the vendor it belongs to; a user's
 * permissions name every vendor holding a key, not revoked, that acts as that user; a
 * whole-document change names every vendor its diff touched and the vendors of the users it
 * touched; a filed, approved or rejected change (`changes/<id>`) names what the change does.
 * Admin accounts, sign-ins and anything else name none.
 *
 * Pure: reads the index and the change, returns sorted ids, each once.
 */
import type { AccessIndex } from '../../access/access-index';
import type { KeyEntity } from '../../access/access-state';
import type { AccessDiff } from './access-diff';

/** What is needed of a change to name its vendors. */
interface ChangeLike {
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
  /** Given by the change itself: taken as it is. */
  readonly vendorIds?: readonly string[];
}

const sorted = (ids: Iterable<string>): string[] => [...new Set(ids)].sort();

/** The vendors holding a key, not revoked, that acts as one of `userIds` (among the index's keys and `more`). */
function vendorsActingAs(index: AccessIndex, userIds: readonly string[], more: readonly KeyEntity[] = []): string[] {
  if (userIds.length === 0) return [];
  const users = new Set(userIds);
  const vendors = new Set<string>();
  for (const keys of [index.records().keys, more]) {
    for (const key of keys) if (key.status !== 'revoked' && users.has(key.userId)) vendors.add(key.vendorId);
  }
  return sorted(vendors);
}

/** Every vendor a whole-document diff touched, and the vendors of the users it touched. */
export function vendorsOfDiff(index: AccessIndex, diff: AccessDiff, nextKeys: readonly KeyEntity[] = []): string[] {
  const { vendors, users } = diff;
  const userIds = [...users.added, ...users.removed, ...users.changed.map((u) => u.id)];
  return sorted([...vendors.added, ...vendors.removed, ...vendors.changed.map((v) => v.id), ...vendorsActingAs(index, userIds, nextKeys)]);
}

const isDiff = (value: unknown): value is AccessDiff =>
  typeof value === 'object' && value !== null && 'vendors' in value && 'users' in value && typeof (value as AccessDiff).vendors === 'object';

/** The change a `changes/<id>` entry is about: a proposal, or what a rejection or filing recorded of it. */
function proposedChange(change: ChangeLike): ChangeLike | null {
  const about = (change.before ?? change.after) as { target?: unknown; preview?: { before?: unknown; after?: unknown } } | null;
  if (typeof about?.target !== 'string' || about.target.startsWith('changes/')) return null;
  return { target: about.target, before: about.preview?.before ?? null, after: about.preview?.after ?? null };
}

/** The vendors `change` concerns, sorted, each once (see the module header). */
export function vendorIdsOf(index: AccessIndex, change: ChangeLike): string[] {
  if (change.vendorIds !== undefined) return sorted(change.vendorIds);
  const [kind, id] = change.target.split('/');
  if (id === undefined || id === '') {
    const diff = (change.after as { diff?: unknown } | null)?.diff;
    return change.target === 'access' && isDiff(diff) ? vendorsOfDiff(index, diff) : [];
  }
  switch (kind) {
    case 'vendors':
      return [id];
    case 'keys': {
      const vendorId = index.key(id)?.vendorId ?? (change.before as { vendorId?: string } | null)?.vendorId;
      return vendorId === undefined ? [] : [vendorId];
    }
    case 'users':
      return vendorsActingAs(index, [id]);
    case 'changes': {
      const proposed = proposedChange(change);
      return proposed ? vendorIdsOf(index, proposed) : [];
    }
    default:
      return [];
  }
}
