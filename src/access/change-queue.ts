/**
 * Four-eyes approval (config `admin.approvals`): with approvals required, a write to the access
 * config does not apply; it is filed as a pending change that another admin with the approver or
 * owner role approves (the maker never can) or rejects. Approval computes the write again against
 * the config in force then (a change that now conflicts is refused, never applied blindly) and
 * applies it in the same step that removes the pending change, so two approvers cannot both apply
 * it. Writes that only reduce access (revoking a key, a licence or a permission, suspending or
 * deleting a vendor) apply at once: a leaked key must die now. Pending changes expire after
 * `admin.changeTtlHours`.
 *
 * Reads and writes pending-change records through the shared AccessWriter; runs the writes
 * through the AccessService. Audit entries: `change.propose` (maker), the write itself with
 * `approval: {maker, madeAt, checker, checkedAt}`, `change.reject`; a write that needed no
 * approval records why.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/error-catalogue';
import type { AccessService } from './access-service';
import type { Approval, Outcome, WriteBy } from './access-writer';
import type { PendingChange } from './model';

type Run = (service: AccessService, args: readonly unknown[], by: WriteBy) => Promise<Outcome<unknown>>;

interface Operation {
  readonly run: Run;
  /** True when the write, with these arguments, can only take access away. */
  readonly reducesAccess: (args: readonly unknown[]) => boolean;
}

const str = (value: unknown): string => String(value);
const never = (): boolean => false;
const always = (): boolean => true;

/** Every admin write by name, as pending changes store it (`POST /v1/changes` takes these names). */
export const OPERATIONS = {
  createVendor: { run: (s, [input], by) => s.createVendor(input, by), reducesAccess: never },
  patchVendor: {
    run: (s, [vendorId, input], by) => s.patchVendor(str(vendorId), input, by),
    // Suspending, and nothing else, only takes access away.
    reducesAccess: ([, input]) => JSON.stringify(input) === JSON.stringify({ status: 'suspended' }),
  },
  deleteVendor: { run: (s, [vendorId], by) => s.deleteVendor(str(vendorId), by), reducesAccess: always },
  setRateLimit: { run: (s, [vendorId, input], by) => s.setRateLimit(str(vendorId), input, by), reducesAccess: never },
  issueKey: { run: (s, [vendorId, input], by) => s.issueKey(str(vendorId), input, by), reducesAccess: never },
  patchKey: { run: (s, [keyId, input], by) => s.patchKey(str(keyId), input, by), reducesAccess: never },
  revokeKey: { run: (s, [keyId], by) => s.revokeKey(str(keyId), by), reducesAccess: always },
  grantLicence: { run: (s, [vendorId, input], by) => s.grantLicence(str(vendorId), input, by), reducesAccess: never },
  revokeLicence: { run: (s, [vendorId, licenceId], by) => s.revokeLicence(str(vendorId), str(licenceId), by), reducesAccess: always },
  grantPermission: { run: (s, [userId, input], by) => s.grantPermission(str(userId), input, by), reducesAccess: never },
  revokePermission: { run: (s, [userId, permissionId], by) => s.revokePermission(str(userId), str(permissionId), by), reducesAccess: always },
  replaceDocument: {
    run: (s, [document, options], by) => s.replaceDocument(document, by, (options ?? {}) as { expectedVersion?: number }),
    reducesAccess: never,
  },
} satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

/** Writes that make up an id when the input names none. */
const GENERATES_ID = new Set<OperationName>(['grantLicence', 'grantPermission', 'issueKey']);

export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.hasOwn(OPERATIONS, name);
}

/** Who acts: the audit label and the admin's id (the maker of a change can never approve it). */
export interface Actor {
  readonly actor: string;
  readonly adminId: string;
}

export type ChangeStatus = 'pending' | 'expired';
export type PendingChangeView = PendingChange & { readonly status: ChangeStatus };

/** What a submitted write became: applied now, or filed for approval. */
export type Submitted = { readonly applied: Outcome<unknown> } | { readonly pending: PendingChangeView };

export interface ChangeQueueOptions {
  readonly approvals: 'off' | 'required';
  readonly changeTtlHours: number;
}

const HOUR_MS = 3_600_000;

function withoutSecretTraits(key: unknown): unknown {
  if (typeof key !== 'object' || key === null) return key;
  const { prefix: _prefix, createdAt: _createdAt, ...rest } = key as Record<string, unknown>;
  return rest;
}

export class ChangeQueue {
  constructor(
    private readonly service: AccessService,
    private readonly options: ChangeQueueOptions,
  ) {}

  get approvalsRequired(): boolean {
    return this.options.approvals === 'required';
  }

  /** Runs a write now (approvals off, or it only reduces access), or files it for approval. */
  async submit(operation: OperationName, args: readonly unknown[], maker: Actor): Promise<Submitted> {
    const { run, reducesAccess } = OPERATIONS[operation] as Operation;
    if (!this.approvalsRequired) return { applied: await run(this.service, args, maker.actor) };
    if (reducesAccess(args)) {
      return { applied: await run(this.service, args, { actor: maker.actor, approval: { required: false, reason: 'only reduces access' } }) };
    }
    // Computed now, so a bad or pointless write is refused to its maker at once; the arguments are
    // kept as sent (never a secret: a key's secret is made when the change is approved).
    const kept: unknown[] = [...structuredClone(args)];
    const preview = await run(this.service, args, { actor: maker.actor, preview: true });
    if (preview.change === null) return { applied: preview };
    // What the preview named (a licence, permission or key id made up for it) is what approval makes.
    const madeId = (preview.change.after as { id?: unknown } | null)?.id;
    const input = kept[kept.length - 1];
    if (GENERATES_ID.has(operation) && typeof madeId === 'string' && typeof input === 'object' && input !== null && !('id' in input)) {
      kept[kept.length - 1] = { ...input, id: madeId };
    }
    const now = Date.now();
    const change: PendingChange = {
      id: `chg-${randomBytes(6).toString('hex')}`,
      makerId: maker.adminId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.options.changeTtlHours * HOUR_MS).toISOString(),
      operation,
      args: [...kept],
      action: preview.change.action,
      target: preview.change.target,
      // A key's prefix and time come from the secret made at approval, not this preview's.
      preview: { before: preview.change.before, after: operation === 'issueKey' ? withoutSecretTraits(preview.change.after) : preview.change.after },
    };
    await this.service.writer.write(maker.actor, () => ({
      result: null,
      change: { action: 'change.propose', target: `changes/${change.id}`, before: null, after: { operation, action: change.action, target: change.target } },
      ops: [{ kind: 'change', id: change.id, value: change, expect: null }],
    }));
    return { pending: { ...change, status: 'pending' } };
  }

  async list(nowMs = Date.now()): Promise<PendingChangeView[]> {
    return (await this.service.writer.index()).pendingChangeList().map((change) => this.view(change, nowMs));
  }

  async get(changeId: string): Promise<PendingChangeView> {
    return this.view(await this.find(changeId), Date.now());
  }

  /** Applies the change as the checker; never by its maker, never once expired. */
  async approve(changeId: string, checker: Actor): Promise<Outcome<unknown>> {
    const change = await this.find(changeId);
    if (change.makerId === checker.adminId) throw new GatewayError('permission_denied', 'The maker of a change cannot approve it; another approver must.');
    if (this.view(change, Date.now()).status === 'expired') throw new GatewayError('conflict', `Change "${changeId}" expired at ${change.expiresAt}; make it again.`);
    const approval: Approval = { maker: `admin:${change.makerId}`, madeAt: change.createdAt, checker: checker.actor, checkedAt: new Date().toISOString() };
    const { run } = OPERATIONS[change.operation as OperationName] as Operation;
    // A copy: the service may validate its input in place, and the pending change must stay as filed.
    return run(this.service, structuredClone(change.args), { actor: checker.actor, approving: { change, approval } });
  }

  async reject(changeId: string, checker: Actor): Promise<void> {
    const change = await this.find(changeId);
    const approval = { maker: `admin:${change.makerId}`, madeAt: change.createdAt, checker: checker.actor, checkedAt: new Date().toISOString(), rejected: true };
    await this.service.writer.write({ actor: checker.actor, approval }, () => ({
      result: null,
      change: { action: 'change.reject', target: `changes/${changeId}`, before: { operation: change.operation, action: change.action, target: change.target, preview: change.preview }, after: null },
      ops: [{ kind: 'change', id: changeId, value: null, expect: change }],
    }));
  }

  private async find(changeId: string): Promise<PendingChange> {
    const change = (await this.service.writer.index()).pendingChange(changeId);
    if (!change || !isOperationName(change.operation)) throw new GatewayError('not_found', `No pending change "${changeId}".`);
    return change;
  }

  private view(change: PendingChange, nowMs: number): PendingChangeView {
    return { ...change, status: Date.parse(change.expiresAt) <= nowMs ? 'expired' : 'pending' };
  }
}
