/**
 * Who counts as one person, and whether the bootstrap token is still setting up: the two rules
 * that let four eyes hold against one person holding several tokens (README "Four eyes").
 *
 * Same person: an admin counts as the same person as its sponsor, the admin who was handed its
 * current enrolment code (its creator, or whoever had it re-enrolled), and so on up that chain;
 * only an admin enrolled with a code the bootstrap token was handed during set-up (or one with
 * no sponsor on record) is a person of its own. Whoever holds a code can redeem it, so the
 * holder of the code is, for four eyes, the holder of the token it becomes.
 *
 * Set-up: it is open until two named admins who can approve (approver or owner) hold a token;
 * then the store keeps the admin record `bootstrap` (no token, never listed) as a latch, so
 * deleting approvers later never opens set-up again. After set-up the bootstrap token only
 * reads and takes access away.
 *
 * Pure: reads the AccessIndex it is given.
 */
import type { AccessOp } from './access-state';
import type { AccessIndex } from './access-index';
import type { AdminAccount } from './model';

export const BOOTSTRAP_ID = 'bootstrap';

/** The id of the person `adminId` counts as (see the header). */
export function personOf(index: AccessIndex, adminId: string): string {
  let current = adminId;
  // A chain longer than the admins there are is a cycle: stop, it is one person either way.
  for (let hops = 0; hops <= index.adminList().length; hops++) {
    const sponsor = current === BOOTSTRAP_ID ? undefined : index.admin(current)?.sponsor;
    if (sponsor === undefined || sponsor === BOOTSTRAP_ID || sponsor === current) return current;
    current = sponsor;
  }
  return current;
}

const canApprove = (admin: AdminAccount): boolean => admin.id !== BOOTSTRAP_ID && (admin.role === 'approver' || admin.role === 'owner') && admin.tokenHash !== undefined;

/** True while the bootstrap token may still create admins and approve (see the header). */
export function setupOpen(index: AccessIndex): boolean {
  if (index.admin(BOOTSTRAP_ID)) return false;
  return index.adminList().filter(canApprove).length < 2;
}

/**
 * The operation that closes set-up for good, when the admins `after` a write hold two approvers'
 * tokens and no latch is kept yet; none otherwise. A write adds it to its own operations.
 */
export function setupLatch(index: AccessIndex, after: readonly AdminAccount[]): AccessOp[] {
  if (index.admin(BOOTSTRAP_ID) || after.filter(canApprove).length < 2) return [];
  const latch: AdminAccount = { id: BOOTSTRAP_ID, name: 'set-up closed', role: 'owner', createdAt: new Date().toISOString() };
  return [{ kind: 'admin', id: BOOTSTRAP_ID, value: latch, expect: null }];
}
