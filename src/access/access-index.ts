/**
 * The in-process copy of the access config that the hot path reads: keys indexed by hash,
 * licence and permission patterns compiled once, and decisions memoised per (vendor or user,
 * API id), so a request costs one SHA-256 and a few map lookups.
 *
 * Reads records and operations on them (access-state.ts); changes only through `apply`, which
 * touches just the records the operations name and the memoised decisions of their owners. The
 * cache applies a delta in one synchronous call, so no request ever sees half of a change.
 */
import { hashApiKey, isWellFormedApiKey } from './api-key';
import { type AccessOp, type AccessRecords, type KeyEntity, type UserRecord, type VendorRecord } from './access-state';
import type { AccessDocument, AdminAccount, Licence, PortalUser, Proposal, Permission } from './model';

export type AuthFailureReason = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'certificate_mismatch' | 'token_mismatch';
export type AccessDeniedReason = 'vendor_suspended' | 'licence_required' | 'permission_denied';

export interface Principal {
  readonly vendorId: string;
  readonly vendorName: string;
  readonly keyId: string;
  readonly userId: string;
  /** The certificates (x5t#S256) the key is bound to; empty when it is not bound. */
  readonly certificateThumbprints: readonly string[];
}

type AuthResult =
  { readonly ok: true; readonly principal: Principal; readonly vendor: VendorRecord } | { readonly ok: false; readonly reason: AuthFailureReason };

interface CompiledGrant {
  readonly matches: (apiId: string) => boolean;
  readonly expiresAtMs: number;
}

interface CompiledVendor {
  readonly record: VendorRecord;
  readonly grants: CompiledGrant[];
}

/** `*` matches any run of characters; everything else is literal. */
export function compileApiPattern(pattern: string): (apiId: string) => boolean {
  if (!pattern.includes('*')) return (apiId) => apiId === pattern;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`);
  return (apiId) => regex.test(apiId);
}

const toMs = (iso: string | undefined): number => (iso === undefined ? Infinity : Date.parse(iso));

/**
 * Compiled grants shared by every owner with the same pattern and expiry: 100,000 users granted
 * `GETaccounts*` hold one matcher between them, not 100,000 regular expressions.
 */
const sharedGrants = new Map<string, CompiledGrant>();
const SHARED_GRANTS_MAX = 10_000;

function compileGrant(api: string, expiresAt: string | undefined): CompiledGrant {
  const cacheKey = `${api}\u0000${expiresAt ?? ''}`;
  let grant = sharedGrants.get(cacheKey);
  if (!grant) {
    grant = { matches: compileApiPattern(api), expiresAtMs: toMs(expiresAt) };
    // Bounded: configs with ever-new patterns or expiries compile them again rather than grow this.
    if (sharedGrants.size >= SHARED_GRANTS_MAX) sharedGrants.clear();
    sharedGrants.set(cacheKey, grant);
  }
  return grant;
}

function compileGrants(grants: ReadonlyArray<Licence | Permission>): CompiledGrant[] {
  return grants.map((grant) => compileGrant(grant.api, 'expiresAt' in grant ? grant.expiresAt : undefined));
}

/** Decisions are memoised until the earliest expiry among the grants that produced them. */
interface Decision {
  readonly allowed: boolean;
  readonly validUntilMs: number;
}

function decide(grants: readonly CompiledGrant[], apiId: string, nowMs: number): Decision {
  let allowed = false;
  let validUntilMs = Infinity;
  for (const grant of grants) {
    if (!grant.matches(apiId)) continue;
    if (grant.expiresAtMs > nowMs) {
      allowed = true;
      validUntilMs = Math.min(validUntilMs, grant.expiresAtMs);
    }
  }
  return { allowed, validUntilMs };
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class AccessIndex {
  private readonly vendors = new Map<string, CompiledVendor>();
  // Keys and users are held as their records only: a load of 100,000 of each allocates nothing
  // else per record, which keeps the garbage collector's pauses short. What a request needs
  // beyond the record (a principal, compiled permissions) is built at first use and kept.
  private readonly keys = new Map<string, KeyEntity>();
  private readonly keysByHash = new Map<string, KeyEntity>();
  private readonly principals = new Map<string, Principal>();
  private readonly keyIdsByVendor = new Map<string, Set<string>>();
  private readonly users = new Map<string, UserRecord>();
  private readonly admins = new Map<string, AdminAccount>();
  private readonly adminsByTokenHash = new Map<string, AdminAccount>();
  private readonly proposals = new Map<string, Proposal>();
  private readonly portalUsers = new Map<string, PortalUser>();
  private readonly portalUsersByTokenHash = new Map<string, PortalUser>();
  private readonly portalUserIdsByVendor = new Map<string, Set<string>>();
  private readonly userGrants = new Map<string, CompiledGrant[]>();
  private readonly licenceDecisions = new Map<string, Map<string, Decision>>();
  private readonly permissionDecisions = new Map<string, Map<string, Decision>>();
  /** Sorted ids for paged lists, rebuilt on the first list after a change. */
  private sortedVendorIds: string[] | null = null;
  private sortedUserIds: string[] | null = null;
  private _version: number;
  private _changedAtMs = Date.now();

  constructor(version: number) {
    this._version = version;
  }

  /** A whole index from one set of records (tests, the memory store, small configs). */
  static fromRecords(records: AccessRecords, version: number): AccessIndex {
    const index = new AccessIndex(version);
    index.putRecords(records);
    return index;
  }

  static fromDocument(document: AccessDocument, version: number): AccessIndex {
    const index = new AccessIndex(version);
    for (const { keys, ...vendor } of document.vendors) {
      index.putVendor(vendor);
      for (const key of keys) index.putKey({ ...key, vendorId: vendor.id });
    }
    for (const user of document.users) index.putUser(user);
    return index;
  }

  get version(): number {
    return this._version;
  }

  /** When the index last took a change (or was built): the config's age for health. */
  get changedAtMs(): number {
    return this._changedAtMs;
  }

  /** Adds records while an index is being built; not for a live index (see `apply`). */
  putRecords(records: Partial<AccessRecords>): void {
    for (const vendor of records.vendors ?? []) this.putVendor(vendor);
    for (const key of records.keys ?? []) this.putKey(key);
    for (const user of records.users ?? []) this.putUser(user);
    for (const admin of records.admins ?? []) this.putAdmin(admin);
    for (const proposal of records.proposals ?? []) this.proposals.set(proposal.id, proposal);
    for (const portalUser of records.portalUsers ?? []) this.putPortalUser(portalUser);
  }

  /** Applies one change's operations (guards are the store's business) and takes its version. */
  apply(ops: readonly AccessOp[], version: number): void {
    for (const op of ops) {
      switch (op.kind) {
        case 'vendor':
          if (op.value) this.putVendor(op.value);
          else this.deleteVendor(op.id);
          break;
        case 'key':
          if (op.value) this.putKey(op.value);
          else this.deleteKey(op.id);
          break;
        case 'user':
          if (op.value) this.putUser(op.value);
          else this.deleteUser(op.id);
          break;
        case 'admin':
          if (op.value) this.putAdmin(op.value);
          else this.deleteAdmin(op.id);
          break;
        case 'proposal':
          if (op.value) this.proposals.set(op.id, op.value);
          else this.proposals.delete(op.id);
          break;
        case 'portalUser':
          if (op.value) this.putPortalUser(op.value);
          else this.deletePortalUser(op.id);
          break;
      }
    }
    this.setVersion(version);
  }

  admin(adminId: string): AdminAccount | undefined {
    return this.admins.get(adminId);
  }

  adminByTokenHash(tokenHash: string): AdminAccount | undefined {
    return this.adminsByTokenHash.get(tokenHash);
  }

  /** Every named admin, ordered by id. */
  adminList(): AdminAccount[] {
    return [...this.admins.values()].sort((a, b) => byId(a.id, b.id));
  }

  proposal(changeId: string): Proposal | undefined {
    return this.proposals.get(changeId);
  }

  /** Every proposal, oldest first. */
  proposalList(): Proposal[] {
    return [...this.proposals.values()].sort((a, b) => byId(a.createdAt, b.createdAt) || byId(a.id, b.id));
  }

  portalUser(portalUserId: string): PortalUser | undefined {
    return this.portalUsers.get(portalUserId);
  }

  /** The vendor's portal users, ordered by id. */
  portalUsersOf(vendorId: string): PortalUser[] {
    return [...(this.portalUserIdsByVendor.get(vendorId) ?? [])].sort(byId).map((id) => this.portalUsers.get(id) as PortalUser);
  }

  portalUserByTokenHash(tokenHash: string): PortalUser | undefined {
    return this.portalUsersByTokenHash.get(tokenHash);
  }

  /** Every portal user, ordered by id. */
  portalUserList(): PortalUser[] {
    return [...this.portalUsers.values()].sort((a, b) => byId(a.id, b.id));
  }

  setVersion(version: number): void {
    this._version = version;
    this._changedAtMs = Date.now();
  }

  authenticate(token: string | undefined, nowMs = Date.now()): AuthResult {
    if (token === undefined || token.length === 0) return { ok: false, reason: 'missing' };
    // The checksum turns away typos and guesses before any hashing or lookup.
    if (!isWellFormedApiKey(token)) return { ok: false, reason: 'malformed' };
    const key = this.keysByHash.get(hashApiKey(token));
    const vendor = key && this.vendors.get(key.vendorId);
    if (!key || !vendor) return { ok: false, reason: 'unknown' };
    if (key.status === 'revoked') return { ok: false, reason: 'revoked' };
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, principal: this.principalOf(key, vendor.record), vendor: vendor.record };
  }

  /** Null when the principal may call the API id; else why not. */
  authorize(principal: Principal, vendor: VendorRecord, apiId: string, nowMs = Date.now()): AccessDeniedReason | null {
    if (vendor.status !== 'active') return 'vendor_suspended';
    if (!this.cachedDecision(this.licenceDecisions, this.vendors.get(vendor.id)?.grants, vendor.id, apiId, nowMs)) return 'licence_required';
    if (!this.cachedDecision(this.permissionDecisions, this.grantsOf(principal.userId), principal.userId, apiId, nowMs)) {
      return 'permission_denied';
    }
    return null;
  }

  vendor(vendorId: string): VendorRecord | undefined {
    return this.vendors.get(vendorId)?.record;
  }

  key(keyId: string): KeyEntity | undefined {
    return this.keys.get(keyId);
  }

  keyByHash(hash: string): KeyEntity | undefined {
    return this.keysByHash.get(hash);
  }

  user(userId: string): UserRecord | undefined {
    return this.users.get(userId);
  }

  /** The vendor's keys, ordered by id. */
  keysOf(vendorId: string): KeyEntity[] {
    const ids = [...(this.keyIdsByVendor.get(vendorId) ?? [])].sort(byId);
    return ids.map((id) => this.keys.get(id) as KeyEntity);
  }

  get vendorCount(): number {
    return this.vendors.size;
  }

  get keyCount(): number {
    return this.keys.size;
  }

  get userCount(): number {
    return this.users.size;
  }

  /** Vendor ids in order, for paged lists. */
  vendorIds(): readonly string[] {
    this.sortedVendorIds ??= [...this.vendors.keys()].sort(byId);
    return this.sortedVendorIds;
  }

  userIds(): readonly string[] {
    this.sortedUserIds ??= [...this.users.keys()].sort(byId);
    return this.sortedUserIds;
  }

  /** Every record, as arrays taken now: later changes do not show in them. */
  records(): AccessRecords {
    return {
      vendors: Array.from(this.vendors.values(), (v) => v.record),
      keys: [...this.keys.values()],
      users: [...this.users.values()],
      admins: [...this.admins.values()],
      proposals: [...this.proposals.values()],
      portalUsers: [...this.portalUsers.values()],
    };
  }

  /**
   * The declarative document for comparing, not for showing: the keys are the index's own
   * records (they still carry `vendorId`), so a config of 100,000 keys is not copied to be diffed.
   */
  documentForDiff(): AccessDocument {
    return {
      vendors: this.vendorIds().map((id) => ({ ...(this.vendor(id) as VendorRecord), keys: this.keysOf(id) })),
      users: this.userIds().map((id) => this.user(id) as UserRecord),
    };
  }

  /** Built at the key's first use, and again when the vendor's name has changed since. */
  private principalOf(key: KeyEntity, vendor: VendorRecord): Principal {
    let principal = this.principals.get(key.id);
    if (principal?.vendorName !== vendor.name) {
      principal = Object.freeze({
        vendorId: vendor.id,
        vendorName: vendor.name,
        keyId: key.id,
        userId: key.userId,
        certificateThumbprints: Object.freeze([...(key.certificateThumbprints ?? [])]),
      });
      this.principals.set(key.id, principal);
    }
    return principal;
  }

  private grantsOf(userId: string): CompiledGrant[] | undefined {
    let grants = this.userGrants.get(userId);
    if (!grants) {
      const user = this.users.get(userId);
      if (!user) return undefined;
      grants = compileGrants(user.permissions);
      this.userGrants.set(userId, grants);
    }
    return grants;
  }

  private putVendor(record: VendorRecord): void {
    if (!this.vendors.has(record.id)) this.sortedVendorIds = null;
    this.vendors.set(record.id, { record, grants: compileGrants(record.licences) });
    this.licenceDecisions.delete(record.id);
  }

  private deleteVendor(vendorId: string): void {
    if (this.vendors.delete(vendorId)) this.sortedVendorIds = null;
    this.licenceDecisions.delete(vendorId);
  }

  private putKey(record: KeyEntity): void {
    this.deleteKey(record.id);
    this.keys.set(record.id, record);
    this.keysByHash.set(record.hash, record);
    let ids = this.keyIdsByVendor.get(record.vendorId);
    if (!ids) this.keyIdsByVendor.set(record.vendorId, (ids = new Set()));
    ids.add(record.id);
  }

  private deleteKey(keyId: string): void {
    const old = this.keys.get(keyId);
    if (!old) return;
    this.keys.delete(keyId);
    this.principals.delete(keyId);
    if (this.keysByHash.get(old.hash) === old) this.keysByHash.delete(old.hash);
    const ids = this.keyIdsByVendor.get(old.vendorId);
    ids?.delete(keyId);
    if (ids?.size === 0) this.keyIdsByVendor.delete(old.vendorId);
  }

  private putAdmin(record: AdminAccount): void {
    this.deleteAdmin(record.id);
    this.admins.set(record.id, record);
    if (record.tokenHash) this.adminsByTokenHash.set(record.tokenHash, record);
  }

  private deleteAdmin(adminId: string): void {
    const old = this.admins.get(adminId);
    if (!old) return;
    this.admins.delete(adminId);
    if (old.tokenHash && this.adminsByTokenHash.get(old.tokenHash) === old) this.adminsByTokenHash.delete(old.tokenHash);
  }

  private putPortalUser(record: PortalUser): void {
    this.deletePortalUser(record.id);
    this.portalUsers.set(record.id, record);
    this.portalUsersByTokenHash.set(record.tokenHash, record);
    let ids = this.portalUserIdsByVendor.get(record.vendorId);
    if (!ids) this.portalUserIdsByVendor.set(record.vendorId, (ids = new Set()));
    ids.add(record.id);
  }

  private deletePortalUser(portalUserId: string): void {
    const old = this.portalUsers.get(portalUserId);
    if (!old) return;
    this.portalUsers.delete(portalUserId);
    if (this.portalUsersByTokenHash.get(old.tokenHash) === old) this.portalUsersByTokenHash.delete(old.tokenHash);
    const ids = this.portalUserIdsByVendor.get(old.vendorId);
    ids?.delete(portalUserId);
    if (ids?.size === 0) this.portalUserIdsByVendor.delete(old.vendorId);
  }

  private putUser(record: UserRecord): void {
    if (!this.users.has(record.id)) this.sortedUserIds = null;
    this.users.set(record.id, record);
    this.userGrants.delete(record.id);
    this.permissionDecisions.delete(record.id);
  }

  private deleteUser(userId: string): void {
    if (this.users.delete(userId)) this.sortedUserIds = null;
    this.userGrants.delete(userId);
    this.permissionDecisions.delete(userId);
  }

  private cachedDecision(
    cache: Map<string, Map<string, Decision>>,
    grants: readonly CompiledGrant[] | undefined,
    owner: string,
    apiId: string,
    nowMs: number,
  ): boolean {
    let byApi = cache.get(owner);
    if (!byApi) cache.set(owner, (byApi = new Map()));
    let decision = byApi.get(apiId);
    if (!decision || decision.validUntilMs <= nowMs) {
      decision = decide(grants ?? [], apiId, nowMs);
      byApi.set(apiId, decision);
    }
    return decision.allowed;
  }
}
