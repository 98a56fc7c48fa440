/**
 * Named admins (README "Admin identities"): accounts with a role, kept in the access store beside
 * the config (never part of the declarative document). A token reaches only the admin it belongs
 * to: creating an admin (or having one re-enrolled) hands its maker a one-time enrolment code,
 * valid 24 h from when the admin record is written, which the new admin alone redeems for a token
 * (`enrol`); an admin rotates only their own token (`rotateOwn`); anyone else's can only be
 * revoked. Tokens and codes are kept as their SHA-256 hashes. The bootstrap ADMIN_TOKEN stays and
 * acts as the owner `bootstrap` (four-eyes.ts: what it may do after set-up).
 *
 * Reads the live AccessIndex (admins by token hash, so authenticating costs one hash and one map
 * lookup); writes admin records through the shared AccessWriter, each with its audit entry. No
 * result, change, log line or audit entry ever holds a token, a code or their hashes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { GatewayError } from '../../errors/error-catalogue';
import { ADMIN_ROLES, adminAccountSchema, type AdminAccount } from '../../access/model';
import { idSchema, parseInput } from './admin-inputs';
import { writerOf, type AccessWriter, type Change, type Outcome, type Plan, type WriteBy } from './access-writer';
import type { AccessIndex } from '../../access/access-index';
import type { AccessOp } from '../../access/access-state';
import { BOOTSTRAP_ID, chainOf, isTombstone, setupLatch, setupOpen } from './four-eyes';
import { SsoAdmins } from './sso-admins';
import { adminView, type AdminIdentity, type AdminView } from './admin-identity';

export const BOOTSTRAP_ADMIN: AdminIdentity = Object.freeze({ id: 'bootstrap', name: 'bootstrap', role: 'owner' });

/** The answer to an enrolment or an own rotation: the only place the token ever appears. */
export type AdminWithToken = AdminView & { token: string };
/** An enrolment code and its hash: the code goes to the maker once, the hash into the record. */
interface EnrolmentCode {
  readonly code: string;
  readonly codeHash: string;
}

const TOKEN_PREFIX = 'cba_';
const CODE_PREFIX = 'cbe_';
/** An enrolment code is valid this long after the admin record holding it is written. */
const ENROLMENT_TTL_MS = 24 * 3_600_000;

function generateAdminToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
}

function hashAdminToken(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

/** A new one-time enrolment code (160 random bits) and the hash the record keeps. */
export function newEnrolmentCode(): EnrolmentCode {
  const code = `${CODE_PREFIX}${randomBytes(20).toString('base64url')}`;
  return { code, codeHash: hashAdminToken(code) };
}

/** The id of the admin a write is made by: the maker of the proposal it approves, or its actor. */
function makerOf(by: WriteBy): string {
  const writer = writerOf(by);
  return writer.approving ? writer.approving.proposal.makerId : writer.actor.replace(/^admin:/, '');
}

const roleInput = z.object({ role: z.enum(ADMIN_ROLES) }).strict();
const codeHashInput = z.object({ codeHash: adminAccountSchema.shape.tokenHash.unwrap() }).strict();

const createAdminInput = z
  .object({
    // In any case: "Bootstrap" would read as the bootstrap token in every list and audit entry.
    id: idSchema.refine((id) => id.toLowerCase() !== BOOTSTRAP_ADMIN.id, 'bootstrap is the ADMIN_TOKEN admin'),
    name: adminAccountSchema.shape.name,
    role: z.enum(ADMIN_ROLES),
  })
  .strict();

const view = adminView;

/**
 * A plan writing an admin's record (null: none) with the set-up latch when the admins before or
 * after it hold two approvers' tokens (four-eyes.ts), committed only at the version it was planned
 * on: two admin writes on two instances cannot each miss what the other did to set-up.
 */
function adminPlan<T>(index: AccessIndex, result: T, change: Change, id: string, admin: AdminAccount | null, expect: AdminAccount | null): Plan<T> {
  const after = [...index.adminList().filter((a) => a.id !== id), ...(admin ? [admin] : [])];
  const latch = setupLatch(index, after, id);
  return {
    result,
    change: withCleared(change, latch.cleared),
    ops: [{ kind: 'admin', id, value: admin, expect }, ...latch.ops],
    expectedVersion: index.version,
  };
}

/** The audit entry of a write that closed set-up names the bootstrap-handed codes it cleared (never the codes). */
function withCleared(change: Change, cleared: readonly string[]): Change {
  if (cleared.length === 0) return change;
  const after = typeof change.after === 'object' && change.after !== null ? change.after : {};
  return { ...change, after: { ...after, setupClosed: { enrolmentCodesCleared: cleared } } };
}

/** Refuses to sponsor an admin already up the maker's chain: it would make a loop of one person. */
function refuseLoop(index: AccessIndex, maker: string, adminId: string): void {
  if (chainOf(index, maker).includes(adminId)) {
    throw new GatewayError(
      'conflict',
      `Admin "${adminId}" is "${maker}"'s own sponsor, or up their sponsor chain: they count as one person, and "${maker}" cannot hand them a code; another person must.`,
    );
  }
}

export class AdminDirectory {
  /** Single-sign-on admins, when admin.oidc.issuer is set. */
  readonly sso: SsoAdmins | undefined;

  constructor(
    private readonly writer: AccessWriter,
    options: { readonly ssoIssuer?: string | null } = {},
  ) {
    this.sso = options.ssoIssuer ? new SsoAdmins(writer, options.ssoIssuer) : undefined;
  }

  /** The named admin a token belongs to; null when none (the caller checks the bootstrap token). */
  async authenticate(token: string): Promise<AdminIdentity | null> {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const hash = hashAdminToken(token);
    // An admin created a moment ago on another instance: look again once this one has caught up.
    const found = this.writer.cache.index?.adminByTokenHash(hash) ?? (await this.writer.index()).adminByTokenHash(hash);
    return found ? { id: found.id, name: found.name, role: found.role } : null;
  }

  /** The admin a browser session names, while it still holds the token the session began with. */
  async sessionIdentity(adminId: string, tokenFingerprint: string): Promise<AdminIdentity | null> {
    const admin = (await this.writer.index()).admin(adminId);
    // The fingerprint is the first 16 hex digits of the token's SHA-256, as the hash stores it.
    return admin?.tokenHash && admin.tokenHash.slice('sha256:'.length, 'sha256:'.length + 16) === tokenFingerprint
      ? { id: admin.id, name: admin.name, role: admin.role }
      : null;
  }

  /** Every named admin (the set-up latch is no admin and is left out). */
  async list(): Promise<AdminView[]> {
    return (await this.writer.index())
      .adminList()
      .filter((a) => a.id !== BOOTSTRAP_ID && !isTombstone(a))
      .map(view);
  }

  /** An admin's input with its id made up when it names none, so a preview and its approval agree. */
  static withId(input: unknown): unknown {
    if (typeof input !== 'object' || input === null || Array.isArray(input) || 'id' in input) return input;
    return { ...input, id: `adm-${randomBytes(6).toString('hex')}` };
  }

  /**
   * Creates an admin without a token: it enrols with the code whose hash `code` carries (the
   * maker holds the code). The maker is its creator and its sponsor.
   */
  async create(input: unknown, code: unknown, by: WriteBy): Promise<Outcome<AdminView>> {
    const body = parseInput(createAdminInput, input, 'admin');
    const { codeHash } = parseInput(codeHashInput, code, 'enrolment code');
    const maker = makerOf(by);
    return this.writer.write(by, (index) => {
      // Ids are never reused, in any case: a deleted admin's record stays, and chains run through it.
      const taken = index.adminList().find((a) => a.id.toLowerCase() === body.id.toLowerCase());
      if (taken)
        throw new GatewayError(
          'conflict',
          isTombstone(taken)
            ? `The id "${body.id}" belonged to a deleted admin; admin ids are never reused.`
            : `An admin with id "${taken.id}" already exists.`,
        );
      refuseLoop(index, maker, body.id);
      const now = Date.now();
      const admin: AdminAccount = {
        id: body.id,
        name: body.name,
        role: body.role,
        createdAt: new Date(now).toISOString(),
        createdBy: maker,
        sponsor: maker,
        enrolment: { codeHash, expiresAt: new Date(now + ENROLMENT_TTL_MS).toISOString() },
      };
      return adminPlan(index, view(admin), { action: 'admin.create', target: `admins/${admin.id}`, before: null, after: view(admin) }, admin.id, admin, null);
    });
  }

  /** A fresh enrolment code for an admin: its token (if any) stops working; the maker becomes its sponsor. */
  async reenrol(adminId: string, code: unknown, by: WriteBy): Promise<Outcome<AdminView>> {
    const { codeHash } = parseInput(codeHashInput, code, 'enrolment code');
    const maker = makerOf(by);
    return this.writer.write(by, (index) => {
      const admin = this.find(index, adminId);
      refuseLoop(index, maker, adminId);
      const { tokenHash: _hash, tokenPrefix: _prefix, ...rest } = admin;
      const updated: AdminAccount = { ...rest, sponsor: maker, enrolment: { codeHash, expiresAt: new Date(Date.now() + ENROLMENT_TTL_MS).toISOString() } };
      return adminPlan(
        index,
        view(updated),
        { action: 'admin.reenrol', target: `admins/${adminId}`, before: view(admin), after: view(updated) },
        adminId,
        updated,
        admin,
      );
    });
  }

  /** Gives an admin another role; its token, code and sponsor stay. */
  async setRole(adminId: string, input: unknown, by: WriteBy): Promise<Outcome<AdminView>> {
    const { role } = parseInput(roleInput, input, 'role change');
    return this.writer.write(by, (index) => {
      const admin = this.find(index, adminId);
      if (admin.role === role) return { result: view(admin), change: null, ops: [] };
      const updated: AdminAccount = { ...admin, role };
      const plan = adminPlan(
        index,
        view(updated),
        { action: 'admin.role', target: `admins/${adminId}`, before: view(admin), after: view(updated) },
        adminId,
        updated,
        admin,
      );
      // Their proposals go with the role they were filed in: demoted and raised back, an
      // admin whose token leaked cannot have the old changes approved (named in the audit entry).
      const dropped = index.proposalList().filter((c) => c.makerId === adminId);
      if (dropped.length === 0) return plan;
      const after = { ...(plan.change?.after as object), pendingChangesDropped: dropped.map((c) => c.id) };
      return {
        ...plan,
        change: { ...(plan.change as Change), after },
        ops: [...plan.ops, ...dropped.map((c): AccessOp => ({ kind: 'proposal', id: c.id, value: null, expect: c }))],
      };
    });
  }

  /** Redeems an enrolment code (no other credential): the admin's token, shown this once. Null when the code is no good. */
  async enrol(code: string): Promise<AdminWithToken | null> {
    if (!code.startsWith(CODE_PREFIX) || code.length > 100) return null;
    const codeHash = hashAdminToken(code);
    const token = generateAdminToken();
    const holder = (await this.writer.index()).adminList().find((a) => a.enrolment?.codeHash === codeHash);
    if (!holder) return null;
    // Planned again on the records in force: two redemptions of one code cannot both succeed.
    const outcome = await this.writer.write<AdminWithToken | null>(`admin:${holder.id}`, (index) => {
      const admin = index.admin(holder.id);
      if (admin?.enrolment?.codeHash !== codeHash || Date.parse(admin.enrolment.expiresAt) <= Date.now()) return { result: null, change: null, ops: [] };
      // A code the bootstrap token was handed redeems nothing once set-up is closed (the latch
      // clears them, or single sign-on is on; this holds for a store that lost it): it would be its holder's second person.
      if (admin.sponsor === BOOTSTRAP_ID && (!setupOpen(index) || this.sso)) return { result: null, change: null, ops: [] };
      const { enrolment: _used, ...rest } = admin;
      const enrolled: AdminAccount = { ...rest, tokenPrefix: token.slice(0, 12), tokenHash: hashAdminToken(token) };
      return adminPlan(
        index,
        { ...view(enrolled), token },
        { action: 'admin.enrol', target: `admins/${admin.id}`, before: view(admin), after: view(enrolled) },
        admin.id,
        enrolled,
        admin,
      );
    });
    return outcome.result;
  }

  /** A new token for the admin who asks; the old one stops working at once. */
  async rotateOwn(adminId: string): Promise<Outcome<AdminWithToken>> {
    const token = generateAdminToken();
    return this.writer.write(`admin:${adminId}`, (index) => {
      const admin = this.find(index, adminId);
      const rotated: AdminAccount = { ...admin, tokenPrefix: token.slice(0, 12), tokenHash: hashAdminToken(token) };
      return adminPlan(
        index,
        { ...view(rotated), token },
        { action: 'admin.rotate', target: `admins/${adminId}`, before: view(admin), after: view(rotated) },
        adminId,
        rotated,
        admin,
      );
    });
  }

  /** Takes an admin's token away (and any enrolment code): they sign in again only after re-enrolment. */
  async revokeToken(adminId: string, by: WriteBy): Promise<Outcome<AdminView>> {
    return this.writer.write(by, (index) => {
      const admin = this.find(index, adminId);
      const { tokenHash: _hash, tokenPrefix: _prefix, enrolment: _code, ...rest } = admin;
      const revoked: AdminAccount = rest;
      if (!admin.tokenHash && !admin.enrolment) return { result: view(revoked), change: null, ops: [] };
      return adminPlan(
        index,
        view(revoked),
        { action: 'admin.revoke-token', target: `admins/${adminId}`, before: view(admin), after: view(revoked) },
        adminId,
        revoked,
        admin,
      );
    });
  }

  /** Deletes an admin: its record stays as a tombstone without token or code (four-eyes.ts: ids are never reused). */
  async remove(adminId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const admin = this.find(index, adminId);
      const { tokenHash: _hash, tokenPrefix: _prefix, enrolment: _code, ...rest } = admin;
      const tombstone: AdminAccount = { ...rest, deletedAt: new Date().toISOString() };
      return adminPlan(index, null, { action: 'admin.delete', target: `admins/${adminId}`, before: view(admin), after: null }, adminId, tombstone, admin);
    });
  }

  /**
   * Writes the set-up latch when two approvers hold tokens and none is kept yet (a store written
   * before the latch was, or one whose latch a race lost): at start-up, and whenever the bootstrap
   * token is refused as "set-up closed". True when set-up is closed afterwards.
   */
  async closeSetupIfDue(): Promise<boolean> {
    return this.writeLatch();
  }

  /** At start-up: writes the latch only when the loaded copy shows it is due, so start-up writes nothing else. */
  async closeSetupAtStart(): Promise<void> {
    const index = this.writer.cache.index;
    if (index && setupLatch(index, [], undefined, this.sso !== undefined).ops.length > 0) await this.writeLatch();
  }

  private async writeLatch(): Promise<boolean> {
    const singleSignOn = this.sso !== undefined;
    const outcome = await this.writer.write('admin:bootstrap', (index) => {
      const { ops, cleared } = setupLatch(index, [], undefined, singleSignOn);
      const reason = singleSignOn ? 'single sign-on is on' : 'two approvers hold tokens';
      const change = withCleared({ action: 'setup.close', target: `admins/${BOOTSTRAP_ID}`, before: null, after: { reason } }, cleared);
      return { result: index.admin(BOOTSTRAP_ID) !== undefined || ops.length > 0, change: ops.length > 0 ? change : null, ops, expectedVersion: index.version };
    });
    return outcome.result;
  }

  /**
   * A named token admin; never the set-up latch, which shares the bootstrap token's id, nor a
   * single-sign-on admin, whose role and sign-in belong to the provider (block one instead).
   */
  private find(index: AccessIndex, adminId: string): AdminAccount {
    const admin = adminId === BOOTSTRAP_ID ? undefined : index.admin(adminId);
    if (!admin || isTombstone(admin)) throw new GatewayError('not_found', `No admin "${adminId}".`);
    if (admin.source === 'oidc')
      throw new GatewayError(
        'conflict',
        `Admin "${adminId}" signs in with single sign-on: its role comes from the identity provider's groups, and it holds no token. Block it to keep it out (deleting it would only let it sign in again).`,
      );
    return admin;
  }
}
