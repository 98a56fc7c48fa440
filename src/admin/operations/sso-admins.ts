/**
 * Single-sign-on admins (README "Single sign-on"): `oidc:<sub>` of the configured issuer, kept as
 * admin records beside the named admins so that the Admins page lists them, an owner can block
 * one, and four eyes can tell them apart (four-eyes.ts: each is a person of its own, with no
 * sponsor). A record is written at the first sign-in and again only when the name, email or role
 * the provider gives changes (never per sign-in: each write moves the config version every
 * instance follows); its role is the one its groups gave at that last change, which a proposal's
 * maker check reads (proposals.ts). The role a session acts with is the one its own sign-in gave.
 *
 * Reads and writes admin records through the shared AccessWriter, each write with its audit entry
 * (`admin.sso_seen`, `admin.block`, `admin.unblock`); no token ever reaches here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { GatewayError } from '../../errors/error-catalogue';
import type { AdminAccount, AdminRole } from '../../access/model';
import type { AccessWriter, Outcome, WriteBy } from './access-writer';
import type { AccessIndex } from '../../access/access-index';
import { parseInput } from './admin-inputs';
import { adminView, type AdminIdentity, type AdminView } from './admin-identity';

const SSO_ID_PREFIX = 'oidc:';

export const isSsoAdminId = (adminId: string): boolean => adminId.startsWith(SSO_ID_PREFIX);

/** What the provider's verified ID token says of the admin signing in. */
interface SsoSignIn {
  readonly subject: string;
  readonly issuer: string;
  readonly name: string;
  readonly email: string | undefined;
  readonly role: AdminRole;
}

/** A recorded sign-in: who, and the fingerprint its session carries (made with the record's salt as written). */
type SsoSignInOutcome = { readonly identity: AdminIdentity; readonly fingerprint: string } | { readonly refused: 'blocked' | 'identity_conflict' };

const blockedInput = z.object({ blocked: z.boolean() }).strict();

const newSalt = (): string => randomBytes(16).toString('base64url');

/** A session's fingerprint: the role its sign-in gave, bound to the admin's salt so that only the gateway can make one. */
function fingerprintOf(salt: string, role: AdminRole): string {
  return `sso:${role}:${createHash('sha256').update(`${salt}\u0000${role}`).digest('hex').slice(0, 32)}`;
}

const FINGERPRINT = /^sso:(owner|approver|operator|viewer):[0-9a-f]{32}$/;

const ssoIdentity = (admin: AdminAccount, role: AdminRole): AdminIdentity => ({
  id: admin.id,
  name: admin.name,
  role,
  source: 'oidc',
  ...(admin.email ? { email: admin.email } : {}),
});

export class SsoAdmins {
  constructor(
    private readonly writer: AccessWriter,
    private readonly issuer: string,
  ) {}

  /** Records a verified sign-in (written only when something changed); refuses a blocked admin, or a subject another issuer holds. */
  async signIn(signIn: SsoSignIn): Promise<SsoSignInOutcome> {
    const adminId = `${SSO_ID_PREFIX}${signIn.subject}`;
    const outcome = await this.writer.write<SsoSignInOutcome>(`admin:${adminId}`, (index) => {
      const before = index.admin(adminId);
      if (before && (before.source !== 'oidc' || before.issuer !== signIn.issuer)) return { result: { refused: 'identity_conflict' }, change: null, ops: [] };
      if (before?.blockedAt) return { result: { refused: 'blocked' }, change: null, ops: [] };
      const name = signIn.name.slice(0, 200) || signIn.subject.slice(0, 200);
      const email = signIn.email?.slice(0, 320);
      const after: AdminAccount = {
        ...(before ?? { id: adminId, createdAt: new Date().toISOString(), source: 'oidc', issuer: signIn.issuer }),
        sessionSalt: before?.sessionSalt ?? newSalt(),
        name,
        role: signIn.role,
        ...(email ? { email } : {}),
      };
      const result = { identity: ssoIdentity(after, signIn.role), fingerprint: fingerprintOf(after.sessionSalt as string, signIn.role) };
      if (before?.sessionSalt && before.name === after.name && before.role === after.role && before.email === after.email)
        return { result, change: null, ops: [] };
      return {
        result,
        change: { action: 'admin.sso_seen', target: `admins/${adminId}`, before: before ? adminView(before) : null, after: adminView(after) },
        ops: [{ kind: 'admin', id: adminId, value: after, expect: before ?? null }],
      };
    });
    return outcome.result;
  }

  /** The admin a single-sign-on session names, with the role its sign-in gave, while it is not blocked and its salt is the one it was made with. */
  async sessionIdentity(adminId: string, fingerprint: string): Promise<AdminIdentity | null> {
    const role = FINGERPRINT.exec(fingerprint)?.[1] as AdminRole | undefined;
    const admin = role && this.current(await this.writer.index(), adminId);
    if (!role || !admin?.sessionSalt || fingerprintOf(admin.sessionSalt, role) !== fingerprint) return null;
    return ssoIdentity(admin, role);
  }

  /** The admin's record while it may sign in: of this issuer, not blocked. */
  private current(index: AccessIndex, adminId: string): AdminAccount | null {
    const admin = index.admin(adminId);
    return admin && admin.source === 'oidc' && admin.issuer === this.issuer && !admin.blockedAt && !admin.deletedAt ? admin : null;
  }

  /** Blocks (at once: it only takes access away) or unblocks (a grant, approval-governed) a single-sign-on admin. */
  async setBlocked(adminId: string, input: unknown, by: WriteBy): Promise<Outcome<AdminView>> {
    const { blocked } = parseInput(blockedInput, input, 'block');
    const actor = typeof by === 'string' ? by : by.actor;
    return this.writer.write(by, (index) => {
      const admin = index.admin(adminId);
      if (!admin || admin.deletedAt) throw new GatewayError('not_found', `No admin "${adminId}".`);
      if (admin.source !== 'oidc')
        throw new GatewayError('conflict', `Admin "${adminId}" signs in with a token: revoke its token or delete it instead of blocking it.`);
      if (Boolean(admin.blockedAt) === blocked) return { result: adminView(admin), change: null, ops: [] };
      const { blockedAt: _at, blockedBy: _by, ...unblocked } = admin;
      // A new salt at blocking: the sessions it had never come back, even once unblocked.
      const after: AdminAccount = blocked
        ? { ...admin, blockedAt: new Date().toISOString(), blockedBy: actor.replace(/^admin:/, ''), sessionSalt: newSalt() }
        : unblocked;
      return {
        result: adminView(after),
        change: { action: blocked ? 'admin.block' : 'admin.unblock', target: `admins/${adminId}`, before: adminView(admin), after: adminView(after) },
        ops: [{ kind: 'admin', id: adminId, value: after, expect: admin }],
      };
    });
  }
}
