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
 * Reads one CONFIG value; reports the evicting policy (null: none) to the caller.
 */
import type { Logger } from '../logging/logger';
import type { RedisClient } from './redis-client';

export interface EvictionPolicyOptions {
  readonly client: RedisClient;
  readonly logger: Logger;
  /** Told when the evicting policy in force changes (null: `noeviction` again). */
  readonly onChange?: (policy: string | null) => void;
}

export class EvictionPolicyWatch {
  private policy: string | null = null;
  private refusalLogged = false;

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
          'Redis refuses CONFIG GET maxmemory-policy: the gateway cannot see whether Redis evicts idempotency records; make sure it is noeviction (see README, Running with Redis)',
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
        'Redis maxmemory-policy evicts keys under memory pressure (idempotency records with them): keyed money movement answers 503 until it is noeviction (see README, Running with Redis)',
      );
    } else {
      logger.warn('Redis maxmemory-policy is noeviction again: keyed money movement is accepted again');
    }
    this.options.onChange?.(policy);
  }
}
