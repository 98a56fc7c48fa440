/**
 * The hot-path access cache: holds the current AccessSnapshot and swaps in a new one when
 * the store reports a change. Requests read `cache.snapshot` synchronously; no request ever
 * waits on the store.
 *
 * Reads the access store; sets the snapshot, and reports loaded/version/age for health.
 */
import type { Logger } from '../logging/logger';
import { AccessSnapshot } from './snapshot';
import type { AccessStore } from './access-store';

export interface AccessCacheStatus {
  readonly loaded: boolean;
  readonly version: number | null;
  readonly ageSeconds: number | null;
}

export class AccessCache {
  private current: AccessSnapshot | null = null;
  private unsubscribe: (() => void) | null = null;
  private refreshing: Promise<void> | null = null;
  private again: Promise<void> | null = null;
  private readonly snapshotListeners = new Set<(snapshot: AccessSnapshot) => void>();

  constructor(
    private readonly store: AccessStore,
    private readonly logger: Logger,
  ) {}

  /** Loads the first snapshot and follows changes from then on. */
  async start(): Promise<void> {
    await this.refresh();
    this.unsubscribe = this.store.subscribe(() => {
      this.refresh().catch((err: unknown) => this.logger.warn({ err }, 'access config refresh failed; serving the last good copy'));
    });
  }

  /** Calls `listener` with each new snapshot once it serves requests. */
  onSnapshot(listener: (snapshot: AccessSnapshot) => void): void {
    this.snapshotListeners.add(listener);
    if (this.current) listener(this.current);
  }

  get snapshot(): AccessSnapshot | null {
    return this.current;
  }

  status(nowMs = Date.now()): AccessCacheStatus {
    const snapshot = this.current;
    if (!snapshot) return { loaded: false, version: null, ageSeconds: null };
    return { loaded: true, version: snapshot.version, ageSeconds: Math.round((nowMs - snapshot.loadedAtMs) / 1000) };
  }

  /**
   * Reads the store. A call made while a read is running may carry news that read started too
   * early to see, so it schedules one more read after it (never more than one waiting).
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again ??= this.refreshing.catch(() => undefined).then(() => {
        this.again = null;
        return this.refresh();
      });
      return this.again;
    }
    this.refreshing = (async () => {
      try {
        const { version, document } = await this.store.read();
        if (!this.current || version !== this.current.version) {
          this.current = new AccessSnapshot(document, version);
          this.logger.info({ version }, 'access config loaded');
          for (const listener of this.snapshotListeners) listener(this.current);
        }
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.snapshotListeners.clear();
  }
}
