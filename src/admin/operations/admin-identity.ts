/**
 * Who an admin request acts as, however it signed in: the bootstrap owner, a named token admin
 * (admin-directory.ts) or a single-sign-on admin (sso-admins.ts), and how any admin record is
 * shown (lists, answers, audit entries). Set by auth.ts, read by every admin route through
 * admin-context.ts; never a token, a hash or a session salt.
 *
 * Pure.
 */
import type { AdminAccount, AdminRole } from '../../access/model';

export interface AdminIdentity {
  readonly id: string;
  readonly name: string;
  readonly role: AdminRole;
  /** How the admin signs in: `oidc` through the bank's provider (sso-admins.ts); else a token. */
  readonly source?: 'oidc';
  readonly email?: string;
}

/** An admin as shown: no hashes, no session salt; `status` says whether it holds a token, and until when its code is valid. */
export type AdminView = Omit<AdminAccount, 'tokenHash' | 'enrolment' | 'source' | 'sessionSalt'> & {
  source: 'token' | 'oidc';
  status: 'active' | 'enrolling' | 'no-token' | 'blocked';
  enrolmentExpiresAt?: string;
};

export function adminView(admin: AdminAccount): AdminView {
  const { tokenHash, enrolment, source, sessionSalt: _salt, ...rest } = admin;
  if (source === 'oidc') return { ...rest, source, status: admin.blockedAt ? 'blocked' : 'active' };
  const status = tokenHash ? 'active' : enrolment ? 'enrolling' : 'no-token';
  return { ...rest, source: 'token', status, ...(enrolment ? { enrolmentExpiresAt: enrolment.expiresAt } : {}) };
}
