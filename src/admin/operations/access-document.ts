/**
 * The whole access document as one thing: its export (streamed in pieces, at one version) and
 * its replacement (PUT /v1/access, `gatewayctl apply`), which writes only the records that differ
 * as one version, stages and swaps many changes in whole, and mends a store that lost records by
 * rewriting them all.
 *
 * Reads the live AccessIndex through the shared AccessWriter (one write queue per instance);
 * writes through the AccessStore and, for swapped writes, serves what it wrote (AccessCache).
 * A revoked key never comes back through a document.
 */
import { stringify as toYaml } from 'yaml';
import { GatewayError } from '../../errors/error-catalogue';
import { derivedGrantId, documentField, parseAccessDocumentInPlace, type AccessDocument } from '../../access/model';
import { AccessStoreIntegrityError, VersionConflictError, type AccessReplaceAll, type AccessStore } from '../../access/access-store';
import { diffAccessDocuments, type AccessDiff } from './access-diff';
import {
  keyRecord,
  operationsBetween,
  planDigest,
  takeRecords,
  type AccessOp,
  type AccessRecords,
  type KeyEntity,
  type VendorRecord,
} from '../../access/access-state';
import type { AccessIndex } from '../../access/access-index';
import type { AccessCache } from '../../access/cache';
import { auditEntry, writerOf, type AccessWriter, type Change, type Outcome, type WriteBy } from './access-writer';
import { fieldErrors } from './admin-inputs';
import { emptyPatternsOf, refuseEmptyPatterns, type EmptyPattern } from './pattern-reach';
import { vendorsOfDiff } from './audit-vendors';

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
  /**
   * Replace only if the write is still the one previewed (its plan has this digest; see
   * `planDigest`), else `conflict` with the fresh preview: how an approval applies a pending
   * whole-document change exactly as it was shown, whatever else was written meanwhile.
   */
  readonly expectedPlan?: string;
  /** Take patterns that match no API id too (`?allowEmpty=true`); else a new one is a 400. */
  readonly allowEmpty?: boolean;
}

/** The whole document as text, in pieces, at one version (for a streamed answer). */
export interface DocumentExport {
  readonly version: number;
  readonly chunks: Iterable<string>;
}

const DEFAULT_BULK_THRESHOLD = 1000;
/** Keys per piece of a streamed export. */
const EXPORT_CHUNK = 500;

/**
 * A revoked key never comes back: an old exported file applied after a revocation (a leaked
 * key, say) would otherwise make it work again. Issue a new key instead.
 */
function refuseRevivedKeys(index: AccessIndex, next: AccessRecords): void {
  const revived = next.keys
    .filter((k) => k.status !== 'revoked' && index.keyByHash(k.hash)?.status === 'revoked')
    .map((k) => `${k.id} of vendor "${k.vendorId}"`);
  if (revived.length > 0) {
    throw new GatewayError(
      'conflict',
      `The document would make revoked keys work again (${revived.join(', ')}); a revoked key stays revoked: issue a new one.`,
    );
  }
}

/**
 * A licence or permission the file gave no id (so it holds its derived one) keeps the id it has
 * in force when its owner holds the same pattern under another id (one granted through the API,
 * say): applying a hand-written file does not revoke and re-grant what is unchanged. In place.
 */
function keepLiveGrantIds(next: AccessDocument, index: AccessIndex): void {
  const adopt = (
    prefix: 'lic' | 'perm',
    ownerId: string,
    grants: Array<{ id: string; api: string }>,
    live: ReadonlyArray<{ id: string; api: string }> | undefined,
  ): void => {
    if (!live || live.length === 0) return;
    const taken = new Set(grants.map((g) => g.id));
    for (const grant of grants) {
      const match = live.find((l) => l.api === grant.api && !taken.has(l.id));
      if (match && grant.id === derivedGrantId(prefix, ownerId, grant.api) && !live.some((l) => l.id === grant.id)) {
        taken.add(match.id);
        grant.id = match.id;
      }
    }
  };
  for (const vendor of next.vendors) adopt('lic', vendor.id, vendor.licences, index.vendor(vendor.id)?.licences);
  for (const user of next.users) adopt('perm', user.id, user.permissions, index.user(user.id)?.permissions);
}

export class AccessDocumentService {
  constructor(
    private readonly cache: AccessCache,
    private readonly store: AccessStore,
    private readonly writer: AccessWriter,
    /** Whole-document writes with more operations than this are staged and swapped in. */
    private readonly bulkThreshold = DEFAULT_BULK_THRESHOLD,
  ) {}

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
   * Swaps a document's records in whole. A whole-document write leaves admins, proposals and portal users
   * as they are in the store, so the writer serves the records with the ones it holds; mending a
   * store that lost records writes those too, from the same copy. Without a copy to mend from
   * (`index` is not the served one), the document's records go in alone and the cache loads the
   * result.
   */
  private async swapWhole(index: AccessIndex, records: AccessRecords, change: AccessReplaceAll & { readonly expectedVersion: number }): Promise<number> {
    if (index !== this.cache.index) return (await this.store.replaceAll(records, { ...change, mend: false })).version;
    // A vendor the document drops takes its portal users along, here too: the served copy is
    // written whole then (the script holds it to the planned version, so nothing newer is lost).
    const vendorsKept = new Set(records.vendors.map((vendor) => vendor.id));
    const portalUsers = index.portalUserList().filter((user) => vendorsKept.has(user.vendorId));
    const served: AccessRecords = { ...records, admins: index.adminList(), proposals: index.proposalList(), portalUsers };
    const whole = change.mend || portalUsers.length < index.portalUserList().length;
    const written = await this.cache.writeWhole(served, () => this.store.replaceAll(whole ? served : records, { ...change, mend: whole }));
    return written.version;
  }

  /**
   * Replaces the whole document at once, or (dry run) says what that would change. Writes only
   * the records that differ, as one version; many changes are staged and swapped in whole. The
   * audit change holds the versions and the diff, not two copies of the document.
   */
  async replaceDocument(input: unknown, by: WriteBy, options: ReplaceOptions = {}): Promise<Outcome<ReplaceResult>> {
    // An empty body must not read as "an empty document" and wipe every vendor.
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new GatewayError('invalid_request', 'Send the whole access document (vendors, users) as the body.', {
        errors: [{ field: '(root)', message: 'an access document object' }],
      });
    }
    const parsed = parseAccessDocumentInPlace(input);
    if (!parsed.success) {
      // Named by vendor and user id (`vendors[acme].licences[1].api`), which a reader finds in the file.
      const errors = fieldErrors(parsed.error, (path) => documentField(path, input).field);
      throw new GatewayError('invalid_request', 'The access document is not valid; see errors.', { errors });
    }
    const next = parsed.data;
    keepLiveGrantIds(next, await this.writer.wholeWriteIndex());
    const emptyPatterns = emptyPatternsOf(next);
    const nextRecords = takeRecords(next);
    const { expectedVersion } = options;
    const writer = writerOf(by);
    const { actor, preview, approving } = writer;
    const { expectedPlan } = options;
    const plan = async (): Promise<{ version: number; diff: AccessDiff; ops: AccessOp[]; index: AccessIndex; digest: string }> => {
      const index = await this.writer.wholeWriteIndex();
      const { version } = index;
      if (expectedVersion !== undefined && expectedVersion !== version) throw this.staleVersion(expectedVersion, version);
      // Only a pattern the owner does not hold already: an exported document applies back as it is.
      const held = ({ holder, pattern }: EmptyPattern): boolean =>
        holder?.kind === 'vendor'
          ? (index.vendor(holder.id)?.licences.some((l) => l.api === pattern) ?? false)
          : (index.user(holder?.id ?? '')?.permissions.some((p) => p.api === pattern) ?? false);
      refuseEmptyPatterns(
        emptyPatterns.filter((e) => !held(e)),
        options.allowEmpty === true,
      );
      const ops = operationsBetween(index.records(), nextRecords);
      const diff = diffAccessDocuments(index.documentForDiff(), next);
      const digest = planDigest(ops);
      if (expectedPlan !== undefined && digest !== expectedPlan) {
        throw new GatewayError(
          'conflict',
          'The access config changed since this whole-document change was made, so it would no longer apply as previewed; reject it and make it again. preview holds what it would change now.',
          {
            preview: { action: 'access.replace', target: 'access', before: { version, plan: digest }, after: { diff } },
          },
        );
      }
      return { version, ops, index, diff, digest };
    };
    if (options.dryRun || preview) {
      const { version, diff, digest, index } = await plan();
      const result = { dryRun: true, applied: false, version, diff };
      if (!preview) return { result, change: null };
      // `plan` names exactly what it would write: a proposal applies only while it still does.
      const change: Change = {
        action: 'access.replace',
        target: 'access',
        before: { version, plan: digest },
        after: { diff },
        vendorIds: vendorsOfDiff(index, diff, nextRecords.keys),
      };
      return { result, change };
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
        const change: Change = {
          action: 'access.replace',
          target: 'access',
          before: { version },
          after,
          vendorIds: vendorsOfDiff(index, diff, nextRecords.keys),
        };
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
    // A whole-document write cannot carry the proposal's removal in its own step (it may be
    // staged and swapped): the change goes next. Applied twice it would fail its version check.
    if (approving)
      await this.writer.write(actor, () => ({
        result: null,
        change: { action: 'change.applied', target: `changes/${approving.proposal.id}`, before: approving.proposal, after: null },
        ops: [{ kind: 'proposal', id: approving.proposal.id, value: null, expect: approving.proposal }],
      }));
    return outcome;
  }

  private staleVersion(expected: number, actual: number): GatewayError {
    return new GatewayError('conflict', `The access document is at version ${actual}, not ${expected}; read it again and retry.`);
  }
}
