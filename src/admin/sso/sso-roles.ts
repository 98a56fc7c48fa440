/**
 * The gateway role an admin's OpenID Connect claims give (README "Single sign-on"): the first of
 * owner, approver, operator, viewer whose configured groups (names or ids: Entra ID sends object
 * ids) the claim `admin.oidc.rolesClaim` lists. None: no entry. A token whose groups the provider
 * left out for size (Entra ID's "overage": `_claim_names` naming the claim instead, or `hasgroups`)
 * is refused with its own reason, since reading the groups elsewhere would need a directory grant
 * the gateway should not hold; app roles (`rolesClaim: roles`) never overflow.
 *
 * Pure: reads the claims and the mapping it is given.
 */
import type { AdminRole } from '../../access/model';

/** The order a role is looked for in: the strongest that matches wins. */
const ROLE_ORDER: readonly AdminRole[] = ['owner', 'approver', 'operator', 'viewer'];

export type RoleGroups = Readonly<Record<AdminRole, readonly string[]>>;

type RoleOutcome = { readonly role: AdminRole } | { readonly refused: 'no_role' | 'groups_overage' };

/** The claim's groups as a list: an array of strings, or one string (some providers send one group so). */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((group): group is string => typeof group === 'string') : [];
}

/** True when the provider moved the claim out of the token (Entra ID past 200 groups in an ID token). */
function overflowed(claims: Readonly<Record<string, unknown>>, rolesClaim: string, listed: readonly string[]): boolean {
  const moved = claims._claim_names;
  if (typeof moved === 'object' && moved !== null && Object.hasOwn(moved, rolesClaim)) return true;
  return listed.length === 0 && rolesClaim === 'groups' && claims.hasgroups === true;
}

export function roleFromClaims(claims: Readonly<Record<string, unknown>>, rolesClaim: string, roles: RoleGroups): RoleOutcome {
  const listed = groupsOf(claims[rolesClaim]);
  if (overflowed(claims, rolesClaim, listed)) return { refused: 'groups_overage' };
  const held = new Set(listed);
  const role = ROLE_ORDER.find((candidate) => roles[candidate].some((group) => held.has(group)));
  return role ? { role } : { refused: 'no_role' };
}
