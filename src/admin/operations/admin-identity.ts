/**
 * Who an admin request acts as, however it signed in: the bootstrap owner, a named token admin
 * (admin-directory.ts) or a single-sign-on admin (sso-admins.ts). Set by auth.ts, read by every
 * admin route through admin-context.ts; never a token.
 */
import type { AdminRole } from '../../access/model';

export interface AdminIdentity {
  readonly id: string;
  readonly name: string;
  readonly role: AdminRole;
  /** How the admin signs in: `oidc` through the bank's provider (sso-admins.ts); else a token. */
  readonly source?: 'oidc';
  readonly email?: string;
}
