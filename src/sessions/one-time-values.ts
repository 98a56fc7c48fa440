/**
 * Short-lived values every instance shares and each can use once: the single-sign-on flow's state
 * (claimed when the provider's answer comes back, so a replayed callback is refused rather than
 * sent on to the provider again) and the hand-off of a verified sign-in to the page that takes the
 * session (kept here, never in a cookie, so nothing a browser or a holder of the bootstrap token
 * could sign stands for a verified admin; taken once). Two stores behind one interface: memory
 * (sandbox mode, one process) and Redis (shared by every instance).
 *
 * Reads and writes its own keys only: `<keyPrefix>one-time:<key>`, each with its expiry. Callers
 * pass keys that are already digests or random, so a key holds nothing secret.
 */
import type { RedisClient } from '../redis/redis-client';

export interface OneTimeValues {
  /** Keeps `value` under `key` for `ttlSeconds`. */
  put(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** The value under `key`, removed in the same step (null when absent or expired): a second take finds nothing. */
  take(key: string): Promise<string | null>;
  /** True the first time `key` is claimed within `ttlSeconds`; false after. */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
}

export class MemoryOneTimeValues implements OneTimeValues {
  private readonly values = new Map<string, { value: string; expiresAtMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async put(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.sweep();
    this.values.set(key, { value, expiresAtMs: this.now() + ttlSeconds * 1000 });
  }

  async take(key: string): Promise<string | null> {
    const entry = this.values.get(key);
    this.values.delete(key);
    return entry && entry.expiresAtMs > this.now() ? entry.value : null;
  }

  async claim(key: string, ttlSeconds: number): Promise<boolean> {
    const entry = this.values.get(key);
    if (entry && entry.expiresAtMs > this.now()) return false;
    await this.put(key, '1', ttlSeconds);
    return true;
  }

  /** Drops expired values, so sign-ins nobody finished do not pile up. */
  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.values) if (entry.expiresAtMs <= now) this.values.delete(key);
  }
}

export class RedisOneTimeValues implements OneTimeValues {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async put(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.client.set(this.key(key), value, 'EX', Math.ceil(ttlSeconds));
  }

  async take(key: string): Promise<string | null> {
    return this.client.getdel(this.key(key));
  }

  async claim(key: string, ttlSeconds: number): Promise<boolean> {
    return (await this.client.set(this.key(key), '1', 'EX', Math.ceil(ttlSeconds), 'NX')) === 'OK';
  }

  private key(key: string): string {
    return `${this.keyPrefix}one-time:${key}`;
  }
}
