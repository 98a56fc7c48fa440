/**
 * Who counts as one person, and whether the bootstrap token is still setting up: the two rules
 * that let four eyes hold against one person holding several tokens (README "Four eyes").
 *
 * Same person: two admins count as one person when their sponsor chains share any admin. An
 * admin's chain is the admin, its sponsor (the admin who was handed its current enrolment code:
 * its creator, or whoever had it re-enrolled), that admin's sponsor, and so on, deleted admins
 * included (their records stay as tombstones, so an id is never reused), until an admin enrolled
 * with a code the bootstrap token was handed during set-up (or one with no sponsor on record), or
 * until the chain comes back to an admin already in it (every admin of a loop is one person).
 * Whoever holds a code can redeem it, so the holder of the code is, for four eyes, the holder of
 * the token it becomes. Creating or re-enrolling an admin whose id is in its maker's chain is
 * refused, so no new loop can form.
 *
 * Set-up: it is open until two named admins who can approve (approver or owner) hold a token;
 * then the store keeps the admin record `bootstrap` (no token, never listed) as a latch, so
 * deleting approvers later never opens set-up again. Every admin write adds the latch when the
 * records before or after it hold two approvers' tokens, and is planned against the whole config
 * version, so two writes on two instances cannot both miss it. The write that adds the latch
 * clears the codes the bootstrap token was handed and no one redeemed (each would be the
 * bootstrap holder's person of its own), and a redemption refuses one after set-up. After set-up
 * the bootstrap token only reads and takes access away; the writer decides that on the records a
 * write commits at (access-writer.ts), never on an earlier copy.
 *
 * Pure: reads the AccessIndex it is given.
 */
import type { AccessOp } from '../../access/access-state';
import type { AccessIndex } from '../../access/access-index';
import type { AdminAccount } from '../../access/model';

export const BOOTSTRAP_ID = 'bootstrap';

/** Why the bootstrap token is refused a write once set-up is closed. */
export const LOCKED_BOOTSTRAP = 'After set-up (two named approvers hold tokens) the bootstrap token only reads and takes access away; use a named admin.';

/** `adminId` and the admins up its sponsor chain, in order (see the header). */
export function chainOf(index: AccessIndex, adminId: string): string[] {
  const chain = [adminId];
  let current = adminId;
  for (;;) {
    const sponsor = current === BOOTSTRAP_ID ? undefined : index.admin(current)?.sponsor;
    if (sponsor === undefined || sponsor === BOOTSTRAP_ID || chain.includes(sponsor)) return chain;
    chain.push(sponsor);
    current = sponsor;
  }
}

/** True when two chains share an admin: the admins they start from count as one person. */
export function chainsMeet(a: readonly string[], b: readonly string[]): boolean {
  return a.some((id) => b.includes(id));
}

/** Whether two admins count as one person (see the header). */
export function samePerson(index: AccessIndex, a: string, b: string): boolean {
  return chainsMeet(chainOf(index, a), chainOf(index, b));
}

/** The admin a chain ends at: what an admin's person is called in a proposal. */
export function personOf(index: AccessIndex, adminId: string): string {
  return chainOf(index, adminId).at(-1) as string;
}

/** A deleted admin's record, kept so its id is never reused and chains through it still hold. */
export const isTombstone = (admin: AdminAccount): boolean => admin.deletedAt !== undefined;

const canApprove = (admin: AdminAccount): boolean =>
  admin.id !== BOOTSTRAP_ID && (admin.role === 'approver' || admin.role === 'owner') && admin.tokenHash !== undefined;

/** True when two named admins who can approve hold a token. */
const twoApprovers = (admins: readonly AdminAccount[]): boolean => admins.filter(canApprove).length >= 2;

/** True while the bootstrap token may still create admins and approve (see the header). */
export function setupOpen(index: AccessIndex): boolean {
  if (index.admin(BOOTSTRAP_ID)) return false;
  return !twoApprovers(index.adminList());
}

/** Named admins still holding a code the bootstrap token was handed (sponsor `bootstrap`), but `except`. */
function bootstrapCodes(index: AccessIndex, except?: string): AdminAccount[] {
  return index
    .adminList()
    .filter((a) => a.id !== BOOTSTRAP_ID && a.id !== except && a.sponsor === BOOTSTRAP_ID && a.enrolment !== undefined && !isTombstone(a));
}

/**
 * The operations that close set-up for good, when the admins before a write (the index) or
 * `after` it hold two approvers' tokens, or single sign-on is on (admins and their roles come from
 * the bank's provider, so the bootstrap token has nothing left to set up), and no latch is kept
 * yet; none otherwise. They also clear
 * every enrolment code the bootstrap token was handed and no one redeemed yet (but the admin
 * `written`, which the write itself sets): after set-up each such code would make the bootstrap
 * holder another person of their own. `cleared` names those admins, for the audit entry.
 */
export function setupLatch(
  index: AccessIndex,
  after: readonly AdminAccount[] = [],
  written?: string,
  singleSignOn = false,
): { ops: AccessOp[]; cleared: string[] } {
  if (index.admin(BOOTSTRAP_ID) || !(singleSignOn || twoApprovers(index.adminList()) || twoApprovers(after))) return { ops: [], cleared: [] };
  const latch: AdminAccount = { id: BOOTSTRAP_ID, name: 'set-up closed', role: 'owner', createdAt: new Date().toISOString() };
  const pending = bootstrapCodes(index, written);
  const clear = pending.map((admin): AccessOp => {
    const { enrolment: _code, ...rest } = admin;
    return { kind: 'admin', id: admin.id, value: rest, expect: admin };
  });
  return { ops: [{ kind: 'admin', id: BOOTSTRAP_ID, value: latch, expect: null }, ...clear], cleared: pending.map((a) => a.id) };
}
