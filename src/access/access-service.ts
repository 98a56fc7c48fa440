/**
 * The admin operations on the access document: vendors, keys, licences, user permissions,
 * rate limits and the whole document, each a read-modify-write of one document version.
 *
 * Reads and replaces the document through an AccessStore, and drops the last-use times of keys
 * a write removed (keyUsage); sets nothing else. Every write goes through
 * `store.replace(document, expectedVersion)` and is retried on a version conflict, so two
 * admins on two instances never lose each other's update; writes from this instance are
 * also queued, so they never conflict with each other. Each result is validated by the access
 * document schema before it is stored. A write returns its result and a `Change` (what, on
 * which target, before, after) for the audit log; no change ever holds a key's secret, and
 * keys are shown without their hash outside the whole-document operations.
 */
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors/error-catalogue';
import { apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';
import {
  accessDocumentSchema,
  rateLimitSchema,
  type AccessDocument,
  type ApiKeyRecord,
  type Licence,
  type Permission,
  type RateLimit,
  type User,
  type Vendor,
} from './model';
import { VersionConflictError, type AccessStore } from './access-store';
import { diffAccessDocuments, sameValue, type AccessDiff } from './access-diff';
import type { KeyUsageTracker } from './key-usage';
import { createVendorInput, fieldErrors, grantLicenceInput, grantPermissionInput, idSchema, issueKeyInput, parseInput, patchKeyInput, patchVendorInput } from './admin-inputs';

export type KeyView = Omit<ApiKeyRecord, 'hash'>;
export type VendorView = Omit<Vendor, 'keys'> & { keys: KeyView[] };
/** The answer to a key issue: the only place the secret ever appears. */
export type IssuedKey = KeyView & { secret: string };

/** What a write did, for the audit log. */
export interface Change {
  readonly action: string;
  /** The admin API path of what changed: `vendors/acme`, `keys/key-1`, `access`. */
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** A write's result; `change` is null when the write found nothing to change. */
export interface Outcome<T> {
  readonly result: T;
  readonly change: Change | null;
}

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

export interface AccessServiceOptions {
  /** Attempts per write when other instances keep changing the document meanwhile. */
  readonly maxAttempts?: number;
  /** Where each key's lastUsedAt comes from (kept apart from the document; see key-usage.ts). */
  readonly keyUsage?: Pick<KeyUsageTracker, 'lastUsed' | 'forgetRemoved'>;
}

const DEFAULT_MAX_ATTEMPTS = 10;

const newId = (kind: string): string => `${kind}-${randomBytes(6).toString('hex')}`;

function keyView(record: ApiKeyRecord): KeyView {
  const { hash: _hash, ...view } = record;
  return view;
}

function vendorView(vendor: Vendor): VendorView {
  return { ...vendor, keys: vendor.keys.map(keyView) };
}

/**
 * A revoked key never comes back: an old exported file applied after a revocation (a leaked
 * key, say) would otherwise make it work again. Issue a new key instead.
 */
function refuseRevivedKeys(live: AccessDocument, next: AccessDocument): void {
  const revoked = new Set(live.vendors.flatMap((v) => v.keys.filter((k) => k.status === 'revoked').map((k) => k.hash)));
  const revived = next.vendors.flatMap((v) => v.keys.filter((k) => k.status !== 'revoked' && revoked.has(k.hash)).map((k) => k.id));
  if (revived.length > 0) {
    throw new GatewayError('conflict', `The document would make revoked keys work again (${revived.join(', ')}); a revoked key stays revoked: issue a new one.`);
  }
}

function findVendor(doc: AccessDocument, vendorId: string): Vendor {
  const vendor = doc.vendors.find((v) => v.id === vendorId);
  if (!vendor) throw new GatewayError('not_found', `No vendor "${vendorId}".`);
  return vendor;
}

function findUser(doc: AccessDocument, userId: string): User {
  const user = doc.users.find((u) => u.id === userId);
  if (!user) throw new GatewayError('not_found', `No user "${userId}".`);
  return user;
}

function findKey(doc: AccessDocument, keyId: string): ApiKeyRecord {
  for (const vendor of doc.vendors) {
    const key = vendor.keys.find((k) => k.id === keyId);
    if (key) return key;
  }
  throw new GatewayError('not_found', `No key "${keyId}".`);
}

function duplicate(what: string, id: string): GatewayError {
  return new GatewayError('conflict', `A ${what} with id "${id}" already exists.`);
}

function validateDocument(doc: AccessDocument): AccessDocument {
  const result = accessDocumentSchema.safeParse(doc);
  if (!result.success) {
    throw new GatewayError('invalid_request', 'The change would make the access document invalid; see errors.', {
      errors: fieldErrors(result.error),
    });
  }
  return result.data;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class AccessService {
  private readonly maxAttempts: number;
  /** The last queued write of this instance; each write starts after the one before. */
  private writeQueue: Promise<unknown> = Promise.resolve();

  private readonly keyUsage: AccessServiceOptions['keyUsage'];

  constructor(
    private readonly store: AccessStore,
    options: AccessServiceOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
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

  async listVendors(): Promise<VendorView[]> {
    const { document } = await this.store.read();
    return Promise.all(document.vendors.map(async (v) => ({ ...vendorView(v), keys: await this.withLastUse(v.keys.map(keyView)) })));
  }

  async getVendor(vendorId: string): Promise<VendorView> {
    const { document } = await this.store.read();
    const view = vendorView(findVendor(document, vendorId));
    return { ...view, keys: await this.withLastUse(view.keys) };
  }

  async createVendor(input: unknown): Promise<Outcome<VendorView>> {
    const body = parseInput(createVendorInput, input, 'vendor');
    return this.write((doc) => {
      if (doc.vendors.some((v) => v.id === body.id)) throw duplicate('vendor', body.id);
      const licenceIds = new Set<string>();
      const licences = body.licences.map((licence) => {
        const id = licence.id ?? newId('lic');
        if (licenceIds.has(id)) throw duplicate('licence', id);
        licenceIds.add(id);
        return { ...licence, id };
      });
      const vendor: Vendor = { ...body, licences, keys: [] };
      doc.vendors.push(vendor);
      const view = vendorView(vendor);
      return { result: view, change: { action: 'vendor.create', target: `vendors/${vendor.id}`, before: null, after: view } };
    });
  }

  async patchVendor(vendorId: string, input: unknown): Promise<Outcome<VendorView>> {
    const patch = parseInput(patchVendorInput, input, 'vendor change');
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      const before = vendorView(structuredClone(vendor));
      if (patch.name !== undefined) vendor.name = patch.name;
      if (patch.status !== undefined) vendor.status = patch.status;
      if (patch.rateLimit !== undefined) vendor.rateLimit = patch.rateLimit;
      const after = vendorView(vendor);
      const change = sameValue(before, after) ? null : { action: 'vendor.update', target: `vendors/${vendorId}`, before, after };
      return { result: after, change };
    });
  }

  /** Removes the vendor with its keys and licences; users and their permissions stay. */
  async deleteVendor(vendorId: string): Promise<Outcome<null>> {
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      doc.vendors = doc.vendors.filter((v) => v !== vendor);
      return { result: null, change: { action: 'vendor.delete', target: `vendors/${vendorId}`, before: vendorView(vendor), after: null } };
    });
  }

  async listKeys(vendorId: string): Promise<KeyView[]> {
    const { document } = await this.store.read();
    return this.withLastUse(findVendor(document, vendorId).keys.map(keyView));
  }

  /** Issues a key: the secret is in the result only, once; the store keeps its hash and prefix. */
  async issueKey(vendorId: string, input: unknown): Promise<Outcome<IssuedKey>> {
    const body = parseInput(issueKeyInput, input, 'key request');
    const secret = generateApiKey();
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      const id = body.id ?? newId('key');
      if (doc.vendors.some((v) => v.keys.some((k) => k.id === id))) throw duplicate('key', id);
      const record: ApiKeyRecord = {
        id,
        prefix: apiKeyPrefix(secret),
        hash: hashApiKey(secret),
        userId: body.userId,
        status: 'active',
        createdAt: new Date().toISOString(),
        ...(body.expiresAt === undefined ? {} : { expiresAt: body.expiresAt }),
        ...(body.certificateThumbprints === undefined ? {} : { certificateThumbprints: body.certificateThumbprints }),
      };
      vendor.keys.push(record);
      const view = keyView(record);
      return {
        result: { ...view, secret },
        change: { action: 'key.issue', target: `vendors/${vendorId}/keys/${id}`, before: null, after: view },
      };
    });
  }

  /** Binds the key to other certificates, or unbinds it (an empty list); the secret stays. */
  async patchKey(keyId: string, input: unknown): Promise<Outcome<KeyView>> {
    const body = parseInput(patchKeyInput, input, 'key change');
    return this.write((doc) => {
      const key = findKey(doc, keyId);
      const before = keyView(structuredClone(key));
      if (body.certificateThumbprints.length === 0) delete key.certificateThumbprints;
      else key.certificateThumbprints = body.certificateThumbprints;
      const after = keyView(key);
      if (sameValue(before, after)) return { result: after, change: null };
      return { result: after, change: { action: 'key.update', target: `keys/${keyId}`, before, after } };
    });
  }

  /** Marks the key revoked; it stays in the document so the audit trail can name it. */
  async revokeKey(keyId: string): Promise<Outcome<KeyView>> {
    return this.write((doc) => {
      const key = findKey(doc, keyId);
      if (key.status === 'revoked') return { result: keyView(key), change: null };
      const before = keyView(structuredClone(key));
      key.status = 'revoked';
      const after = keyView(key);
      return { result: after, change: { action: 'key.revoke', target: `keys/${keyId}`, before, after } };
    });
  }

  async listLicences(vendorId: string): Promise<Licence[]> {
    const { document } = await this.store.read();
    return findVendor(document, vendorId).licences;
  }

  async grantLicence(vendorId: string, input: unknown): Promise<Outcome<Licence>> {
    const body = parseInput(grantLicenceInput, input, 'licence');
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      const id = body.id ?? newId('lic');
      if (vendor.licences.some((l) => l.id === id)) throw duplicate('licence', id);
      const licence: Licence = { ...body, id };
      vendor.licences.push(licence);
      return {
        result: licence,
        change: { action: 'licence.grant', target: `vendors/${vendorId}/licences/${id}`, before: null, after: licence },
      };
    });
  }

  async revokeLicence(vendorId: string, licenceId: string): Promise<Outcome<null>> {
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      const licence = vendor.licences.find((l) => l.id === licenceId);
      if (!licence) throw new GatewayError('not_found', `Vendor "${vendorId}" has no licence "${licenceId}".`);
      vendor.licences = vendor.licences.filter((l) => l !== licence);
      return {
        result: null,
        change: { action: 'licence.revoke', target: `vendors/${vendorId}/licences/${licenceId}`, before: licence, after: null },
      };
    });
  }

  async listPermissions(userId: string): Promise<Permission[]> {
    const { document } = await this.store.read();
    return findUser(document, userId).permissions;
  }

  /** Grants a permission; the user is created by their first grant. */
  async grantPermission(userId: string, input: unknown): Promise<Outcome<Permission>> {
    const body = parseInput(grantPermissionInput, input, 'permission');
    const userIdResult = idSchema.safeParse(userId);
    if (!userIdResult.success) {
      throw new GatewayError('invalid_request', 'The user id is not valid; see errors.', {
        errors: userIdResult.error.issues.map((issue) => ({ field: 'userId', message: issue.message })),
      });
    }
    return this.write((doc) => {
      let user = doc.users.find((u) => u.id === userId);
      if (!user) {
        user = { id: userId, permissions: [] };
        doc.users.push(user);
      }
      const id = body.id ?? newId('perm');
      if (user.permissions.some((p) => p.id === id)) throw duplicate('permission', id);
      const permission: Permission = { id, api: body.api };
      user.permissions.push(permission);
      return {
        result: permission,
        change: { action: 'permission.grant', target: `users/${userId}/permissions/${id}`, before: null, after: permission },
      };
    });
  }

  async revokePermission(userId: string, permissionId: string): Promise<Outcome<null>> {
    return this.write((doc) => {
      const user = findUser(doc, userId);
      const permission = user.permissions.find((p) => p.id === permissionId);
      if (!permission) throw new GatewayError('not_found', `User "${userId}" has no permission "${permissionId}".`);
      user.permissions = user.permissions.filter((p) => p !== permission);
      return {
        result: null,
        change: { action: 'permission.revoke', target: `users/${userId}/permissions/${permissionId}`, before: permission, after: null },
      };
    });
  }

  async setRateLimit(vendorId: string, input: unknown): Promise<Outcome<RateLimit>> {
    const rateLimit = parseInput(rateLimitSchema, input, 'rate limit');
    return this.write((doc) => {
      const vendor = findVendor(doc, vendorId);
      const before = vendor.rateLimit ?? null;
      vendor.rateLimit = rateLimit;
      const change = sameValue(before, rateLimit)
        ? null
        : { action: 'rate-limit.set', target: `vendors/${vendorId}/rate-limit`, before, after: rateLimit };
      return { result: rateLimit, change };
    });
  }

  /** The whole document as stored (keys with their hashes, so it can be applied again). */
  async getDocument(): Promise<{ version: number; document: AccessDocument }> {
    const { version, document } = await this.store.read();
    return { version, document };
  }

  /**
   * Replaces the whole document at once, or (dry run) says what that would change. The audit
   * change holds the versions and the diff, not two copies of the document.
   */
  async replaceDocument(input: unknown, options: ReplaceOptions = {}): Promise<Outcome<ReplaceResult>> {
    // An empty body must not read as "an empty document" and wipe every vendor.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new GatewayError('invalid_request', 'Send the whole access document (vendors, users) as the body.', {
        errors: [{ field: '(root)', message: 'an access document object' }],
      });
    }
    const next = parseInput(accessDocumentSchema, input, 'access document');
    const { expectedVersion } = options;
    if (options.dryRun) {
      const { version, document } = await this.store.read();
      if (expectedVersion !== undefined && expectedVersion !== version) throw this.staleVersion(expectedVersion, version);
      return { result: { dryRun: true, applied: false, version, diff: diffAccessDocuments(document, next) }, change: null };
    }
    return this.queued(async () => {
      for (let attempt = 1; ; attempt++) {
        const { version, document } = await this.store.read();
        if (expectedVersion !== undefined && expectedVersion !== version) throw this.staleVersion(expectedVersion, version);
        const diff = diffAccessDocuments(document, next);
        if (diff.identical) return { result: { dryRun: false, applied: false, version, diff }, change: null };
        refuseRevivedKeys(document, next);
        try {
          const newVersion = await this.store.replace(next, version);
          await this.keyUsage?.forgetRemoved(document, next);
          return {
            result: { dryRun: false, applied: true, version: newVersion, diff },
            change: { action: 'access.replace', target: 'access', before: { version }, after: { version: newVersion, diff } },
          };
        } catch (err) {
          await this.afterConflict(err, attempt);
        }
      }
    });
  }

  private staleVersion(expected: number, actual: number): GatewayError {
    return new GatewayError('conflict', `The access document is at version ${actual}, not ${expected}; read it again and retry.`);
  }

  /** Rethrows anything but a version conflict, and a conflict once the attempts are spent. */
  private async afterConflict(err: unknown, attempt: number): Promise<void> {
    if (!(err instanceof VersionConflictError)) throw err;
    if (attempt >= this.maxAttempts) {
      throw new GatewayError('conflict', 'The access document kept changing during this write; try again.', { cause: err });
    }
    // Jitter, so two instances that collided do not collide again in lockstep.
    await pause(Math.random() * 10 * attempt);
  }

  private queued<T>(run: () => Promise<T>): Promise<T> {
    const next = this.writeQueue.then(run, run);
    this.writeQueue = next.catch(() => undefined);
    return next;
  }

  /** Read, change a private copy, validate, replace if the version still holds; else again. */
  private write<T>(mutate: (draft: AccessDocument) => Outcome<T>): Promise<Outcome<T>> {
    return this.queued(async () => {
      for (let attempt = 1; ; attempt++) {
        const { version, document } = await this.store.read();
        const draft = structuredClone(document);
        const outcome = mutate(draft);
        if (outcome.change === null) return outcome;
        const validated = validateDocument(draft);
        try {
          await this.store.replace(validated, version);
          await this.keyUsage?.forgetRemoved(document, validated);
          return outcome;
        } catch (err) {
          await this.afterConflict(err, attempt);
        }
      }
    });
  }
}
