/**
 * Watches Redis's `maxmemory-policy`. Under any policy but `noeviction` Redis drops keys under
 * memory pressure, and under a `volatile-*` policy it drops exactly the idempotency records
 * (they carry a TTL) and never the epoch marker (it has none), so no epoch check can notice the
 * loss and a retried deposit would post again. So while the policy evicts, keyed money movement
 * is held: the idempotency step answers 503 `store_unavailable` naming the policy, and the
 * change is logged at error once. Read at start and at every epoch check (store-epoch.ts).
 * Where CONFIG is refused (managed Redis often renames or forbids it) the policy cannot be
 * known: a warning once, and no hold (the operator must make sure of `noeviction`).
 *
 * The policy alone misses evictions while it was evicting for a moment (set and set back between
 * two checks, or seen evicting and then `noeviction` again: the records are gone, the marker
 * stays). So each check also reads `INFO` `evicted_keys`: any increase under the same `run_id`
 * means keys went (which ones cannot be known), and the caller treats it as a data loss. The
 * counter starts at 0 on a restart and on CONFIG RESETSTAT: a new `run_id` or a lower count is
 * a new baseline. Where INFO is refused, a warning once. Not on a Cluster (one INFO per node).
 *
 * Reads one CONFIG value and INFO; reports the evicting policy (null: none) to the caller.
 */
import { Cluster } from 'ioredis';
import type { Logger } from '../logging/logger';
import type { RedisClient } from './redis-client';

/** What INFO told since the last reading. */
interface ServerChanges {
  /** Keys Redis evicted since the last reading (0 when unknown or after a new baseline). */
  readonly evictedKeys: number;
  /** Redis's `run_id` changed: it restarted (perhaps behind a proxy that kept the connection). */
  readonly restarted: boolean;
}

interface EvictionPolicyOptions {
  readonly client: RedisClient;
  readonly logger: Logger;
  /** Told when the evicting policy in force changes (null: `noeviction` again). */
  readonly onChange?: (policy: string | null) => void;
}

export class EvictionPolicyWatch {
  private policy: string | null = null;
  private refusalLogged = false;
  private infoRefusalLogged = false;
  private runId: string | null = null;
  private evictedKeys = 0;

  constructor(private readonly options: EvictionPolicyOptions) {}

  /** The evicting `maxmemory-policy` in force; null when it is `noeviction` or cannot be read. */
  get evicting(): string | null {
    return this.policy;
  }

  /** Reads the policy; a Redis that is down keeps the last one known until the next check. */
  async check(): Promise<void> {
    const { client, logger } = this.options;
    let reply: unknown;
    try {
      reply = await client.call('CONFIG', 'GET', 'maxmemory-policy');
    } catch (err) {
      // A reply error is a refusal (unknown command, NOPERM); anything else is Redis being away.
      if ((err as Error).name === 'ReplyError' && !this.refusalLogged) {
        this.refusalLogged = true;
        logger.warn(
          { err },
          'Redis refuses CONFIG GET maxmemory-policy: the gateway cannot see whether Redis evicts idempotency records; make sure it is noeviction (see docs/operations.md, Running with Redis)',
        );
      }
      return;
    }
    const value = Array.isArray(reply) ? reply[1] : undefined;
    const policy = typeof value === 'string' && value !== 'noeviction' ? value : null;
    if (policy === this.policy) return;
    this.policy = policy;
    if (policy !== null) {
      logger.error(
        { maxmemoryPolicy: policy },
        'Redis maxmemory-policy evicts keys under memory pressure (idempotency records with them): keyed money movement answers 503 until it is noeviction (see docs/operations.md, Running with Redis)',
      );
    } else {
      logger.warn('Redis maxmemory-policy is noeviction again: keyed money movement is accepted again');
    }
    this.options.onChange?.(policy);
  }

  /**
   * Reads `run_id` and `evicted_keys`. The first reading, a new `run_id` and a lower count are
   * baselines (no evictions). Redis away: throws (the caller's check waits for the next one).
   */
  async serverChanges(): Promise<ServerChanges> {
    const { client, logger } = this.options;
    if (client instanceof Cluster) return { evictedKeys: 0, restarted: false };
    let info: string;
    try {
      info = await client.info();
    } catch (err) {
      if ((err as Error).name !== 'ReplyError') throw err;
      if (!this.infoRefusalLogged) {
        this.infoRefusalLogged = true;
        logger.warn(
          { err },
          'Redis refuses INFO: the gateway cannot see whether Redis evicted idempotency records or restarted behind a proxy; make sure it is noeviction (see docs/operations.md, Running with Redis)',
        );
      }
      return { evictedKeys: 0, restarted: false };
    }
    const runId = /^run_id:(\w+)/m.exec(info)?.[1] ?? null;
    const evicted = Number(/^evicted_keys:(\d+)/m.exec(info)?.[1] ?? NaN);
    if (runId === null || !Number.isSafeInteger(evicted)) return { evictedKeys: 0, restarted: false };
    const restarted = this.runId !== null && runId !== this.runId;
    const evictedKeys = this.runId === runId && evicted > this.evictedKeys ? evicted - this.evictedKeys : 0;
    this.runId = runId;
    this.evictedKeys = evicted;
    return { evictedKeys, restarted };
  }
}
