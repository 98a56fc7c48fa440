/**
 * The Redis access store (REDIS_URL set): the access config shared by every instance, kept as
 * separate records so that a change costs what it touches, not the size of the whole config.
 *
 * Key layout: redis-access-keys.ts; the Lua scripts: lua/, one module per script; the wire form
 * of operations and stream entries: redis-access-wire.ts. A change is one Lua script: it checks every guard before it writes anything, writes only the
 * records it touches, raises the version, appends the change and its audit entry, and publishes.
 * Large whole-config writes are staged in chunks under a private key and swapped in by one
 * script, which appends a "load again" marker instead of a delta. Instances replay the changes
 * they missed (`changesSince`) and load every record (chunked HSCAN) only at start or on a gap.
 * They learn of changes from the channel, from a version check every `pollIntervalMs` (heals a
 * lost message), and from a check as soon as Redis is back. No live key ever expires. Every
 * check and load also compares the records with the manifest the same script wrote with the
 * version: records that vanished (expired, evicted, deleted) while the version stayed are a
 * problem that a load refuses (AccessStoreIntegrityError), a commit refuses, and only a
 * whole-document write mends. A Redis found behind this instance
 * (restarted empty, or a lagging replica promoted) gets this instance's last good copy written
 * back, newest copy winning. The earlier single-document key `{access}:doc` is moved into records
 * once, at start.
 *
 * Reads and writes those keys through the two connections it is given (one is for SUBSCRIBE
 * only) and closes both on `close()`. The data-loss epoch marker is not touched here.
 */
import type { Logger } from '../logging/logger';
import { closeRedisClient, DEFAULT_READY_TIMEOUT_MS, whenReadyRun, type RedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../errors/error-catalogue';
import type { AuditEntryInput, AuditStreamTarget } from './audit-log';
import { withAuditEntry, type AuditedReply } from './redis-access-audit';
import {
  accessKeys,
  backfillKeys,
  COMMIT_KEY_COUNT,
  commitKeys,
  headKeys,
  MANIFEST_KINDS,
  SWAP_KEY_COUNT,
  swapKeys,
  type AccessKeys,
} from './redis-access-keys';
import { BACKFILL_MANIFEST_SCRIPT } from './lua/backfill-manifest';
import { COMMIT_SCRIPT } from './lua/commit';
import { HEAD_SCRIPT } from './lua/head';
import { SWAP_SCRIPT } from './lua/swap';
import { stagedKeys, stageRecords } from './redis-access-staging';
import {
  InvalidAccessDocumentError,
  parseChange,
  parseLegacyDocument,
  parseRecord,
  parseVersion,
  recordKindOf,
  toWire,
  type WireKind,
} from './redis-access-wire';
import { documentToRecords, RECORD_KINDS, RECORDS_FIELD, type AccessRecords, type RecordKind } from './access-state';
import {
  AccessStoreIntegrityError,
  RecordConflictError,
  VersionConflictError,
  type AccessChange,
  type AccessCommit,
  type AccessReplaceAll,
  type AccessStore,
  type ChangesSince,
  type LastGoodCopy,
  type LoadedAccess,
  type StoreIntegrityProblem,
} from './access-store';
import type { AccessDocument } from './model';

/** Redis failing to answer is an outage (503), not a fault of ours (500). */
async function unavailableOnRedisError<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    if (
      err instanceof InvalidAccessDocumentError ||
      err instanceof VersionConflictError ||
      err instanceof RecordConflictError ||
      err instanceof AccessStoreIntegrityError
    ) {
      throw err;
    }
    throw new StoreUnavailableError(err);
  }
}

export { InvalidAccessDocumentError } from './redis-access-wire';

interface RedisAccessStoreOptions {
  /** The connection for the store's commands; give it a command timeout fit for bulk work. */
  readonly client: RedisClient;
  /** A second connection: one that has sent SUBSCRIBE accepts no other command. */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** The declarative file's document, written as version 1 when Redis holds none. */
  readonly seed?: AccessDocument;
  /** The audit stream each change's entry goes to, in the same script. */
  readonly audit?: AuditStreamTarget;
  /** How long changes stay replayable; an instance further behind loads everything again. */
  readonly changeRetentionMs?: number;
  /** How long a staged whole-document write may wait for its swap (a writer that died leaves it). */
  readonly stageTtlMs?: number;
}

const DEFAULT_CHANGE_RETENTION_MS = 3_600_000;
/** Records per HSCAN: small enough that neither Redis nor we stall. */
const BATCH = 1000;
type SwapMode = 'replace' | 'mend' | 'restore' | 'migrate';
/** Whole-document writes leave it to their writer to serve what it wrote (AccessCache.adopt). */
const WRITER_SERVES: Readonly<Record<SwapMode, boolean>> = { replace: true, mend: true, restore: false, migrate: false };

/** Changes per XRANGE when catching up. */
const CHANGE_BATCH = 500;
/** A staged write left behind by a writer that died is removed after this (live records never expire). */
const DEFAULT_STAGE_TTL_MS = 600_000;

type StreamEntries = Array<[string, string[]]>;

/** {1, version, audit id, early trims[, change id]} on success; {status < 1, current version, kind, id} else. */

export class RedisAccessStore implements AccessStore {
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly keys: AccessKeys;
  private readonly audit: AuditStreamTarget | undefined;
  private readonly changeRetentionMs: number;
  private readonly seed: AccessDocument | undefined;
  private readonly stageTtlMs: number;
  /** What the latest check or load found wrong with the records, or null. */
  private problem: StoreIntegrityProblem | null = null;
  private readonly listeners = new Set<() => void>();
  /** The highest version this instance has read or written. */
  private knownVersion = 0;
  private lastGoodCopy: LastGoodCopy = () => null;
  private poller: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;

  constructor(options: RedisAccessStoreOptions) {
    this.client = options.client;
    this.subscriber = options.subscriber;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs;
    this.keys = accessKeys(options.keyPrefix, options.audit?.key);
    this.audit = options.audit;
    this.changeRetentionMs = options.changeRetentionMs ?? DEFAULT_CHANGE_RETENTION_MS;
    this.seed = options.seed;
    this.stageTtlMs = options.stageTtlMs ?? DEFAULT_STAGE_TTL_MS;
    this.client.on('ready', this.onClientReady);
    this.subscriber.on('ready', this.onSubscriberReady);
    this.subscriber.on('message', this.onMessage);
  }

  /**
   * Waits for both connections, subscribes to the change channel, moves the earlier single
   * document in and writes the seed when Redis holds nothing. The store also recovers on its own
   * when Redis only arrives later.
   */
  async init(readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    await whenReadyRun(
      [this.client, this.subscriber],
      readyTimeoutMs,
      async () => {
        await this.subscriber.subscribe(this.keys.channel);
        await this.migrateLegacyDocument();
        await this.backfillManifest();
        const { version } = await this.head();
        if (version === 0 && this.seed) await this.writeSeed(this.seed);
      },
      // A bad document is not tried again.
      (err) => err instanceof InvalidAccessDocumentError,
    );
  }

  integrity(): StoreIntegrityProblem | null {
    return this.problem;
  }

  /** The cache's newest copy: what this instance writes back when Redis is found behind it. */
  serveAsLastGoodCopy(source: LastGoodCopy): void {
    this.lastGoodCopy = source;
  }

  async load(onBatch: (records: Partial<AccessRecords>) => void): Promise<LoadedAccess> {
    return unavailableOnRedisError(
      (async () => {
        const { version, cursor, problem, vouched } = await this.head();
        // The cache that called this load reads the finding itself: no notification needed.
        this.setProblem(problem, version);
        if (problem !== null) throw new AccessStoreIntegrityError(problem);
        for (const kind of RECORD_KINDS) {
          let scan = '0';
          do {
            const [next, flat] = await this.client.hscan(this.keys.records[kind], scan, 'COUNT', BATCH);
            scan = next;
            const values = [];
            for (let i = 1; i < flat.length; i += 2) values.push(parseRecord(kind, flat[i] as string, flat[i - 1] as string, this.keys.records[kind]));
            onBatch({ [RECORDS_FIELD[kind]]: values });
          } while (scan !== '0');
        }
        this.knownVersion = Math.max(this.knownVersion, version);
        return { version, cursor, vouched };
      })(),
    );
  }

  async changesSince(cursor: string, version: number): Promise<ChangesSince> {
    return unavailableOnRedisError(
      (async () => {
        const changes: AccessChange[] = [];
        let next = cursor;
        let expected = version + 1;
        for (;;) {
          const entries = (await this.client.xrange(this.keys.changes, `(${next}`, '+', 'COUNT', CHANGE_BATCH)) as StreamEntries;
          for (const [id, fields] of entries) {
            const change = parseChange(fields, this.keys.changes, (kind: RecordKind) => this.keys.records[kind]);
            next = id;
            if (change.version < expected) continue;
            if (change.version !== expected) return 'gap';
            changes.push(change);
            expected += 1;
          }
          if (entries.length < CHANGE_BATCH) break;
        }
        // Changes trimmed away (an instance long cut off) leave the version ahead of the stream.
        const current = parseVersion(await this.client.get(this.keys.version), this.keys.version);
        if (current > expected - 1 && changes.length === 0) return 'gap';
        this.knownVersion = Math.max(this.knownVersion, expected - 1);
        return { changes, cursor: next };
      })(),
    );
  }

  async commit(change: AccessCommit): Promise<number> {
    const expected = change.expectedVersion === undefined ? '' : String(change.expectedVersion);
    const args = [expected, String(this.knownVersion), this.keys.channel, JSON.stringify(change.ops.map(toWire))];
    const reply = await withAuditEntry(this.audit, change.audit, 4, async ([entry, chain]) => {
      const script = this.client.eval(COMMIT_SCRIPT, COMMIT_KEY_COUNT, ...commitKeys(this.keys), ...args, ...entry, String(this.changeRetentionMs), ...chain);
      return (await unavailableOnRedisError(script)) as AuditedReply;
    });
    return this.written(reply, change.expectedVersion);
  }

  async replaceAll(records: AccessRecords, change: AccessReplaceAll): Promise<LoadedAccess> {
    const reply = await this.swap(
      change.mend ? 'mend' : 'replace',
      records,
      change.expectedVersion === undefined ? '' : String(change.expectedVersion),
      change.audit,
    );
    const version = await this.written(reply, change.expectedVersion);
    return { version, cursor: String(reply[4]) };
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    this.poller ??= setInterval(() => {
      this.check().catch((err: unknown) => this.logger.debug({ err }, 'access config version check failed'));
    }, this.pollIntervalMs).unref();
    return () => {
      this.listeners.delete(onChange);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  async close(): Promise<void> {
    this.stopPolling();
    this.listeners.clear();
    this.client.off('ready', this.onClientReady);
    this.subscriber.off('ready', this.onSubscriberReady);
    this.subscriber.off('message', this.onMessage);
    await Promise.all([closeRedisClient(this.client), closeRedisClient(this.subscriber)]);
  }

  private readonly onClientReady = (): void => {
    // Back after an outage: catch up at once on changes made meanwhile, or heal an empty Redis.
    this.check().catch((err: unknown) => this.logger.warn({ err }, 'access config version check failed'));
  };

  private readonly onSubscriberReady = (): void => {
    // Messages published while the subscriber was away are lost: check the version as well. A
    // command connection not ready yet checks on its own 'ready' (a check now would fail).
    this.subscriber
      .subscribe(this.keys.channel)
      .then(() => (this.client.status === 'ready' ? this.check() : undefined))
      .catch((err: unknown) => this.logger.warn({ err }, 'could not resubscribe to access config changes and check the version'));
  };

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel === this.keys.channel && Number(message) !== this.knownVersion) this.notify();
  };

  /** Compares the version in Redis with the last one seen; overlapping calls share one check. */
  private check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        const { version, problem } = await this.head();
        // A change of finding is news too: the cache re-reads it (readiness, metrics, the alert).
        const problemChanged = this.setProblem(problem, version);
        if (version < this.knownVersion) await this.heal();
        else if (version !== this.knownVersion || problemChanged) this.notify();
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  /**
   * Redis holds an older version than this instance: it restarted empty (it runs without
   * persistence), or failed over to a replica that lagged behind. Every instance writes its last
   * good copy back and the restore keeps the newest, so the fleet heals without an operator and a
   * freshly started instance's seed never wins over the copy the fleet was serving.
   */
  private async heal(): Promise<void> {
    const copy = this.lastGoodCopy();
    if (!copy) return;
    const [written] = await this.swap('restore', copy.records, String(copy.version), null);
    if (written === 1) this.logger.warn({ version: copy.version }, 'Redis had lost the access config; wrote back the last good copy');
    this.notify();
  }

  private async writeSeed(seed: AccessDocument): Promise<void> {
    const [written] = await this.swap('restore', documentToRecords(seed), '1', null);
    if (written === 1) this.logger.info('Redis held no access config; wrote the seed');
  }

  /** A store last written by an earlier release has no manifest for its version: count what it holds now. */
  private async backfillManifest(): Promise<void> {
    const written = await this.client.eval(BACKFILL_MANIFEST_SCRIPT, MANIFEST_KINDS.length + 2, ...backfillKeys(this.keys));
    if (written === 1) this.logger.info('wrote the access config record manifest (counts of each kind at this version)');
  }

  /** Records a check's finding; true when it differs from the one before (listeners are told then). */
  private setProblem(problem: string | null, version = 0): boolean {
    if (problem === (this.problem?.problem ?? null)) return false;
    if (problem !== null) this.logger.error({ problem }, 'the access config in Redis is inconsistent: records are missing while the version stayed');
    else this.logger.info('the access config in Redis is consistent again');
    this.problem = problem === null ? null : { problem, version };
    return true;
  }

  private async migrateLegacyDocument(): Promise<void> {
    const json = await this.client.get(this.keys.legacyDocument);
    if (json === null) return;
    const version = parseVersion(await this.client.get(this.keys.version), this.keys.version);
    const document = parseLegacyDocument(json, version, this.keys.legacyDocument);
    const [written] = await this.swap('migrate', documentToRecords(document), String(version), null);
    if (written === 1) this.logger.info({ version }, 'moved the single-document access config into records');
  }

  /** Stages the records under private keys, then one script swaps them in. */
  private async swap(mode: SwapMode, records: AccessRecords, version: string, audit: AuditEntryInput | null): Promise<AuditedReply> {
    const staged = stagedKeys(this.keys.base);
    try {
      const counts = await unavailableOnRedisError(stageRecords(this.client, staged, records, mode !== 'replace', this.stageTtlMs));
      const reply = await withAuditEntry(
        this.audit,
        audit,
        5,
        async ([entry, chain]) =>
          (await unavailableOnRedisError(
            this.client.eval(
              SWAP_SCRIPT,
              SWAP_KEY_COUNT,
              ...swapKeys(this.keys, staged),
              mode,
              version,
              String(this.knownVersion),
              this.keys.channel,
              ...entry,
              String(this.changeRetentionMs),
              ...MANIFEST_KINDS.map((kind) => String(counts[kind])),
              ...chain,
            ),
          )) as AuditedReply,
      );
      if (reply[0] === -6) {
        throw new StoreUnavailableError(
          new Error(`the staged records (${String(reply[2])}) expired before the swap: the write took longer than redis.accessStageTtlMs; nothing was changed`),
        );
      }
      // A whole-document write leaves it to its writer to serve what it wrote (see AccessCache.adopt).
      if (reply[0] === 1) {
        this.knownVersion = Math.max(this.knownVersion, reply[1]);
        // Every record was written anew: whatever was missing before is not now.
        const mended = this.setProblem(null);
        if (!WRITER_SERVES[mode] || mended) this.notify();
      }
      return reply;
    } finally {
      await this.client.del(...Object.values<string>(staged)).catch(() => undefined);
    }
  }

  /** Turns a script's reply into the new version, or the error it stands for. */
  private async written(reply: AuditedReply, expectedVersion: number | undefined): Promise<number> {
    const [status, version] = reply;
    if (status === 1) {
      this.knownVersion = Math.max(this.knownVersion, version);
      this.notify();
      return version;
    }
    if (status === -1) throw new RecordConflictError('changed', recordKindOf(reply[2] as WireKind), String(reply[3]));
    if (status === -2) throw new RecordConflictError('no_vendor', 'vendor', String(reply[3]));
    if (status === -3) throw new RecordConflictError('duplicate_key_hash', 'key', String(reply[3]));
    if (status === -5) {
      if (this.setProblem(String(reply[2]), version)) this.notify();
      throw new AccessStoreIntegrityError(String(reply[2]));
    }
    // -4: Redis is behind this instance (it lost data): heal first, then the caller retries.
    if (status === -4) await this.check();
    throw new VersionConflictError(expectedVersion ?? version, version);
  }

  /** The version, where its changes start, and whether the records add up to it. */
  private async head(): Promise<{ version: number; cursor: string; problem: string | null; vouched: boolean }> {
    const reply = (await this.client.eval(HEAD_SCRIPT, MANIFEST_KINDS.length + 3, ...headKeys(this.keys))) as [number, string, string, number, string[]];
    const [current, cursor, problem, vouched, expiring] = reply;
    if (expiring.length > 0)
      this.logger.warn({ keys: expiring }, 'live access config keys had an expiry (an earlier release sets one with each whole-document write); removed it');
    return { version: current, cursor, problem: problem === '' ? null : problem, vouched: vouched === 1 };
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }
}
