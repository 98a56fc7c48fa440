/**
 * Notices that Redis lost its memory. The no-double-post promise of idempotency keys lives in
 * Redis; a Redis restarted empty, failed over to a replica that had not caught up, or evicting
 * keys would let a retried deposit post again. So the first instance to start writes an epoch
 * marker (`<prefix>epoch`: an id and a "hold until" time); every instance checks it when its
 * connection becomes ready again, every `redis.epochCheckIntervalMs`, and at each keyed claim
 * (the idempotency claim script compares the marker with `currentId()` and, finding it gone or
 * replaced, calls `lossSeen`, so a wipe on a live connection is caught before a retry posts).
 * A marker that is gone or has another id means the data went with it: the instance writes a
 * new marker carrying a hold of `redis.dataLossHoldSeconds` (so instances that start or check
 * later hold too; on a Cluster, where the claim cannot read the marker, only the poll sees a
 * loss), and while the hold lasts the idempotency step answers keyed money movement 503
 * `store_unavailable` instead of risking a repeat; reads go on.
 *
 * Reads and writes one Redis key; reports `held` and changes to the caller (metrics, log).
 * What it cannot notice: a wipe while every instance was stopped (the next start sees no
 * marker and takes it for a first start).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/logger';
import { DEFAULT_READY_TIMEOUT_MS, whenReadyRun, type RedisClient } from './redis-client';

interface EpochMarker {
  readonly id: string;
  /** Epoch ms until which keyed money movement is held; 0 when none. */
  readonly holdUntil: number;
}

export interface StoreEpochOptions {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly holdMs: number;
  readonly checkIntervalMs: number;
  readonly logger: Logger;
  /** Told when the hold starts or ends. */
  readonly onHoldChange?: (held: boolean) => void;
  /** Told each time a loss is detected by this instance. */
  readonly onLossDetected?: () => void;
}

function parseMarker(text: string | null): EpochMarker | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<EpochMarker>;
    return typeof value.id === 'string' && typeof value.holdUntil === 'number' ? { id: value.id, holdUntil: value.holdUntil } : null;
  } catch {
    return null;
  }
}

export class StoreEpoch {
  private knownId: string | null = null;
  private holdUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private wasHeld = false;
  readonly key: string;
  /** The check under way, so that a claim's report and the poll do not both write a new marker. */
  private checking: Promise<void> | null = null;
  private readonly onReady = (): void => void this.check();

  constructor(private readonly options: StoreEpochOptions) {
    this.key = `${options.keyPrefix}epoch`;
  }

  /** Whether keyed money movement must wait (the store lost data within the hold). */
  get held(): boolean {
    return Date.now() < this.holdUntil;
  }

  /** Seconds the hold still lasts; 0 when there is none. */
  holdSeconds(): number {
    return Math.max(0, Math.ceil((this.holdUntil - Date.now()) / 1000));
  }

  /**
   * Reads or writes the marker, once the connection is ready (waiting up to `readyTimeoutMs`, as
   * the access store does); then checks on every reconnect and on an interval.
   */
  async start(readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    const { client } = this.options;
    const fresh: EpochMarker = { id: randomUUID(), holdUntil: 0 };
    const marker = await whenReadyRun([client], readyTimeoutMs, async () => {
      // NX: of instances starting together, one marker wins and all adopt it.
      await client.set(this.key, JSON.stringify(fresh), 'NX');
      return parseMarker(await client.get(this.key)) ?? fresh;
    });
    this.knownId = marker.id;
    this.holdUntil = marker.holdUntil;
    this.report();
    client.on('ready', this.onReady);
    this.timer = setInterval(this.onReady, this.options.checkIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.options.client.off('ready', this.onReady);
  }

  /** The marker id this instance adopted; null before start. */
  currentId(): string | null {
    return this.knownId;
  }

  /**
   * A claim found the marker `epochId` gone or replaced: checks now (after any check under way),
   * so the hold starts on this instance before the claim's 503 is sent.
   */
  async lossSeen(epochId: string): Promise<void> {
    if (this.checking) await this.checking;
    if (this.knownId === epochId) await this.check();
  }

  /** Compares the marker with the one this instance knows; a Redis error just waits for the next check. */
  check(): Promise<void> {
    this.checking ??= this.compare().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async compare(): Promise<void> {
    if (this.knownId === null) return;
    const { client, logger } = this.options;
    try {
      const marker = parseMarker(await client.get(this.key));
      if (marker !== null && marker.id === this.knownId) {
        // Another instance may have detected a loss and set a hold on this same marker.
        this.holdUntil = Math.max(this.holdUntil, marker.holdUntil);
      } else {
        const holdUntil = Math.max(Date.now() + this.options.holdMs, marker?.holdUntil ?? 0);
        let next: EpochMarker = { id: marker?.id ?? randomUUID(), holdUntil };
        // A marker gone: NX, so that of instances finding it gone together (a claim each), one new id wins and all adopt it.
        const written = marker === null ? await client.set(this.key, JSON.stringify(next), 'NX') : await client.set(this.key, JSON.stringify(next));
        const winner = written === null ? parseMarker(await client.get(this.key)) : null;
        if (winner !== null) {
          next = { id: winner.id, holdUntil: Math.max(holdUntil, winner.holdUntil) };
          await client.set(this.key, JSON.stringify(next));
        }
        this.knownId = next.id;
        this.holdUntil = next.holdUntil;
        this.options.onLossDetected?.();
        logger.error(
          { holdSeconds: this.holdSeconds(), markerFound: marker !== null },
          'Redis lost its data (the epoch marker is gone or new): keyed money movement answers 503 until the hold ends, so that no retry posts twice',
        );
      }
    } catch (err) {
      logger.debug({ err }, 'epoch check skipped: Redis unavailable');
    }
    this.report();
  }

  private report(): void {
    const held = this.held;
    if (held === this.wasHeld) return;
    this.wasHeld = held;
    this.options.onHoldChange?.(held);
    if (!held) this.options.logger.warn('the hold after a Redis data loss has ended: keyed money movement is accepted again');
  }
}

/** Evicting policies drop keys under memory pressure: idempotency records and the epoch marker with them. */
export async function warnOnEvictingPolicy(client: RedisClient, logger: Logger): Promise<void> {
  try {
    const reply = (await client.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    const policy = reply[1];
    if (policy !== undefined && policy !== 'noeviction') {
      logger.warn({ maxmemoryPolicy: policy }, 'Redis maxmemory-policy evicts keys under memory pressure; idempotency needs noeviction (see README, Running with Redis)');
    }
  } catch {
    // Managed Redis often refuses CONFIG: nothing to learn, nothing to warn about.
  }
}
