/**
 * The admin operations on the access config: vendors, keys, licences, user permissions, rate
 * limits and the whole document, each a change to the few records it touches.
 *
 * Reads the live AccessIndex and writes through the AccessWriter (access-writer.ts: plan on the
 * current records, commit with the audit entry in one step, plan again when another admin got
 * there first). Every write takes who makes it (`WriteBy`), so four eyes (proposals.ts) can preview it or
 * apply it as an approval. A write returns its result and a `Change` (what, on which target,
 * before, after); no change ever holds a key's secret, and keys are shown without their hash
 * outside the whole-document operations, which live in access-document.ts.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../errors/error-catalogue';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../access/api-key';
import { rateLimitSchema, type ApiKeyRecord, type Licence, type Permission, type RateLimit } from '../../access/model';
import { rateLimitConfigSchema } from '../../policies/rate-limit/rate-limit.schema';
import type { AccessStore } from '../../access/access-store';
import { sameValue } from './access-diff';
import { keyRecord, type AccessOp, type KeyEntity, type UserRecord, type VendorRecord } from '../../access/access-state';
import type { AccessIndex } from '../../access/access-index';
import type { AccessCache } from '../../access/cache';
import { AccessDocumentService, type DocumentExport, type ReplaceOptions, type ReplaceResult } from './access-document';
import { AccessWriter, unchanged, type AccessWriterOptions, type Outcome, type WriteBy } from './access-writer';
import {
  createVendorInput,
  grantLicenceInput,
  grantPermissionInput,
  idSchema,
  issueKeyInput,
  parseInput,
  patchKeyInput,
  patchVendorInput,
} from './admin-inputs';
import { reachesAnyApi, refuseEmptyPatterns, type EmptyPattern } from './pattern-reach';

export type KeyView = Omit<ApiKeyRecord, 'hash'>;
/** The rate limit in force for a vendor: its own, or the gateway default it falls back to. */
type EffectiveRateLimit = RateLimit & { source: 'vendor' | 'default' };
/** A vendor as reads answer it; `effectiveRateLimit` only in reads (GET one, the list), never in an audit entry. */
export type VendorView = VendorRecord & { keys: KeyView[]; effectiveRateLimit?: EffectiveRateLimit };
/** The answer to a key issue: the only place the secret ever appears. */
export type IssuedKey = KeyView & { secret: string };

/** One page of a list: `next` is the id to continue after, when there is more. */
export interface Page<T> {
  readonly items: T[];
  readonly next: string | null;
}

export interface PageRequest {
  /** At most this many items; all of them when absent. */
  readonly limit?: number;
  /** Continue after this id (the previous page's `next`). */
  readonly after?: string;
}

export interface AccessServiceOptions extends AccessWriterOptions {
  /** Whole-document writes with more operations than this are staged and swapped in. */
  readonly bulkThreshold?: number;
  /** The limit of a vendor without its own (rateLimit.defaultPoints, .defaultDurationSeconds); the config's defaults unless told. */
  readonly defaultRateLimit?: RateLimit;
}

const CONFIG_DEFAULT_RATE_LIMIT = ((config) => ({ points: config.defaultPoints, durationSeconds: config.defaultDurationSeconds }))(
  rateLimitConfigSchema.parse({}),
);
/** How a write that grants a pattern is asked (`?allowEmpty=true`): also when it matches no API id. */
interface GrantOptions {
  readonly allowEmpty?: boolean;
}

/** The grant's pattern, when it matches no API id (named by `field`, for errors[]). */
const emptyPattern = (field: string, owner: string, pattern: string): EmptyPattern[] => (reachesAnyApi(pattern) ? [] : [{ field, owner, pattern }]);

export const newId = (kind: string): string => `${kind}-${randomBytes(6).toString('hex')}`;

export function keyView(key: KeyEntity | ApiKeyRecord): KeyView {
  const { hash: _hash, ...view } = 'vendorId' in key ? keyRecord(key) : key;
  return view;
}

export function findVendor(index: AccessIndex, vendorId: string): VendorRecord {
  const vendor = index.vendor(vendorId);
  if (!vendor) throw new GatewayError('not_found', `No vendor "${vendorId}".`);
  return vendor;
}

function findUser(index: AccessIndex, userId: string): UserRecord {
  const user = index.user(userId);
  if (!user) throw new GatewayError('not_found', `No user "${userId}".`);
  return user;
}

function findKey(index: AccessIndex, keyId: string): KeyEntity {
  const key = index.key(keyId);
  if (!key) throw new GatewayError('not_found', `No key "${keyId}".`);
  return key;
}

function duplicate(what: string, id: string): GatewayError {
  return new GatewayError('conflict', `A ${what} with id "${id}" already exists.`);
}

/** The page of sorted `ids` after `after`, at most `limit` long. */
export function pageOf(ids: readonly string[], { limit, after }: PageRequest): { ids: readonly string[]; next: string | null } {
  let start = 0;
  if (after !== undefined) {
    // Binary search: the first id greater than `after`.
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((ids[mid] as string) <= after) low = mid + 1;
      else high = mid;
    }
    start = low;
  }
  const end = limit === undefined ? ids.length : Math.min(ids.length, start + limit);
  return { ids: ids.slice(start, end), next: end < ids.length && end > start ? (ids[end - 1] as string) : null };
}

export class AccessService {
  private readonly keyUsage: AccessServiceOptions['keyUsage'];
  private readonly defaultRateLimit: RateLimit;
  /** Shared with the admin directory and the proposals: one write queue per instance. */
  readonly writer: AccessWriter;
  private readonly document: AccessDocumentService;

  constructor(cache: AccessCache, store: AccessStore, options: AccessServiceOptions = {}) {
    this.writer = new AccessWriter(cache, store, options);
    this.document = new AccessDocumentService(cache, store, this.writer, options.bulkThreshold);
    this.keyUsage = options.keyUsage;
    this.defaultRateLimit = options.defaultRateLimit ?? CONFIG_DEFAULT_RATE_LIMIT;
  }

  /** Key views with lastUsedAt filled in from the usage tracker. */
  private async withLastUse(keys: readonly KeyView[]): Promise<KeyView[]> {
    if (!this.keyUsage || keys.length === 0) return [...keys];
    const lastUsed = await this.keyUsage.lastUsed(keys.map((k) => k.id));
    return keys.map((k) => {
      const at = lastUsed.get(k.id);
      return at ? { ...k, lastUsedAt: at } : k;
    });
  }

  /** What the rate-limit step applies (policies/rate-limit): so no reader need show "none" while a default is in force. */
  effectiveRateLimit(vendor: VendorRecord): EffectiveRateLimit {
    return vendor.rateLimit ? { ...vendor.rateLimit, source: 'vendor' } : { ...this.defaultRateLimit, source: 'default' };
  }

  private async vendorView(index: AccessIndex, vendor: VendorRecord): Promise<VendorView> {
    return { ...vendor, keys: await this.withLastUse(index.keysOf(vendor.id).map(keyView)), effectiveRateLimit: this.effectiveRateLimit(vendor) };
  }

  async listVendors(page: PageRequest = {}): Promise<Page<VendorView>> {
    const index = await this.writer.index();
    const { ids, next } = pageOf(index.vendorIds(), page);
    const items = await Promise.all(ids.map((id) => this.vendorView(index, findVendor(index, id))));
    return { items, next };
  }

  async getVendor(vendorId: string): Promise<VendorView> {
    const index = await this.writer.index();
    return this.vendorView(index, findVendor(index, vendorId));
  }

  async createVendor(input: unknown, by: WriteBy, options: GrantOptions = {}): Promise<Outcome<VendorView>> {
    const body = parseInput(createVendorInput, input, 'vendor');
    refuseEmptyPatterns(
      body.licences.flatMap((licence, i) => emptyPattern(`licences.${i}.api`, `vendor "${body.id}"`, licence.api)),
      options.allowEmpty === true,
    );
    return this.writer.write(by, (index) => {
      if (index.vendor(body.id)) throw duplicate('vendor', body.id);
      const licenceIds = new Set<string>();
      const licences = body.licences.map((licence) => {
        const id = licence.id ?? newId('lic');
        if (licenceIds.has(id)) throw duplicate('licence', id);
        licenceIds.add(id);
        return { ...licence, id };
      });
      const vendor: VendorRecord = { ...body, licences };
      const view: VendorView = { ...vendor, keys: [] };
      return {
        result: view,
        change: { action: 'vendor.create', target: `vendors/${vendor.id}`, before: null, after: view },
        ops: [{ kind: 'vendor', id: vendor.id, value: vendor, expect: null }],
      };
    });
  }

  async patchVendor(vendorId: string, input: unknown, by: WriteBy): Promise<Outcome<VendorView>> {
    const patch = parseInput(patchVendorInput, input, 'vendor change');
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const updated: VendorRecord = { ...vendor };
      if (patch.name !== undefined) updated.name = patch.name;
      if (patch.status !== undefined) updated.status = patch.status;
      if (patch.rateLimit !== undefined) updated.rateLimit = patch.rateLimit;
      const keys = index.keysOf(vendorId).map(keyView);
      const after: VendorView = { ...updated, keys };
      if (sameValue(vendor, updated)) return unchanged(after);
      return {
        result: after,
        change: { action: 'vendor.update', target: `vendors/${vendorId}`, before: { ...vendor, keys }, after },
        ops: [{ kind: 'vendor', id: vendorId, value: updated, expect: vendor }],
      };
    });
  }

  /** Removes the vendor with its keys, licences and portal users; users and their permissions stay. */
  async deleteVendor(vendorId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const keys = index.keysOf(vendorId);
      const portalUsers = index.portalUsersOf(vendorId);
      // The portal users as views (no token hash), named only when there were any.
      const shownUsers = portalUsers.length === 0 ? {} : { portalUsers: portalUsers.map(({ tokenHash: _hash, ...view }) => view) };
      return {
        result: null,
        change: { action: 'vendor.delete', target: `vendors/${vendorId}`, before: { ...vendor, keys: keys.map(keyView), ...shownUsers }, after: null },
        ops: [
          { kind: 'vendor', id: vendorId, value: null, expect: vendor },
          ...keys.map((key): AccessOp => ({ kind: 'key', id: key.id, value: null, expect: key })),
          ...portalUsers.map((portalUser): AccessOp => ({ kind: 'portalUser', id: portalUser.id, value: null, expect: portalUser })),
        ],
      };
    });
  }

  async listKeys(vendorId: string, page: PageRequest = {}): Promise<Page<KeyView>> {
    const index = await this.writer.index();
    findVendor(index, vendorId);
    const keys = index.keysOf(vendorId);
    const { ids, next } = pageOf(
      keys.map((k) => k.id),
      page,
    );
    const chosen = new Set(ids);
    return { items: await this.withLastUse(keys.filter((k) => chosen.has(k.id)).map(keyView)), next };
  }

  /** Issues a key: the secret is in the result only, once; the store keeps its hash and prefix. */
  async issueKey(vendorId: string, input: unknown, by: WriteBy): Promise<Outcome<IssuedKey>> {
    const body = parseInput(issueKeyInput, input, 'key request');
    const secret = generateApiKey();
    return this.writer.write(by, (index) => {
      findVendor(index, vendorId);
      const id = body.id ?? newId('key');
      if (index.key(id)) throw duplicate('key', id);
      const key: KeyEntity = {
        id,
        prefix: apiKeyPrefix(secret),
        hash: hashApiKey(secret),
        userId: body.userId,
        status: 'active',
        createdAt: new Date().toISOString(),
        ...(body.expiresAt === undefined ? {} : { expiresAt: body.expiresAt }),
        ...(body.certificateThumbprints === undefined ? {} : { certificateThumbprints: body.certificateThumbprints }),
        vendorId,
      };
      const view = keyView(key);
      return {
        result: { ...view, secret },
        change: { action: 'key.issue', target: `vendors/${vendorId}/keys/${id}`, before: null, after: view },
        // The store refuses a key whose vendor is gone by then; the retry then answers 404.
        ops: [{ kind: 'key', id, value: key, expect: null }],
      };
    });
  }

  /** Binds the key to other certificates (an empty list unbinds it), or sets its expiry; the secret stays. */
  async patchKey(keyId: string, input: unknown, by: WriteBy): Promise<Outcome<KeyView>> {
    const body = parseInput(patchKeyInput, input, 'key change');
    return this.writer.write(by, (index) => {
      const key = findKey(index, keyId);
      let updated: KeyEntity = { ...key, ...(body.expiresAt === undefined ? {} : { expiresAt: body.expiresAt }) };
      if (body.certificateThumbprints !== undefined) {
        const { certificateThumbprints: _old, ...rest } = updated;
        updated = body.certificateThumbprints.length === 0 ? rest : { ...rest, certificateThumbprints: body.certificateThumbprints };
      }
      const before = keyView(key);
      const after = keyView(updated);
      if (sameValue(before, after)) return unchanged(after);
      return {
        result: after,
        change: { action: 'key.update', target: `keys/${keyId}`, before, after },
        ops: [{ kind: 'key', id: keyId, value: updated, expect: key }],
      };
    });
  }

  /**
   * Marks the key revoked; it stays in the config so the audit trail can name it. With `ofVendor`
   * (the vendor portal), another vendor's key is not found, as a key that never was.
   */
  async revokeKey(keyId: string, by: WriteBy, ofVendor?: string): Promise<Outcome<KeyView>> {
    return this.writer.write(by, (index) => {
      const key = findKey(index, keyId);
      if (ofVendor !== undefined && key.vendorId !== ofVendor) throw new GatewayError('not_found', `No key "${keyId}".`);
      if (key.status === 'revoked') return unchanged(keyView(key));
      const updated: KeyEntity = { ...key, status: 'revoked' };
      const after = keyView(updated);
      return {
        result: after,
        change: { action: 'key.revoke', target: `keys/${keyId}`, before: keyView(key), after },
        ops: [{ kind: 'key', id: keyId, value: updated, expect: key }],
      };
    });
  }

  async listLicences(vendorId: string): Promise<Licence[]> {
    return findVendor(await this.writer.index(), vendorId).licences;
  }

  async grantLicence(vendorId: string, input: unknown, by: WriteBy, options: GrantOptions = {}): Promise<Outcome<Licence>> {
    const body = parseInput(grantLicenceInput, input, 'licence');
    refuseEmptyPatterns(emptyPattern('api', `vendor "${vendorId}"`, body.api), options.allowEmpty === true);
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const id = body.id ?? newId('lic');
      if (vendor.licences.some((l) => l.id === id)) throw new GatewayError('conflict', `Vendor "${vendorId}" already has a licence with id "${id}".`);
      const licence: Licence = { ...body, id };
      return {
        result: licence,
        change: { action: 'licence.grant', target: `vendors/${vendorId}/licences/${id}`, before: null, after: licence },
        ops: [{ kind: 'vendor', id: vendorId, value: { ...vendor, licences: [...vendor.licences, licence] }, expect: vendor }],
      };
    });
  }

  async revokeLicence(vendorId: string, licenceId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const licence = vendor.licences.find((l) => l.id === licenceId);
      if (!licence) throw new GatewayError('not_found', `Vendor "${vendorId}" has no licence "${licenceId}".`);
      return {
        result: null,
        change: { action: 'licence.revoke', target: `vendors/${vendorId}/licences/${licenceId}`, before: licence, after: null },
        ops: [{ kind: 'vendor', id: vendorId, value: { ...vendor, licences: vendor.licences.filter((l) => l !== licence) }, expect: vendor }],
      };
    });
  }

  async listUsers(page: PageRequest = {}): Promise<Page<UserRecord>> {
    const index = await this.writer.index();
    const { ids, next } = pageOf(index.userIds(), page);
    return { items: ids.map((id) => findUser(index, id)), next };
  }

  async listPermissions(userId: string, page: PageRequest = {}): Promise<Page<Permission>> {
    const { permissions } = findUser(await this.writer.index(), userId);
    const byId = new Map(permissions.map((p) => [p.id, p]));
    const { ids, next } = pageOf([...byId.keys()].sort(), page);
    return { items: ids.map((id) => byId.get(id) as Permission), next };
  }

  /** Grants a permission; the user is created by their first grant. */
  async grantPermission(userId: string, input: unknown, by: WriteBy, options: GrantOptions = {}): Promise<Outcome<Permission>> {
    const body = parseInput(grantPermissionInput, input, 'permission');
    refuseEmptyPatterns(emptyPattern('api', `user "${userId}"`, body.api), options.allowEmpty === true);
    const userIdResult = idSchema.safeParse(userId);
    if (!userIdResult.success) {
      throw new GatewayError('invalid_request', 'The user id is not valid; see errors.', {
        errors: userIdResult.error.issues.map((issue) => ({ field: 'userId', message: issue.message })),
      });
    }
    return this.writer.write(by, (index) => {
      const user = index.user(userId);
      const permissions = user?.permissions ?? [];
      const id = body.id ?? newId('perm');
      if (permissions.some((p) => p.id === id)) throw new GatewayError('conflict', `User "${userId}" already has a permission with id "${id}".`);
      const permission: Permission = { id, api: body.api };
      return {
        result: permission,
        change: { action: 'permission.grant', target: `users/${userId}/permissions/${id}`, before: null, after: permission },
        ops: [{ kind: 'user', id: userId, value: { id: userId, permissions: [...permissions, permission] }, expect: user ?? null }],
      };
    });
  }

  async revokePermission(userId: string, permissionId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const user = findUser(index, userId);
      const permission = user.permissions.find((p) => p.id === permissionId);
      if (!permission) throw new GatewayError('not_found', `User "${userId}" has no permission "${permissionId}".`);
      return {
        result: null,
        change: { action: 'permission.revoke', target: `users/${userId}/permissions/${permissionId}`, before: permission, after: null },
        ops: [{ kind: 'user', id: userId, value: { ...user, permissions: user.permissions.filter((p) => p !== permission) }, expect: user }],
      };
    });
  }

  async setRateLimit(vendorId: string, input: unknown, by: WriteBy): Promise<Outcome<RateLimit>> {
    const rateLimit = parseInput(rateLimitSchema, input, 'rate limit');
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const before = vendor.rateLimit ?? null;
      if (sameValue(before, rateLimit)) return unchanged(rateLimit);
      return {
        result: rateLimit,
        change: { action: 'rate-limit.set', target: `vendors/${vendorId}/rate-limit`, before, after: rateLimit },
        ops: [{ kind: 'vendor', id: vendorId, value: { ...vendor, rateLimit }, expect: vendor }],
      };
    });
  }

  /** The whole document as text in pieces, at the version in force (see access-document.ts). */
  exportDocument(format: 'json' | 'yaml' = 'json'): Promise<DocumentExport> {
    return this.document.exportDocument(format);
  }

  /** Replaces the whole document, or (dry run) says what that would change (see access-document.ts). */
  replaceDocument(input: unknown, by: WriteBy, options: ReplaceOptions = {}): Promise<Outcome<ReplaceResult>> {
    return this.document.replaceDocument(input, by, options);
  }
}
