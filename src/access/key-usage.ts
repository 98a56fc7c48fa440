/**
 * When each API key was last used (the access model's `lastUsedAt`), so admins can find keys
 * that nobody uses any more before they revoke them.
 *
 * The hot path only sets a number in a map; a timer writes the batch to the usage store every
 * few seconds (Redis: one hash shared by all instances, keeping the latest time per key), so
 * a request never waits on it and the access document's version never moves for it.
 * When a write removes keys from the access document (a vendor deleted, a document replaced),
 * their times are removed too, so the store holds only keys that exist.
 * Reads: the authenticated key ids; sets: the usage store.
 */
import type { RedisClient } from '../redis/redis-client';
import type { Logger } from '../logging/logger';

export interface KeyUsageStore {
  /** Records each key's last use (ms since the epoch), keeping the later of stored and given. */
  save(lastUsedMs: ReadonlyMap<string, number>): Promise<void>;
  load(keyIds: readonly string[]): Promise<Map<string, number>>;
  /** Removes the times of keys that no longer exist. */
  forget(keyIds: readonly string[]): Promise<void>;
}

export class MemoryKeyUsageStore implements KeyUsageStore {
  private readonly lastUsed = new Map<string, number>();

  async save(lastUsedMs: ReadonlyMap<string, number>): Promise<void> {
    for (const [keyId, ms] of lastUsedMs) this.lastUsed.set(keyId, Math.max(ms, this.lastUsed.get(keyId) ?? 0));
  }

  async load(keyIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const id of keyIds) {
      const ms = this.lastUsed.get(id);
      if (ms !== undefined) out.set(id, ms);
    }
    return out;
  }

  async forget(keyIds: readonly string[]): Promise<void> {
    for (const id of keyIds) this.lastUsed.delete(id);
  }
}

/** Sets each field to the larger of its value and the argument, so instances never move a time backwards. */
const SAVE_LATEST = `
for i = 1, #ARGV, 2 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > current then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;

export class RedisKeyUsageStore implements KeyUsageStore {
  private readonly key: string;

  constructor(
    private readonly client: RedisClient,
    keyPrefix: string,
  ) {
    this.key = `${keyPrefix}{keys}:last-used`;
  }

  async save(lastUsedMs: ReadonlyMap<string, number>): Promise<void> {
    if (lastUsedMs.size === 0) return;
    const args: string[] = [];
    for (const [keyId, ms] of lastUsedMs) args.push(keyId, String(ms));
    await this.client.eval(SAVE_LATEST, 1, this.key, ...args);
  }

  async load(keyIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (keyIds.length === 0) return out;
    const values = await this.client.hmget(this.key, ...keyIds);
    keyIds.forEach((id, i) => {
      const value = values[i];
      if (value) out.set(id, Number(value));
    });
    return out;
  }

  async forget(keyIds: readonly string[]): Promise<void> {
    if (keyIds.length > 0) await this.client.hdel(this.key, ...keyIds);
  }
}

export class KeyUsageTracker {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: KeyUsageStore,
    private readonly flushIntervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Hot path: one map write. */
  record(keyId: string, nowMs = Date.now()): void {
    this.pending.set(keyId, nowMs);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushIntervalMs).unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.save(batch);
    } catch (err) {
      // Keep the batch for the next try, unless newer uses replaced it meanwhile.
      for (const [keyId, ms] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, ms);
      this.logger.debug({ err }, 'key usage not saved; retrying on the next flush');
    }
  }

  /** Last use per key as ISO text, including uses not flushed yet. */
  async lastUsed(keyIds: readonly string[]): Promise<Map<string, string>> {
    const stored = await this.store.load(keyIds).catch(() => new Map<string, number>());
    const out = new Map<string, string>();
    for (const id of keyIds) {
      const ms = Math.max(stored.get(id) ?? 0, this.pending.get(id) ?? 0);
      if (ms > 0) out.set(id, new Date(ms).toISOString());
    }
    return out;
  }

  /**
   * After a write removed keys: drops their times. Never throws: the write has happened, and a
   * leftover time is harmless (the next removal retries nothing, so it is logged).
   */
  async forgetRemoved(removed: readonly string[]): Promise<void> {
    if (removed.length === 0) return;
    for (const id of removed) this.pending.delete(id);
    await this.store.forget(removed).catch((err: unknown) => this.logger.warn({ err, keyIds: removed }, 'last-used times of removed keys not deleted'));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
