/**
 * Four-eyes approval (config `admin.approvals`): with approvals required, a write to the access
 * config, creating an admin, re-enrolling one and raising one's role do not apply; each is filed as a proposal
 * that another person with the approver or owner role approves or rejects (four-eyes.ts: who
 * counts as the same person as the maker; the bootstrap token after set-up only reads and takes
 * access away). A change applies exactly as previewed: approval plans it again against the config
 * in force and, when what it changes is no longer what the preview showed (a whole document at
 * another version, any whole record it writes over that changed meanwhile: the `pin`), answers
 * 409 with a fresh preview, never
 * applying it blindly; else it applies it in the same step that removes the proposal, so
 * two approvers cannot both apply it. Writes that only reduce access (revoking a key, a licence or a permission, suspending or
 * deleting a vendor, removing a portal user) apply at once: a leaked key must die now. A change stands only while its maker
 * could still file it (not deleted, holding the very token it was filed with, in a role that files
 * it; a role change drops the maker's proposals). Proposals expire after
 * `admin.changeTtlHours`.
 *
 * Reads and writes proposal records through the shared AccessWriter; runs the writes
 * through the AccessService, the admin directory and PortalUsers. Audit entries: `change.propose` (maker), the write itself with
 * `approval: {maker, madeAt, checker, checkedAt}`, `change.reject`; a write that needed no
 * approval records why.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GatewayError } from '../../errors/error-catalogue';
import type { AccessService } from './access-service';
import type { AdminDirectory } from './admin-directory';
import type { Approval, Outcome, WriteBy } from './access-writer';
import { sameValue } from './access-diff';
import { BOOTSTRAP_ID, LOCKED_BOOTSTRAP, chainOf, chainsMeet, isTombstone, personOf, setupOpen } from './four-eyes';
import { roleAllows, type Capability } from './roles';
import type { AdminAccount, Proposal } from '../../access/model';
import { isSsoAdminId, type SsoAdmins } from './sso-admins';
import type { AccessIndex } from '../../access/access-index';
import type { PortalUsers } from './portal-users';

/** What a proposal's operation runs on. */
interface Targets {
  readonly service: AccessService;
  readonly admins: AdminDirectory | undefined;
  readonly portalUsers: PortalUsers | undefined;
}

type Run = (targets: Targets, args: readonly unknown[], by: WriteBy) => Promise<Outcome<unknown>>;

interface Operation {
  readonly run: Run;
  /** True when the write, with these arguments, can only take access away. */
  readonly reducesAccess: (args: readonly unknown[]) => boolean;
}

function directory({ admins }: Targets): AdminDirectory {
  if (!admins) throw new GatewayError('not_found', 'This gateway has no named admins.');
  return admins;
}

function portal({ portalUsers }: Targets): PortalUsers {
  if (!portalUsers) throw new GatewayError('not_found', 'This gateway has no vendor portal users.');
  return portalUsers;
}

function ssoDirectory(targets: Targets): SsoAdmins {
  const sso = directory(targets).sso;
  if (!sso) throw new GatewayError('not_found', 'Single sign-on is off: no admin signs in through an identity provider.');
  return sso;
}

/** Why a single-sign-on maker's change no longer stands (blocked, or its groups at its last sign-in no longer give the role), or null. */
function ssoMakerStanding(maker: AdminAccount, capability: Capability): string | null {
  if (maker.blockedAt) return 'was made by a single-sign-on admin who was blocked since';
  return roleAllows(maker.role, capability) ? null : `was made by an admin whose role (${maker.role}, from its last sign-in) may no longer file it`;
}

const str = (value: unknown): string => String(value);

const TOKEN_ADMIN_UNDER_SSO =
  'With single sign-on on, changes that grant access are made and approved by admins signed in through the identity provider; a token admin reads and takes access away.';
/** A grant's options argument as filed (`{allowEmpty: true}`, from `?allowEmpty=true`), or none. */
const grantOptions = (value: unknown): { allowEmpty: boolean } => ({ allowEmpty: (value as { allowEmpty?: unknown } | undefined)?.allowEmpty === true });
const never = (): boolean => false;
const always = (): boolean => true;

/** Every admin write by name, as proposals store it (`POST /v1/changes` takes these names). */
export const OPERATIONS = {
  createVendor: { run: ({ service: s }, [input, options], by) => s.createVendor(input, by, grantOptions(options)), reducesAccess: never },
  patchVendor: {
    run: ({ service: s }, [vendorId, input], by) => s.patchVendor(str(vendorId), input, by),
    // Suspending, and nothing else, only takes access away.
    reducesAccess: ([, input]) => JSON.stringify(input) === JSON.stringify({ status: 'suspended' }),
  },
  deleteVendor: { run: ({ service: s }, [vendorId], by) => s.deleteVendor(str(vendorId), by), reducesAccess: always },
  setRateLimit: { run: ({ service: s }, [vendorId, input], by) => s.setRateLimit(str(vendorId), input, by), reducesAccess: never },
  issueKey: { run: ({ service: s }, [vendorId, input], by) => s.issueKey(str(vendorId), input, by), reducesAccess: never },
  patchKey: { run: ({ service: s }, [keyId, input], by) => s.patchKey(str(keyId), input, by), reducesAccess: never },
  revokeKey: { run: ({ service: s }, [keyId], by) => s.revokeKey(str(keyId), by), reducesAccess: always },
  // A portal user and a new token let someone in, as a key does; removing one only takes access away.
  invitePortalUser: { run: (t, [vendorId, input], by) => portal(t).invite(str(vendorId), input, by), reducesAccess: never },
  reissuePortalToken: { run: (t, [vendorId, portalUserId], by) => portal(t).reissueToken(str(vendorId), str(portalUserId), by), reducesAccess: never },
  removePortalUser: { run: (t, [vendorId, portalUserId], by) => portal(t).remove(str(vendorId), str(portalUserId), by), reducesAccess: always },
  grantLicence: {
    run: ({ service: s }, [vendorId, input, options], by) => s.grantLicence(str(vendorId), input, by, grantOptions(options)),
    reducesAccess: never,
  },
  revokeLicence: { run: ({ service: s }, [vendorId, licenceId], by) => s.revokeLicence(str(vendorId), str(licenceId), by), reducesAccess: always },
  grantPermission: {
    run: ({ service: s }, [userId, input, options], by) => s.grantPermission(str(userId), input, by, grantOptions(options)),
    reducesAccess: never,
  },
  revokePermission: { run: ({ service: s }, [userId, permissionId], by) => s.revokePermission(str(userId), str(permissionId), by), reducesAccess: always },
  setAdminBlocked: {
    run: (t, [adminId, input], by) => ssoDirectory(t).setBlocked(str(adminId), input, by),
    // Blocking only takes access away; unblocking lets an admin back in, so it takes approval.
    reducesAccess: ([, input]) => (input as { blocked?: unknown } | undefined)?.blocked === true,
  },
  // Admin writes: filed by their own routes (never through POST /v1/changes), with the hash of
  // the enrolment code their maker holds as the last argument.
  createAdmin: { run: (t, [input, code], by) => directory(t).create(input, code, by), reducesAccess: never },
  reenrolAdmin: { run: (t, [adminId, code], by) => directory(t).reenrol(str(adminId), code, by), reducesAccess: never },
  setAdminRole: {
    run: (t, [adminId, input], by) => directory(t).setRole(str(adminId), input, by),
    // Down to viewer, and nothing else, only takes access away (a viewer only reads).
    reducesAccess: ([, input]) => JSON.stringify(input) === JSON.stringify({ role: 'viewer' }),
  },
  replaceDocument: {
    run: ({ service: s }, [document, options], by) =>
      s.replaceDocument(document, by, (options ?? {}) as { expectedVersion?: number; expectedPlan?: string; allowEmpty?: boolean }),
    reducesAccess: never,
  },
} satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

/** Writes that make up an id when the input names none. */
const GENERATES_ID = new Set<OperationName>(['grantLicence', 'grantPermission', 'issueKey', 'invitePortalUser']);

/** Operations only their own routes file (the first two carry an enrolment code's hash last). */
const ADMIN_OPERATIONS = new Set<OperationName>(['createAdmin', 'reenrolAdmin', 'setAdminRole', 'setAdminBlocked']);
const WITH_CODE = new Set<OperationName>(['createAdmin', 'reenrolAdmin']);

function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.hasOwn(OPERATIONS, name);
}

/** What `POST /v1/changes` may file by name: every access-config write, no admin write. */
export function isFileableOperation(name: unknown): name is OperationName {
  return isOperationName(name) && !ADMIN_OPERATIONS.has(name);
}

/** Who acts: the audit label and the admin's id (the maker of a change can never approve it). */
interface Actor {
  readonly actor: string;
  readonly adminId: string;
}

type ProposalStatus = 'pending' | 'expired';
type ProposalView = Omit<Proposal, 'makerSeal'> & { readonly status: ProposalStatus };

/** What a submitted write became: applied now, or filed for approval. */
type Submitted = { readonly applied: Outcome<unknown> } | { readonly pending: ProposalView };

interface ProposalOptions {
  readonly approvals: 'off' | 'required';
  readonly changeTtlHours: number;
  /**
   * Single sign-on is on (admin.oidc.issuer): single-sign-on admins make and check changes. Named
   * token admins, like the bootstrap token, only read and take access away: a token says nothing
   * of the person holding it, who may also hold an identity at the provider, so a change a token
   * made or approved could be one person's alone.
   */
  readonly singleSignOn?: boolean;
}

const HOUR_MS = 3_600_000;

/** What a preview shows of the secret it made up (a key's, a portal token's), which approval makes anew: left out. */
const SECRET_TRAITS: Partial<Record<OperationName, readonly string[]>> = {
  issueKey: ['prefix', 'createdAt'],
  invitePortalUser: ['tokenPrefix', 'tokenIssuedAt', 'tokenExpiresAt', 'createdAt'],
  reissuePortalToken: ['tokenPrefix', 'tokenIssuedAt', 'tokenExpiresAt'],
};

function withoutSecretTraits(operation: OperationName, after: unknown): unknown {
  const traits = SECRET_TRAITS[operation];
  if (traits === undefined || typeof after !== 'object' || after === null) return after;
  return Object.fromEntries(Object.entries(after).filter(([name]) => !traits.includes(name)));
}

/**
 * The maker's standing when filing (see makerSeal in model.ts): their token hash and role, tied
 * to the change id so the record never holds anything that could match a token elsewhere. A
 * revoked-and-re-enrolled (or rotated) token, or a role changed and changed back, seals otherwise:
 * a change filed with a leaked token does not come back after incident response.
 */
function makerSeal(changeId: string, maker: { readonly tokenHash?: string; readonly role: string } | undefined): string | undefined {
  if (maker?.tokenHash === undefined) return undefined;
  return `sha256:${createHash('sha256').update(`${changeId}\n${maker.tokenHash}\n${maker.role}`).digest('hex')}`;
}

/** A proposal's arguments as shown: an enrolment code's hash stays in the store. */
function shownArgs(proposal: Proposal): unknown[] {
  return WITH_CODE.has(proposal.operation as OperationName) ? proposal.args.slice(0, -1) : proposal.args;
}

/** A whole document's `allowEmpty`, kept when its other options are replaced. */
const allowEmptyOf = (options: unknown): { allowEmpty?: true } => (grantOptions(options).allowEmpty ? { allowEmpty: true } : {});

/** The arguments a change is previewed with again at approval: a whole document against whatever version is in force. */
function unpinned(operation: OperationName, args: readonly unknown[]): unknown[] {
  return operation === 'replaceDocument' ? [args[0], allowEmptyOf(args[1])] : [...args];
}

/** Whether a change would still do what its preview showed: the same record before it, or the same whole-document plan. */
function samePreview(operation: OperationName, now: Outcome<unknown>, proposal: Proposal): boolean {
  const then = (proposal.preview as { before?: unknown } | null)?.before;
  if (operation !== 'replaceDocument') return sameValue(now.change?.before, then) && (proposal.pin === undefined || proposal.pin === now.pin);
  const plan = (before: unknown): unknown => (before as { plan?: unknown } | null)?.plan;
  return plan(now.change?.before) !== undefined && plan(now.change?.before) === plan(then);
}

export class Proposals {
  private readonly targets: Targets;

  constructor(
    private readonly service: AccessService,
    private readonly options: ProposalOptions,
    admins?: AdminDirectory,
    portalUsers?: PortalUsers,
  ) {
    this.targets = { service, admins, portalUsers };
  }

  get approvalsRequired(): boolean {
    return this.options.approvals === 'required';
  }

  /**
   * Runs a write now (approvals off; it only reduces access; an admin write by the bootstrap
   * token during set-up), or files it for approval.
   */
  async submit(operation: OperationName, args: readonly unknown[], maker: Actor): Promise<Submitted> {
    const { run, reducesAccess } = OPERATIONS[operation] as Operation;
    if (!this.approvalsRequired) return { applied: await run(this.targets, args, maker.actor) };
    if (reducesAccess(args)) {
      return { applied: await run(this.targets, args, { actor: maker.actor, approval: { required: false, reason: 'only reduces access' } }) };
    }
    const index = await this.service.writer.index();
    if (this.tokenAdminUnderSso(maker.adminId)) throw new GatewayError('permission_denied', TOKEN_ADMIN_UNDER_SSO);
    if (maker.adminId === BOOTSTRAP_ID) {
      if (!this.setupOpen(index)) await this.refuseBootstrap();
      if (ADMIN_OPERATIONS.has(operation))
        return {
          applied: await run(this.targets, args, { actor: maker.actor, approval: { required: false, reason: 'set-up by the bootstrap token' }, setup: true }),
        };
    }
    // Computed now, so a bad or pointless write is refused to its maker at once; the arguments are
    // kept as sent (never a secret: a key's secret is made when the change is approved).
    const kept: unknown[] = structuredClone([...args]);
    const preview = await run(this.targets, args, { actor: maker.actor, preview: true });
    if (preview.change === null) return { applied: preview };
    // What the preview named (a licence, permission or key id made up for it) is what approval makes.
    const madeId = (preview.change.after as { id?: unknown } | null)?.id;
    // The input is the second argument of each (a grant's options may follow it).
    const input = kept[1];
    if (GENERATES_ID.has(operation) && typeof madeId === 'string' && typeof input === 'object' && input !== null && !('id' in input)) {
      kept[1] = { ...input, id: madeId };
    }
    // A whole document applies only as previewed, If-Match or not: while its plan writes the same
    // records over the same records (the version itself moves with every filed change).
    if (operation === 'replaceDocument') kept[1] = { expectedPlan: (preview.change.before as { plan: string }).plan, ...allowEmptyOf(kept[1]) };
    const now = Date.now();
    const id = `chg-${randomBytes(6).toString('hex')}`;
    const seal = maker.adminId === BOOTSTRAP_ID ? undefined : makerSeal(id, index.admin(maker.adminId));
    const proposal: Proposal = {
      id,
      makerId: maker.adminId,
      makerPerson: personOf(index, maker.adminId),
      makerChain: chainOf(index, maker.adminId),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.changeTtlHours * HOUR_MS).toISOString(),
      operation,
      args: kept,
      action: preview.change.action,
      target: preview.change.target,
      // A key's or portal token's prefix and times come from the secret made at approval, not this preview's.
      preview: { before: preview.change.before, after: withoutSecretTraits(operation, preview.change.after) },
      // The whole records it writes over, as previewed (a whole document pins its plan instead).
      ...(operation === 'replaceDocument' || preview.pin === undefined ? {} : { pin: preview.pin }),
      ...(seal === undefined ? {} : { makerSeal: seal }),
    };
    const vendorIds = preview.change.vendorIds ?? [];
    await this.service.writer.write(maker.actor, () => ({
      result: null,
      change: {
        action: 'change.propose',
        target: `changes/${proposal.id}`,
        before: null,
        after: { operation, action: proposal.action, target: proposal.target },
        // The vendors the filed change would touch, as its preview named them.
        vendorIds,
      },
      ops: [{ kind: 'proposal', id: proposal.id, value: proposal, expect: null }],
    }));
    return { pending: this.view(proposal, now) };
  }

  async list(nowMs = Date.now()): Promise<ProposalView[]> {
    return (await this.service.writer.index()).proposalList().map((proposal) => this.view(proposal, nowMs));
  }

  async get(changeId: string): Promise<ProposalView> {
    return this.view(await this.find(changeId), Date.now());
  }

  /**
   * Applies the change as the checker: never by its maker's person, never by the bootstrap token
   * after set-up, never once expired, and only while it still changes what its preview showed.
   */
  async approve(changeId: string, checker: Actor): Promise<Outcome<unknown>> {
    const proposal = await this.find(changeId);
    const index = await this.service.writer.index();
    if (checker.adminId === BOOTSTRAP_ID && !this.setupOpen(index)) await this.refuseBootstrap();
    if (this.tokenAdminUnderSso(checker.adminId)) throw new GatewayError('permission_denied', TOKEN_ADMIN_UNDER_SSO);
    // The maker's chain now, or when filing: re-enrolling the maker since cannot launder a change.
    const checkerChain = chainOf(index, checker.adminId);
    const makerThen = proposal.makerChain ?? (proposal.makerPerson === undefined ? [] : [proposal.makerPerson]);
    if (chainsMeet(checkerChain, chainOf(index, proposal.makerId)) || chainsMeet(checkerChain, makerThen)) {
      throw new GatewayError(
        'permission_denied',
        'The maker of a change cannot approve it, nor can an admin who counts as the same person (one whose enrolment code the maker was handed); another person must.',
      );
    }
    if (this.view(proposal, Date.now()).status === 'expired')
      throw new GatewayError('conflict', `Change "${changeId}" expired at ${proposal.expiresAt}; make it again.`);
    const operation = proposal.operation as OperationName;
    this.refuseUnbackedMaker(index, proposal, operation);
    const { run } = OPERATIONS[operation] as Operation;
    // The change as it would apply now: if what it changes moved since the preview, refuse with the fresh one.
    const fresh = await run(this.targets, unpinned(operation, structuredClone(proposal.args)), { actor: checker.actor, preview: true });
    if (fresh.change === null) throw new GatewayError('conflict', `Change "${changeId}" would change nothing now; reject it.`);
    if (!samePreview(operation, fresh, proposal)) {
      throw new GatewayError(
        'conflict',
        `The config changed since change "${changeId}" was made, so it would no longer apply as previewed; reject it and make it again. preview holds what it would change now.`,
        {
          preview: {
            action: fresh.change.action,
            target: fresh.change.target,
            before: fresh.change.before,
            after: withoutSecretTraits(operation, fresh.change.after),
          },
        },
      );
    }
    const approval: Approval = { maker: `admin:${proposal.makerId}`, madeAt: proposal.createdAt, checker: checker.actor, checkedAt: new Date().toISOString() };
    // A copy: the service may validate its input in place, and the proposal must stay as filed.
    return run(this.targets, structuredClone(proposal.args), { actor: checker.actor, approving: { proposal, approval } });
  }

  async reject(changeId: string, checker: Actor): Promise<void> {
    const proposal = await this.find(changeId);
    const approval = {
      maker: `admin:${proposal.makerId}`,
      madeAt: proposal.createdAt,
      checker: checker.actor,
      checkedAt: new Date().toISOString(),
      rejected: true,
    };
    await this.service.writer.write({ actor: checker.actor, approval }, () => ({
      result: null,
      change: {
        action: 'change.reject',
        target: `changes/${changeId}`,
        before: { operation: proposal.operation, action: proposal.action, target: proposal.target, preview: proposal.preview },
        after: null,
      },
      ops: [{ kind: 'proposal', id: changeId, value: null, expect: proposal }],
    }));
  }

  /** A named token admin while single sign-on is on: it reads and takes access away, nothing more (see ProposalOptions). */
  private tokenAdminUnderSso(adminId: string): boolean {
    return this.options.singleSignOn === true && adminId !== BOOTSTRAP_ID && !isSsoAdminId(adminId);
  }

  /** Set-up is over once two approvers hold tokens, or at once with single sign-on. */
  private setupOpen(index: AccessIndex): boolean {
    return !this.options.singleSignOn && setupOpen(index);
  }

  /** Refuses the bootstrap token after set-up, writing the set-up latch first if a race lost it (fail closed). */
  private async refuseBootstrap(): Promise<never> {
    await this.targets.admins?.closeSetupIfDue();
    throw new GatewayError('permission_denied', LOCKED_BOOTSTRAP);
  }

  /**
   * A change stands only while its maker could still file it: an admin who was deleted, holds no
   * token or lost the role since cannot have a change approved (nor can the bootstrap token's
   * once set-up is closed); another admin files it again.
   */
  private refuseUnbackedMaker(index: AccessIndex, proposal: Proposal, operation: OperationName): void {
    const maker = proposal.makerId === BOOTSTRAP_ID ? undefined : index.admin(proposal.makerId);
    const capability = ADMIN_OPERATIONS.has(operation) ? 'manage-admins' : 'write';
    const why =
      proposal.makerId === BOOTSTRAP_ID
        ? this.setupOpen(index)
          ? null
          : 'was made by the bootstrap token, and set-up is closed'
        : !maker || isTombstone(maker)
          ? 'was made by an admin who was deleted since'
          : this.tokenAdminUnderSso(maker.id)
            ? 'was made by a token admin, and single sign-on is on now'
            : maker.source === 'oidc'
              ? ssoMakerStanding(maker, capability)
              : maker.tokenHash === undefined
                ? 'was made by an admin who holds no token now'
                : !roleAllows(maker.role, capability)
                  ? `was made by an admin whose role (${maker.role}) may no longer file it`
                  : proposal.makerSeal !== undefined && proposal.makerSeal !== makerSeal(proposal.id, maker)
                    ? 'was made with a token or role its maker no longer holds (revoked, re-enrolled, rotated or changed role since)'
                    : null;
    if (why !== null)
      throw new GatewayError('conflict', `Change "${proposal.id}" ${why}; reject it, and have a current admin make it again if it is still wanted.`);
  }

  private async find(changeId: string): Promise<Proposal> {
    const proposal = (await this.service.writer.index()).proposal(changeId);
    if (!proposal || !isOperationName(proposal.operation)) throw new GatewayError('not_found', `No pending change "${changeId}".`);
    return proposal;
  }

  private view(proposal: Proposal, nowMs: number): ProposalView {
    const { makerSeal: _seal, ...shown } = proposal;
    return { ...shown, args: shownArgs(proposal), status: Date.parse(proposal.expiresAt) <= nowMs ? 'expired' : 'pending' };
  }
}
