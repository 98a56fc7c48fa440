/**
 * The admin operations on the access config: vendors, keys, licences, user permissions, rate
 * limits and the whole document, each a change to the few records it touches.
 *
 * Reads the live AccessIndex and writes through the AccessWriter (access-writer.ts: plan on the
 * current records, commit with the audit entry in one step, plan again when another admin got
 * there first). Every write takes who makes it (`WriteBy`), so the change queue can preview it or
 * apply it as an approval. A write returns its result and a `Change` (what, on which target,
 * before, after); no change ever holds a key's secret, and keys are shown without their hash
 * outside the whole-document operations. A whole-document write with many changes is staged and
 * swapped in as one version.
 */
import { randomBytes } from 'node:crypto';
import { stringify as toYaml } from 'yaml';
import { GatewayError } from '../errors/error-catalogue';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';
import { parseAccessDocumentInPlace, rateLimitSchema, type ApiKeyRecord, type Licence, type Permission, type RateLimit } from './model';
import { AccessStoreIntegrityError, VersionConflictError, type AccessReplaceAll, type AccessStore } from './access-store';
import { diffAccessDocuments, sameValue, type AccessDiff } from './access-diff';
import {
  keyRecord,
  operationsBetween,
  takeRecords,
  type AccessOp,
  type AccessRecords,
  type KeyEntity,
  type UserRecord,
  type VendorRecord,
} from './access-state';
import type { AccessIndex } from './access-index';
import type { AccessCache } from './cache';
import { AccessWriter, auditEntry, unchanged, writerOf, type AccessWriterOptions, type Change, type Outcome, type WriteBy } from './access-writer';
import { createVendorInput, fieldErrors, grantLicenceInput, grantPermissionInput, idSchema, issueKeyInput, parseInput, patchKeyInput, patchVendorInput } from './admin-inputs';

export type KeyView = Omit<ApiKeyRecord, 'hash'>;
export type VendorView = VendorRecord & { keys: KeyView[] };
/** The answer to a key issue: the only place the secret ever appears. */
export type IssuedKey = KeyView & { secret: string };

export type { Change, Outcome } from './access-writer';

export interface ReplaceResult {
  readonly dryRun: boolean;
  /** False on a dry run and when the document was already the one sent. */
  readonly applied: boolean;
  /** The version now in force (the current one on a dry run or when nothing changed). */
  readonly version: number;
  readonly diff: AccessDiff;
}

export interface ReplaceOptions {
  readonly dryRun?: boolean;
  /** Replace only if the store still holds this version (HTTP If-Match), else `conflict`. */
  readonly expectedVersion?: number;
}

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

/** The whole document as text, in pieces, at one version (for a streamed answer). */
export interface DocumentExport {
  readonly version: number;
  readonly chunks: Iterable<string>;
}

export interface AccessServiceOptions extends AccessWriterOptions {
  /** Whole-document writes with more operations than this are staged and swapped in. */
  readonly bulkThreshold?: number;
}
const DEFAULT_BULK_THRESHOLD = 1000;
/** Keys per piece of a streamed export. */
const EXPORT_CHUNK = 500;

const newId = (kind: string): string => `${kind}-${randomBytes(6).toString('hex')}`;

function keyView(key: KeyEntity | ApiKeyRecord): KeyView {
  const { hash: _hash, ...view } = 'vendorId' in key ? keyRecord(key) : key;
  return view;
}

function findVendor(index: AccessIndex, vendorId: string): VendorRecord {
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

/**
 * A revoked key never comes back: an old exported file applied after a revocation (a leaked
 * key, say) would otherwise make it work again. Issue a new key instead.
 */
function refuseRevivedKeys(index: AccessIndex, next: AccessRecords): void {
  const revived = next.keys.filter((k) => k.status !== 'revoked' && index.keyByHash(k.hash)?.status === 'revoked').map((k) => k.id);
  if (revived.length > 0) {
    throw new GatewayError('conflict', `The document would make revoked keys work again (${revived.join(', ')}); a revoked key stays revoked: issue a new one.`);
  }
}

/** The page of sorted `ids` after `after`, at most `limit` long. */
function pageOf(ids: readonly string[], { limit, after }: PageRequest): { ids: readonly string[]; next: string | null } {
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
  private readonly bulkThreshold: number;
  private readonly keyUsage: AccessServiceOptions['keyUsage'];
  /** Shared with the admin directory and the change queue: one write queue per instance. */
  readonly writer: AccessWriter;

  constructor(
    private readonly cache: AccessCache,
    private readonly store: AccessStore,
    options: AccessServiceOptions = {},
  ) {
    this.writer = new AccessWriter(cache, store, options);
    this.bulkThreshold = options.bulkThreshold ?? DEFAULT_BULK_THRESHOLD;
    this.keyUsage = options.keyUsage;
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

  private async vendorView(index: AccessIndex, vendor: VendorRecord): Promise<VendorView> {
    return { ...vendor, keys: await this.withLastUse(index.keysOf(vendor.id).map(keyView)) };
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

  async createVendor(input: unknown, by: WriteBy): Promise<Outcome<VendorView>> {
    const body = parseInput(createVendorInput, input, 'vendor');
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

  /** Removes the vendor with its keys and licences; users and their permissions stay. */
  async deleteVendor(vendorId: string, by: WriteBy): Promise<Outcome<null>> {
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const keys = index.keysOf(vendorId);
      return {
        result: null,
        change: { action: 'vendor.delete', target: `vendors/${vendorId}`, before: { ...vendor, keys: keys.map(keyView) }, after: null },
        ops: [
          { kind: 'vendor', id: vendorId, value: null, expect: vendor },
          ...keys.map((key): AccessOp => ({ kind: 'key', id: key.id, value: null, expect: key })),
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
      return { result: after, change: { action: 'key.update', target: `keys/${keyId}`, before, after }, ops: [{ kind: 'key', id: keyId, value: updated, expect: key }] };
    });
  }

  /** Marks the key revoked; it stays in the config so the audit trail can name it. */
  async revokeKey(keyId: string, by: WriteBy): Promise<Outcome<KeyView>> {
    return this.writer.write(by, (index) => {
      const key = findKey(index, keyId);
      if (key.status === 'revoked') return unchanged(keyView(key));
      const updated: KeyEntity = { ...key, status: 'revoked' };
      const after = keyView(updated);
      return { result: after, change: { action: 'key.revoke', target: `keys/${keyId}`, before: keyView(key), after }, ops: [{ kind: 'key', id: keyId, value: updated, expect: key }] };
    });
  }

  async listLicences(vendorId: string): Promise<Licence[]> {
    return findVendor(await this.writer.index(), vendorId).licences;
  }

  async grantLicence(vendorId: string, input: unknown, by: WriteBy): Promise<Outcome<Licence>> {
    const body = parseInput(grantLicenceInput, input, 'licence');
    return this.writer.write(by, (index) => {
      const vendor = findVendor(index, vendorId);
      const id = body.id ?? newId('lic');
      if (vendor.licences.some((l) => l.id === id)) throw duplicate('licence', id);
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
  async grantPermission(userId: string, input: unknown, by: WriteBy): Promise<Outcome<Permission>> {
    const body = parseInput(grantPermissionInput, input, 'permission');
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
      if (permissions.some((p) => p.id === id)) throw duplicate('permission', id);
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

  /**
   * The whole document as JSON text in pieces, all from the records in force when it was called
   * (later changes do not show in it), so a large config is sent without one huge string.
   */
  async exportDocument(format: 'json' | 'yaml' = 'json'): Promise<DocumentExport> {
    const index = await this.writer.index();
    const { version } = index;
    const { vendors, keys, users } = index.records();
    const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const keysByVendor = new Map<string, KeyEntity[]>();
    for (const key of keys) {
      const list = keysByVendor.get(key.vendorId);
      if (list) list.push(key);
      else keysByVendor.set(key.vendorId, [key]);
    }
    const sortedVendors = [...vendors].sort(byId);
    const sortedUsers = [...users].sort(byId);
    const vendorKeys = (vendor: VendorRecord): KeyEntity[] => (keysByVendor.get(vendor.id) ?? []).sort(byId);
    function* json(): Iterable<string> {
      yield '{"vendors":[';
      for (let i = 0; i < sortedVendors.length; i++) {
        const vendor = sortedVendors[i] as VendorRecord;
        // The vendor's own fields, then its keys in pieces: one vendor may hold most of the keys.
        yield `${i > 0 ? ',' : ''}${JSON.stringify({ ...vendor, keys: [] }).slice(0, -2)}`;
        const all = vendorKeys(vendor);
        for (let k = 0; k < all.length; k += EXPORT_CHUNK) {
          yield `${k > 0 ? ',' : ''}${all
            .slice(k, k + EXPORT_CHUNK)
            .map((key) => JSON.stringify(keyRecord(key)))
            .join(',')}`;
        }
        yield ']}';
      }
      yield '],"users":[';
      for (let u = 0; u < sortedUsers.length; u += EXPORT_CHUNK) {
        yield `${u > 0 ? ',' : ''}${sortedUsers
          .slice(u, u + EXPORT_CHUNK)
          .map((user) => JSON.stringify(user))
          .join(',')}`;
      }
      yield ']}';
    }
    // YAML a vendor (or 500 users) at a time: a list item each, under its section's key.
    function* yaml(): Iterable<string> {
      yield sortedVendors.length === 0 ? 'vendors: []\n' : 'vendors:\n';
      for (const vendor of sortedVendors) yield toYaml([{ ...vendor, keys: vendorKeys(vendor).map(keyRecord) }]);
      yield sortedUsers.length === 0 ? 'users: []\n' : 'users:\n';
      for (let u = 0; u < sortedUsers.length; u += EXPORT_CHUNK) yield toYaml(sortedUsers.slice(u, u + EXPORT_CHUNK));
    }
    return { version, chunks: format === 'yaml' ? yaml() : json() };
  }


  /**
   * Replaces the whole document at once, or (dry run) says what that would change. Writes only
   * the records that differ, as one version; many changes are staged and swapped in whole. The
   * audit change holds the versions and the diff, not two copies of the document.
   */
  /**
   * Swaps a document's records in whole. A whole-document write leaves admins and pending changes
   * as they are in the store, so the writer serves the records with the ones it holds; mending a
   * store that lost records writes those too, from the same copy. Without a copy to mend from
   * (`index` is not the served one), the document's records go in alone and the cache loads the
   * result.
   */
  private async swapWhole(index: AccessIndex, records: AccessRecords, change: AccessReplaceAll & { readonly expectedVersion: number }): Promise<number> {
    if (index !== this.cache.index) return (await this.store.replaceAll(records, { ...change, mend: false })).version;
    const served: AccessRecords = { ...records, admins: index.adminList(), changes: index.pendingChangeList() };
    const written = await this.cache.writeWhole(served, () => this.store.replaceAll(change.mend ? served : records, change));
    return written.version;
  }

  async replaceDocument(input: unknown, by: WriteBy, options: ReplaceOptions = {}): Promise<Outcome<ReplaceResult>> {
    // An empty body must not read as "an empty document" and wipe every vendor.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new GatewayError('invalid_request', 'Send the whole access document (vendors, users) as the body.', {
        errors: [{ field: '(root)', message: 'an access document object' }],
      });
    }
    const parsed = parseAccessDocumentInPlace(input);
    if (!parsed.success) throw new GatewayError('invalid_request', 'The access document is not valid; see errors.', { errors: fieldErrors(parsed.error) });
    const next = parsed.data;
    const nextRecords = takeRecords(next);
    const { expectedVersion } = options;
    const writer = writerOf(by);
    const { actor, preview, approving } = writer;
    const plan = async (): Promise<{ version: number; diff: AccessDiff; ops: AccessOp[]; index: AccessIndex }> => {
      const index = await this.writer.wholeWriteIndex();
      const { version } = index;
      if (expectedVersion !== undefined && expectedVersion !== version) throw this.staleVersion(expectedVersion, version);
      const ops = operationsBetween(index.records(), nextRecords);
      return { version, ops, index, diff: diffAccessDocuments(index.documentForDiff(), next) };
    };
    if (options.dryRun || preview) {
      const { version, diff } = await plan();
      const change: Change = { action: 'access.replace', target: 'access', before: { version }, after: { diff } };
      return { result: { dryRun: true, applied: false, version, diff }, change: preview ? change : null };
    }
    const outcome = await this.writer.queued(async (): Promise<Outcome<ReplaceResult>> => {
      for (let attempt = 1; ; attempt++) {
        const { version, ops, index, diff } = await plan();
        // A store that lost records is mended by rewriting them all, even to what this instance serves.
        const problem = this.cache.problem;
        if (ops.length === 0 && problem === null) return { result: { dryRun: false, applied: false, version, diff }, change: null };
        refuseRevivedKeys(index, nextRecords);
        // The script raises the version by one when this one still holds: the audit entry can say so.
        const after = problem === null ? { version: version + 1, diff } : { version: version + 1, diff, mended: problem };
        const change: Change = { action: 'access.replace', target: 'access', before: { version }, after };
        const audit = auditEntry(writer, change);
        try {
          let newVersion: number;
          if (ops.length > this.bulkThreshold || problem !== null) {
            newVersion = await this.swapWhole(index, nextRecords, { expectedVersion: version, audit, mend: problem !== null });
          } else {
            newVersion = await this.store.commit({ ops, expectedVersion: version, audit });
          }
          await this.writer.afterCommit(ops);
          return { result: { dryRun: false, applied: true, version: newVersion, diff }, change };
        } catch (err) {
          if (expectedVersion !== undefined && err instanceof VersionConflictError) throw this.staleVersion(expectedVersion, err.actual);
          // The commit found the store inconsistent before any check here did: plan again, as a mend.
          if (err instanceof AccessStoreIntegrityError && problem === null) continue;
          await this.writer.afterConflict(err, attempt);
        }
      }
    });
    // A whole-document write cannot carry the pending change's removal in its own step (it may be
    // staged and swapped): the change goes next. Applied twice it would fail its version check.
    if (approving) await this.writer.write(actor, () => ({ result: null, change: { action: 'change.applied', target: `changes/${approving.change.id}`, before: approving.change, after: null }, ops: [{ kind: 'change', id: approving.change.id, value: null, expect: approving.change }] }));
    return outcome;
  }

  private staleVersion(expected: number, actual: number): GatewayError {
    return new GatewayError('conflict', `The access document is at version ${actual}, not ${expected}; read it again and retry.`);
  }
}
