/**
 * The in-process copy of the access config that the hot path reads: keys indexed by hash,
 * licence and permission patterns compiled once, and decisions memoised per (vendor or user,
 * API id), so a request costs one SHA-256 and a few map lookups.
 *
 * Reads an access document and a version; immutable once built. A new document means a
 * new snapshot, swapped in whole, so no request ever sees half of a change.
 */
import { hashApiKey, isWellFormedApiKey } from './api-key';
import type { AccessDocument, ApiKeyRecord, Licence, Permission, Vendor } from './model';

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

export type AuthResult =
  | { readonly ok: true; readonly principal: Principal; readonly vendor: Vendor }
  | { readonly ok: false; readonly reason: AuthFailureReason };

interface CompiledKey {
  readonly record: ApiKeyRecord;
  readonly vendor: Vendor;
  readonly principal: Principal;
  readonly expiresAtMs: number;
}

interface CompiledGrant {
  readonly matches: (apiId: string) => boolean;
  readonly expiresAtMs: number;
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

function compileGrants(grants: ReadonlyArray<Licence | Permission>): CompiledGrant[] {
  return grants.map((grant) => ({
    matches: compileApiPattern(grant.api),
    expiresAtMs: 'expiresAt' in grant ? toMs(grant.expiresAt) : Infinity,
  }));
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

export class AccessSnapshot {
  private readonly keysByHash = new Map<string, CompiledKey>();
  private readonly licences = new Map<string, CompiledGrant[]>();
  private readonly permissions = new Map<string, CompiledGrant[]>();
  private readonly licenceDecisions = new Map<string, Decision>();
  private readonly permissionDecisions = new Map<string, Decision>();
  readonly loadedAtMs: number;

  constructor(
    readonly document: Readonly<AccessDocument>,
    readonly version: number,
  ) {
    this.loadedAtMs = Date.now();
    for (const vendor of document.vendors) {
      this.licences.set(vendor.id, compileGrants(vendor.licences));
      for (const record of vendor.keys) {
        this.keysByHash.set(record.hash, {
          record,
          vendor,
          principal: Object.freeze({
            vendorId: vendor.id,
            vendorName: vendor.name,
            keyId: record.id,
            userId: record.userId,
            certificateThumbprints: Object.freeze([...(record.certificateThumbprints ?? [])]),
          }),
          expiresAtMs: toMs(record.expiresAt),
        });
      }
    }
    for (const user of document.users) this.permissions.set(user.id, compileGrants(user.permissions));
  }

  authenticate(token: string | undefined, nowMs = Date.now()): AuthResult {
    if (token === undefined || token.length === 0) return { ok: false, reason: 'missing' };
    // The checksum turns away typos and guesses before any hashing or lookup.
    if (!isWellFormedApiKey(token)) return { ok: false, reason: 'malformed' };
    const key = this.keysByHash.get(hashApiKey(token));
    if (!key) return { ok: false, reason: 'unknown' };
    if (key.record.status === 'revoked') return { ok: false, reason: 'revoked' };
    if (key.expiresAtMs <= nowMs) return { ok: false, reason: 'expired' };
    return { ok: true, principal: key.principal, vendor: key.vendor };
  }

  /** Null when the principal may call the API id; else why not. */
  authorize(principal: Principal, vendor: Vendor, apiId: string, nowMs = Date.now()): AccessDeniedReason | null {
    if (vendor.status !== 'active') return 'vendor_suspended';
    if (!this.cachedDecision(this.licenceDecisions, this.licences, vendor.id, apiId, nowMs)) return 'licence_required';
    if (!this.cachedDecision(this.permissionDecisions, this.permissions, principal.userId, apiId, nowMs)) {
      return 'permission_denied';
    }
    return null;
  }

  private cachedDecision(
    cache: Map<string, Decision>,
    grantsByOwner: ReadonlyMap<string, CompiledGrant[]>,
    owner: string,
    apiId: string,
    nowMs: number,
  ): boolean {
    const cacheKey = `${owner}\u0000${apiId}`;
    let decision = cache.get(cacheKey);
    if (!decision || decision.validUntilMs <= nowMs) {
      decision = decide(grantsByOwner.get(owner) ?? [], apiId, nowMs);
      cache.set(cacheKey, decision);
    }
    return decision.allowed;
  }
}
