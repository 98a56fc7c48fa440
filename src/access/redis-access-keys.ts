/**
 * The Redis access store's key layout (redis-access-store.ts), and the list of KEYS each of its
 * Lua scripts (lua/: one module per script) takes, built here so that no KEYS order is written
 * twice.
 *
 * Layout, all under one hash tag so that every script touches a single cluster slot (the names
 * are persisted: an upgrade reads what the release before wrote):
 *   <prefix>{access}:version   the config's version, raised by every change
 *   <prefix>{access}:vendors   hash: vendor id -> vendor record (JSON, without keys)
 *   <prefix>{access}:keys      hash: key id -> key record (JSON, with its vendorId)
 *   <prefix>{access}:users     hash: user id -> user record (JSON, with permissions)
 *   <prefix>{access}:keyhash   hash: key hash -> key id (keeps hashes unique)
 *   <prefix>{access}:admins    hash: admin id -> admin account (JSON)
 *   <prefix>{access}:pending   hash: proposal id -> a four-eyes proposal waiting for a second admin (JSON)
 *   <prefix>{access}:portalusers  hash: portal user id -> a vendor portal user (JSON, with its vendorId)
 *   <prefix>{access}:manifest  hash: the version and how many records of each kind it holds
 *   <prefix>{access}:changes   the change stream (version + operations) instances replay, trimmed by age
 *   <prefix>{access}:audit     the audit stream (audit-log.ts), written by the same script
 *   <prefix>{access}:audit:head         hash: the audit chain's head (lua/audit-append.ts)
 *   <prefix>{access}:audit:checkpoints  list: the ids of the audit checkpoints kept, oldest first
 *   <prefix>{access}:doc       the earlier single-document layout, moved into records once
 *   <prefix>{access}:stage:*   a whole-config write being staged (redis-access-staging.ts)
 *   <prefix>{access}:changed   the channel every change publishes its new version on
 *
 * Every script that raises the version also writes the record manifest (`{access}:manifest`:
 * the version and the number of records of each kind it holds), so that a load, and every
 * version check, can tell a store whose records vanished (expired, evicted, deleted by hand)
 * from a store that was emptied on purpose. Reads nothing; sets nothing.
 */
import { MANIFEST } from './lua/integrity';
import type { StagedKeys, StagedKind } from './redis-access-staging';

export interface AccessKeys {
  /** `<prefix>{access}`: what the staged keys are named under. */
  readonly base: string;
  readonly version: string;
  readonly records: Readonly<Record<StagedKind, string>>;
  readonly changes: string;
  readonly audit: string;
  readonly auditHead: string;
  readonly auditCheckpoints: string;
  readonly legacyDocument: string;
  readonly manifest: string;
  readonly channel: string;
}

/** The layout above; the audit stream is the audit log's own key when it has one. */
export function accessKeys(keyPrefix: string, auditKey?: string): AccessKeys {
  const base = `${keyPrefix}{access}`;
  const audit = auditKey ?? `${base}:audit`;
  return {
    base,
    version: `${base}:version`,
    records: {
      vendor: `${base}:vendors`,
      key: `${base}:keys`,
      user: `${base}:users`,
      keyhash: `${base}:keyhash`,
      admin: `${base}:admins`,
      proposal: `${base}:pending`,
      portalUser: `${base}:portalusers`,
    },
    changes: `${base}:changes`,
    audit,
    auditHead: `${audit}:head`,
    auditCheckpoints: `${audit}:checkpoints`,
    legacyDocument: `${base}:doc`,
    manifest: `${base}:manifest`,
    channel: `${base}:changed`,
  };
}

export const MANIFEST_KINDS = MANIFEST.map(([kind]) => kind);
const recordHashes = (keys: AccessKeys): string[] => MANIFEST_KINDS.map((kind) => keys.records[kind]);

// The scripts' KEYS, in the order each script (lua/) reads them; its header there says what each is.
export const commitKeys = ({ version, records, changes, audit, manifest, auditHead, auditCheckpoints }: AccessKeys): string[] => [
  version,
  records.vendor,
  records.key,
  records.user,
  records.keyhash,
  changes,
  audit,
  records.admin,
  records.proposal,
  manifest,
  auditHead,
  auditCheckpoints,
  records.portalUser,
];
export const COMMIT_KEY_COUNT = 13;

export const swapKeys = (keys: AccessKeys, staged: StagedKeys): string[] => {
  const { version, records, changes, audit, legacyDocument, manifest, auditHead, auditCheckpoints } = keys;
  return [
    ...[version, records.vendor, records.key, records.user, records.keyhash, changes, audit],
    ...[staged.vendor, staged.key, staged.user, staged.keyhash],
    ...[legacyDocument, records.admin, records.proposal, staged.admin, staged.proposal, manifest, auditHead, auditCheckpoints],
    ...[records.portalUser, staged.portalUser],
  ];
};
export const SWAP_KEY_COUNT = 21;

export const headKeys = (keys: AccessKeys): string[] => [keys.version, keys.changes, keys.manifest, ...recordHashes(keys)];
export const backfillKeys = (keys: AccessKeys): string[] => [keys.version, keys.manifest, ...recordHashes(keys)];
