/**
 * Notices that Redis lost its memory. The no-double-post promise of idempotency keys lives in
 * Redis; a Redis restarted empty, failed over to a replica that had not caught up, or evicting
 * keys would let a retried deposit post again. So the first instance to start writes an epoch
 * marker (`<prefix>epoch`: an id and a "hold until" time) and every keyed claim counts up a
 * store sequence beside it (`<prefix>epoch:seq`, INCR in the claim script). Every instance
 * checks both when its connection becomes ready again, every `redis.epochCheckIntervalMs`, and
 * at each keyed claim (the claim script compares the marker with `currentId()` and the sequence
 * with `highestSeq()`, and on a mismatch calls `lossSeen`, so a wipe on a live connection is
 * caught before a retry posts; when the check that follows cannot write to Redis, this instance
 * holds at once and tries again every quarter second). A marker gone or with another id means
 * the data went with it; a sequence lower than this instance has seen means Redis came back from a stale copy (an RDB
 * snapshot, AOF that lost its last second, a failover to a lagging replica) whose marker is the
 * same while its newest records are gone. Either way the instance starts a hold of
 * `redis.dataLossHoldSeconds`, written in the marker (so instances that start or check later
 * hold too); for a stale copy it also gives the marker a new id (plain SET: the marker is there,
 * the data behind it is old), so every other instance finds it replaced at its next claim or
 * check. The shared sequence alone misses a stale copy once other instances have counted it
 * past what this one had seen, so each claim also writes this instance's own high-water key
 * (`<prefix>epoch:seq:<instanceId>`, the new sequence, with a TTL longer than a record lives),
 * which nobody else raises: that key gone or lower than this instance wrote is a stale copy too
 * (unless this instance's last claim is older than a record lives: then nothing it wrote is
 * still protected). Keys Redis evicted (INFO `evicted_keys`, see eviction-policy.ts) are a loss
 * like a stale copy; a new `run_id` (Redis restarted behind a proxy) is logged, and the same
 * full comparison runs. While the hold lasts the idempotency step answers keyed money movement 503
 * `store_unavailable` instead of risking a repeat; reads go on. On a Cluster, where the claim
 * cannot read the marker, only the poll sees a loss. Each check also reads `maxmemory-policy`
 * (see eviction-policy.ts).
 *
 * Reads and writes two Redis keys; reports `held` and changes to the caller (metrics, log).
 * What it cannot notice: a wipe while every instance was stopped (the next start sees no
 * marker and takes it for a first start), and a stale copy of records that no instance had
 * seen counted (see docs/operations.md, Running with Redis).
 */
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Logger } from '../logging/logger';
import { EvictionPolicyWatch } from './eviction-policy';
import { DEFAULT_READY_TIMEOUT_MS, whenReadyRun, type RedisClient } from './redis-client';

interface EpochMarker {
  readonly id: string;
  /** Epoch ms until which keyed money movement is held; 0 when none. */
  readonly holdUntil: number;
}

interface StoreEpochOptions {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly holdMs: number;
  readonly checkIntervalMs: number;
  /** How long an idempotency record this instance writes can live (in-flight timeout + retention). */
  readonly recordLifeMs: number;
  readonly logger: Logger;
  /** Told when the hold starts or ends. */
  readonly onHoldChange?: (held: boolean) => void;
  /** Told each time a loss is detected by this instance. */
  readonly onLossDetected?: () => void;
  /** Told when the evicting `maxmemory-policy` in force changes (null: none). */
  readonly onEvictingPolicyChange?: (policy: string | null) => void;
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

/** The stored sequence; none yet (a first start, or only instances older than the sequence) is 0. */
function parseSeq(text: string | null | undefined): number {
  const value = Number(text ?? 0);
  return Number.isSafeInteger(value) ? value : 0;
}

/** The own key outlives a record by this much, so a claim's latency cannot make it expire first. */
const OWN_KEY_MARGIN_MS = 300_000;
/** How soon a loss a claim found is written again when writing it failed (Redis busy or gone for a moment). */
const UNPUBLISHED_LOSS_RETRY_MS = 250;

export class StoreEpoch {
  private knownId: string | null = null;
  /** The highest store sequence seen under `knownId` (claims and checks): a lower one means a stale copy. */
  private highest = 0;
  private holdUntil = 0;
  /** The sequence this instance's last claim wrote to its own key (0: none to protect), and when. */
  private ownSeq = 0;
  private ownSeqAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /**
   * A claim found a loss that is not yet written to the marker (the check failed): this instance
   * holds meanwhile, and the next check, soon, takes the claim's word again; until then the other
   * instances know nothing and would post a lost record's retry.
   */
  private lossUnpublished = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private wasHeld = false;
  readonly key: string;
  /** The store sequence, beside the marker (same hash tag-free prefix, so the same server). */
  readonly seqKey: string;
  /** This instance's own high-water key (a new id per start; old ones expire). */
  readonly ownSeqKey: string;
  /** The own key's TTL: longer than a record lives, so it outlives everything this instance wrote. */
  readonly ownSeqTtlMs: number;
  private readonly eviction: EvictionPolicyWatch;
  /** The check under way, so that a claim's report and the poll do not both write a new marker. */
  private checking: Promise<void> | null = null;
  private readonly onReady = (): void => void this.check();

  constructor(private readonly options: StoreEpochOptions) {
    this.key = `${options.keyPrefix}epoch`;
    this.seqKey = `${this.key}:seq`;
    this.ownSeqKey = `${this.seqKey}:${randomUUID()}`;
    this.ownSeqTtlMs = options.recordLifeMs + OWN_KEY_MARGIN_MS;
    this.eviction = new EvictionPolicyWatch({
      client: options.client,
      logger: options.logger,
      ...(options.onEvictingPolicyChange ? { onChange: options.onEvictingPolicyChange } : {}),
    });
  }

  /** Whether keyed money movement must wait (the store lost data within the hold). */
  get held(): boolean {
    return Date.now() < this.holdUntil;
  }

  /** The evicting `maxmemory-policy` in force (keyed money movement waits meanwhile); null when none or unknown. */
  get evictingPolicy(): string | null {
    return this.eviction.evicting;
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
    const [marker, seq] = await whenReadyRun([client], readyTimeoutMs, async () => {
      // NX: of instances starting together, one marker wins and all adopt it.
      await client.set(this.key, JSON.stringify(fresh), 'NX');
      const [text, seqText] = await this.readMarkerAndSeq();
      return [parseMarker(text ?? null) ?? fresh, parseSeq(seqText)] as const;
    });
    this.knownId = marker.id;
    this.highest = seq;
    this.holdUntil = marker.holdUntil;
    await this.eviction.check();
    // The baseline of evicted_keys and run_id; Redis gone again already: the first check takes it.
    await this.eviction.serverChanges().catch(() => undefined);
    this.report();
    client.on('ready', this.onReady);
    this.timer = setInterval(this.onReady, this.options.checkIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.options.client.off('ready', this.onReady);
  }

  /** The marker id this instance adopted; null before start. */
  currentId(): string | null {
    return this.knownId;
  }

  /** The highest store sequence this instance has seen under the current marker. */
  highestSeq(): number {
    return this.highest;
  }

  /**
   * The value this instance's own key must at least have: what its last claim wrote, or 0 once
   * that claim is older than a record lives (the key may have expired; nothing left to protect).
   */
  ownSeqExpected(): number {
    return Date.now() - this.ownSeqAt < this.options.recordLifeMs ? this.ownSeq : 0;
  }

  /** A claim under marker `epochId` counted the sequence up to `seq` (and wrote it to this instance's own key). */
  seqSeen(epochId: string, seq: number): void {
    // A reply from before this instance adopted another marker says nothing about the new one.
    if (epochId !== this.knownId) return;
    this.highest = Math.max(this.highest, seq);
    this.ownSeq = Math.max(this.ownSeq, seq);
    this.ownSeqAt = Date.now();
  }

  /**
   * A claim found the marker `epochId` gone or replaced, or the sequence behind it lower than
   * this instance had seen: checks now (after any check under way), so the hold starts on this
   * instance before the claim's 503 is sent. The claim's word is taken for a stale copy even if
   * other instances have counted the sequence up again meanwhile.
   */
  async lossSeen(epochId: string): Promise<void> {
    if (this.checking) await this.checking;
    if (this.knownId === epochId) await this.check(true);
  }

  /**
   * The marker and the sequence in one read. On a Cluster they live in different slots and the
   * claim does not count the sequence there (the poll alone watches the marker), so the marker alone.
   */
  private async readMarkerAndSeq(): Promise<[string | null, string | null, string | null]> {
    const { client } = this.options;
    if (client instanceof Cluster) return [await client.get(this.key), null, null];
    const [text, seqText, ownText] = await client.mget(this.key, this.seqKey, this.ownSeqKey);
    return [text ?? null, seqText ?? null, ownText ?? null];
  }

  /** Compares the marker and sequence with what this instance knows; a Redis error just waits for the next check. */
  check(claimFoundLoss = false): Promise<void> {
    this.checking ??= this.compare(claimFoundLoss).finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async compare(claimSaysLoss: boolean): Promise<void> {
    if (this.knownId === null) return;
    const { client, logger } = this.options;
    const claimFoundLoss = claimSaysLoss || this.lossUnpublished;
    try {
      // Taken before the read: a claim answered meanwhile raises them, but its writes may not be in what was read.
      const highest = this.highest;
      const ownExpected = this.ownSeqExpected();
      const { evictedKeys, restarted } = await this.eviction.serverChanges();
      if (restarted) logger.warn('Redis restarted (its run_id changed) without the connection dropping: comparing the epoch marker and store sequences');
      const [text, seqText, ownText] = await this.readMarkerAndSeq();
      const marker = parseMarker(text ?? null);
      const seq = parseSeq(seqText);
      // The Cluster reads no own key (the claim writes none there).
      const ownLower = !(client instanceof Cluster) && parseSeq(ownText) < ownExpected;
      const stale = marker !== null && marker.id === this.knownId && (claimFoundLoss || seq < highest || ownLower || evictedKeys > 0);
      if (marker !== null && marker.id === this.knownId && !stale) {
        // Another instance may have detected a loss and set a hold on this same marker.
        this.holdUntil = Math.max(this.holdUntil, marker.holdUntil);
        this.highest = Math.max(this.highest, seq);
      } else {
        const holdUntil = Math.max(Date.now() + this.options.holdMs, marker?.holdUntil ?? 0);
        // A stale copy keeps the marker: a new id, so that every other instance finds it replaced.
        let next: EpochMarker = { id: stale ? randomUUID() : (marker?.id ?? randomUUID()), holdUntil };
        // A marker gone: NX, so that of instances finding it gone together (a claim each), one new id wins and all adopt it.
        const written = marker === null ? await client.set(this.key, JSON.stringify(next), 'NX') : await client.set(this.key, JSON.stringify(next));
        const winner = written === null ? parseMarker(await client.get(this.key)) : null;
        if (winner !== null) {
          next = { id: winner.id, holdUntil: Math.max(holdUntil, winner.holdUntil) };
          await client.set(this.key, JSON.stringify(next));
        }
        this.knownId = next.id;
        // The sequence goes on from where the store has it; under the new id only higher counts.
        this.highest = seq;
        this.ownSeq = 0;
        this.holdUntil = next.holdUntil;
        const retried = this.lossUnpublished;
        this.lossUnpublished = false;
        if (!retried) this.options.onLossDetected?.();
        logger.error(
          { holdSeconds: this.holdSeconds(), markerFound: marker !== null, staleCopy: stale, ownSeqLower: ownLower, evictedKeys },
          'Redis lost its data (the epoch marker is gone or new, a store sequence went back, or keys were evicted): keyed money movement answers 503 until the hold ends, so that no retry posts twice',
        );
      }
      await this.eviction.check();
    } catch (err) {
      if (claimFoundLoss) this.holdUnpublished();
      logger.debug({ err }, 'epoch check skipped: Redis unavailable');
    }
    this.report();
  }

  /** Holds here at once and writes the loss at the next check, in a moment. */
  private holdUnpublished(): void {
    if (!this.lossUnpublished) {
      this.lossUnpublished = true;
      this.holdUntil = Math.max(this.holdUntil, Date.now() + this.options.holdMs);
      this.options.onLossDetected?.();
      this.options.logger.error(
        { holdSeconds: this.holdSeconds() },
        'an idempotency claim found Redis lost its data, and the epoch marker could not be replaced yet: this instance holds keyed money movement and tries again',
      );
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.check();
    }, UNPUBLISHED_LOSS_RETRY_MS);
    this.retryTimer.unref();
  }

  private report(): void {
    const held = this.held;
    if (held === this.wasHeld) return;
    this.wasHeld = held;
    this.options.onHoldChange?.(held);
    if (!held) this.options.logger.warn('the hold after a Redis data loss has ended: keyed money movement is accepted again');
  }
}
