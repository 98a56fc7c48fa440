/**
 * The hot-path access cache: holds the live AccessIndex and keeps it in step with the store.
 * Requests read `cache.index` synchronously; no request ever waits on the store.
 *
 * Reads the access store: at start, and whenever it finds a gap it cannot fill, every record
 * (in batches, into a new index swapped in whole once complete); otherwise only the changes it
 * missed, each applied in one synchronous step, so a request sees the config before a change or
 * after it, never half of it. A change too large to replay (a whole-document write) is loaded the
 * same way as a gap. Sets the index, and reports loaded/version/age for health.
 *
 * A load is never taken on trust: a store whose records do not add up to its version (see
 * AccessStoreIntegrityError), or, where the store cannot vouch for its records, a load that has
 * lost most of the keys or vendors held before without a whole-document write, is refused. The
 * instance keeps serving the copy it holds (none at start: it then stays not ready), reports the
 * problem, and tries again on the store's next change or check.
 */
import type { Logger } from '../logging/logger';
import { AccessIndex } from './access-index';
import { AccessStoreIntegrityError, type AccessStore, type LoadedAccess } from './access-store';
import type { AccessRecords } from './access-state';

export interface AccessCacheStatus {
  readonly loaded: boolean;
  readonly version: number | null;
  readonly ageSeconds: number | null;
  /** Why the store's config is not being served as it stands, or null (see the module header). */
  readonly problem: string | null;
}

/** The served index's record counts, for `gateway_access_config_records{kind}`. */
interface AccessRecordCounts {
  readonly vendor: number;
  readonly key: number;
  readonly user: number;
}

/**
 * A load that keeps less than this share of the keys or vendors served before, unvouched and
 * without a whole-document write, is taken for lost records rather than a change.
 */
const SHRINK_LIMIT = 0.5;

/** Past this many operations in a catch-up, loading everything again is the cheaper road. */
const REPLAY_LIMIT = 5000;

export class AccessCache {
  private current: AccessIndex | null = null;
  private cursor = '';
  private unsubscribe: (() => void) | null = null;
  private syncing: Promise<void> | null = null;
  private again: Promise<void> | null = null;
  /** Set while this instance writes the whole config (see writeWhole). */
  private holding: Promise<void> | null = null;
  private readonly versionListeners = new Set<(version: number) => void>();
  private readonly problemListeners = new Set<(problem: string | null) => void>();
  /** Why this cache refused a load that the store could not vouch for (it shrank), or null. */
  private ownProblem: string | null = null;
  /** The last problem announced, so listeners hear each change once. */
  private announcedProblem: string | null = null;
  /** Set when the latest catch-up stopped at a whole-document write: a shrink then is intended. */
  private wholeWriteSeen = false;

  constructor(
    private readonly store: AccessStore,
    private readonly logger: Logger,
  ) {
    store.serveAsLastGoodCopy?.(() => (this.current ? { version: this.current.version, records: this.current.records() } : null));
  }

  /**
   * Loads the config and follows changes from then on. A store found inconsistent does not stop
   * the start: the instance reports not ready, and loads as soon as the store is mended.
   */
  async start(): Promise<void> {
    try {
      await this.sync();
    } catch (err) {
      if (!(err instanceof AccessStoreIntegrityError)) throw err;
    }
    this.unsubscribe = this.store.subscribe(() => {
      this.sync().catch((err: unknown) => {
        if (!(err instanceof AccessStoreIntegrityError)) this.logger.warn({ err }, 'access config refresh failed; serving the last good copy');
      });
    });
  }

  /** Calls `listener` with each new problem (a string) and when it ends (null). */
  onProblem(listener: (problem: string | null) => void): void {
    this.problemListeners.add(listener);
  }

  /** Why the store's config is not served as it stands, or null. */
  get problem(): string | null {
    return this.ownProblem ?? this.store.integrity?.()?.problem ?? null;
  }

  /** The store's version while it is found inconsistent, else null. */
  get inconsistentStoreVersion(): number | null {
    return this.store.integrity?.()?.version ?? null;
  }

  /** The served index's record counts (zero while none is loaded). */
  recordCounts(): AccessRecordCounts {
    const index = this.current;
    return { vendor: index?.vendorCount ?? 0, key: index?.keyCount ?? 0, user: index?.userCount ?? 0 };
  }

  /** Calls `listener` with each new version once it serves requests. */
  onVersion(listener: (version: number) => void): void {
    this.versionListeners.add(listener);
    if (this.current) listener(this.current.version);
  }

  get index(): AccessIndex | null {
    return this.current;
  }

  status(nowMs = Date.now()): AccessCacheStatus {
    const index = this.current;
    const problem = this.problem;
    if (!index) return { loaded: false, version: null, ageSeconds: null, problem };
    return { loaded: true, version: index.version, ageSeconds: Math.round((nowMs - index.changedAtMs) / 1000), problem };
  }

  /**
   * Brings the index up to the store's version. A call made while a sync (or a whole write) is
   * running may carry news that it started too early to see, so it schedules one more after it
   * (never more than one waiting).
   */
  sync(): Promise<void> {
    const busy = this.syncing ?? this.holding;
    if (busy) {
      this.again ??= busy
        .catch(() => undefined)
        .then(() => {
          this.again = null;
          return this.sync();
        });
      return this.again;
    }
    this.syncing = (async () => {
      try {
        if (!this.current || !(await this.catchUp(this.current))) await this.reload();
      } catch (err) {
        // The store's own finding stands instead of this cache's.
        if (err instanceof AccessStoreIntegrityError) this.ownProblem = null;
        throw err;
      } finally {
        this.wholeWriteSeen = false;
        this.syncing = null;
        this.announceProblem();
      }
    })();
    return this.syncing;
  }

  /**
   * Runs `write`, a whole-document write by this instance, and serves the records it wrote: they
   * are the config at the version it answers, so there is nothing to load back from the store.
   * Syncs asked for meanwhile (this write's own change message among them) wait until the records
   * are served, then replay only what came after: without that wait the message could make this
   * instance load the whole config again beside the copy it holds, twice the memory at the worst
   * moment.
   */
  async writeWhole(records: AccessRecords, write: () => Promise<LoadedAccess>): Promise<LoadedAccess> {
    let release = (): void => undefined;
    this.holding = new Promise<void>((resolve) => (release = resolve));
    try {
      const loaded = await write();
      this.adopt(records, loaded);
      return loaded;
    } finally {
      this.holding = null;
      release();
    }
  }

  private adopt(records: AccessRecords, loaded: LoadedAccess): void {
    // What this instance wrote whole is the config: a refusal of an earlier load no longer holds.
    this.ownProblem = null;
    this.announceProblem();
    if (this.current && this.current.version >= loaded.version) return;
    this.current = AccessIndex.fromRecords(records, loaded.version);
    this.cursor = loaded.cursor;
    this.logger.info(
      { version: loaded.version, keys: this.current.keyCount, vendors: this.current.vendorCount },
      'access config written whole by this instance',
    );
    this.announce(this.current);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.versionListeners.clear();
    this.problemListeners.clear();
  }

  /** Replays the changes after the cursor; false when only a full load can bring it up to date. */
  private async catchUp(index: AccessIndex, cursor = this.cursor): Promise<boolean> {
    const found = await this.store.changesSince(cursor, index.version);
    if (found === 'gap') return false;
    const { changes } = found;
    if (changes.length === 0) return true;
    let operations = 0;
    for (const change of changes) {
      if (change.ops === null) {
        this.wholeWriteSeen = true;
        return false;
      }
      operations += change.ops.length;
    }
    if (operations > REPLAY_LIMIT) return false;
    // One synchronous step: no request runs between the first operation and the last.
    for (const change of changes) index.apply(change.ops ?? [], change.version);
    this.cursor = found.cursor;
    if (index === this.current) this.announce(index);
    return true;
  }

  /** Loads every record into a new index, catches it up, then swaps it in. */
  private async reload(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      // Batches arrive between the store's reads, so the event loop runs between them.
      const fresh = new AccessIndex(0);
      const loaded = await this.store.load((batch) => fresh.putRecords(batch));
      fresh.setVersion(loaded.version);
      const previousCursor = this.cursor;
      this.cursor = loaded.cursor;
      if (await this.catchUp(fresh, loaded.cursor)) {
        const shrank = this.shrankUnvouched(fresh, loaded);
        if (shrank) {
          this.cursor = previousCursor;
          this.ownProblem = shrank;
          this.logger.error({ problem: shrank, serving: this.current?.version }, 'access config load refused; serving the copy held before');
          return;
        }
        this.ownProblem = null;
        this.current = fresh;
        this.logger.info({ version: fresh.version, keys: fresh.keyCount, vendors: fresh.vendorCount, ms: Date.now() - started }, 'access config loaded');
        this.announce(fresh);
        return;
      }
      // A whole-document write landed while loading: load again (a few times at most).
      this.cursor = previousCursor;
      if (attempt >= 3) throw new Error('the access config kept changing wholesale while loading; will retry on the next change');
    }
  }

  /**
   * Why a load that the store could not vouch for is not taken: it lost every key or vendor, or
   * more than half of them, against the copy served before, with no whole-document write between.
   */
  private shrankUnvouched(fresh: AccessIndex, loaded: LoadedAccess): string | null {
    const before = this.current;
    if (!before || loaded.vouched !== false || this.wholeWriteSeen) return null;
    const lost = (now: number, was: number): boolean => was > 0 && (now === 0 || now < was * SHRINK_LIMIT);
    if (!lost(fresh.keyCount, before.keyCount) && !lost(fresh.vendorCount, before.vendorCount)) return null;
    return (
      `version ${fresh.version} holds ${fresh.keyCount} keys and ${fresh.vendorCount} vendors where version ${before.version} held ` +
      `${before.keyCount} and ${before.vendorCount}, with no whole-document write between: taken for lost records`
    );
  }

  private announceProblem(): void {
    const problem = this.problem;
    if (problem === this.announcedProblem) return;
    this.announcedProblem = problem;
    for (const listener of this.problemListeners) listener(problem);
  }

  private announce(index: AccessIndex): void {
    for (const listener of this.versionListeners) listener(index.version);
  }
}
