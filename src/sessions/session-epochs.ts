/**
 * Where sign-out is remembered for signed browser sessions (signed-sessions.ts): one counter per
 * subject in a namespace (`admin`, later `portal`). A session carries the counter's value it was
 * issued under; signing out moves the counter on, so every session of that subject ends on every
 * instance at its next request. Two stores behind one interface: in memory (sandbox mode, one
 * process) and Redis (shared by every instance).
 *
 * Reads and writes its own keys only: `<keyPrefix>session-epoch:<namespace>:<subject>` in Redis
 * (no expiry: one small key per subject that ever signed out). The memory store starts each
 * process from a random value, so a cookie signed out before a restart stays refused after it.
 */
import { randomInt } from 'node:crypto';
import type { RedisClient } from '../redis/redis-client';

export interface SessionEpochs {
  /** The subject's current epoch (a string: opaque to callers, compared for equality). */
  current(namespace: string, subject: string): Promise<string>;
  /** Moves the subject's epoch on: every session issued before ends. */
  advance(namespace: string, subject: string): Promise<void>;
}

export class MemorySessionEpochs implements SessionEpochs {
  private readonly epochs = new Map<string, number>();
  /** Per process: a restart does not bring back a session that was signed out before it. */
  private readonly base = randomInt(2 ** 47);

  async current(namespace: string, subject: string): Promise<string> {
    return String(this.epochs.get(`${namespace}\u0000${subject}`) ?? this.base);
  }

  async advance(namespace: string, subject: string): Promise<void> {
    const key = `${namespace}\u0000${subject}`;
    this.epochs.set(key, (this.epochs.get(key) ?? this.base) + 1);
  }
}

export class RedisSessionEpochs implements SessionEpochs {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async current(namespace: string, subject: string): Promise<string> {
    return (await this.client.get(this.key(namespace, subject))) ?? '0';
  }

  async advance(namespace: string, subject: string): Promise<void> {
    await this.client.incr(this.key(namespace, subject));
  }

  private key(namespace: string, subject: string): string {
    return `${this.keyPrefix}session-epoch:${namespace}:${encodeURIComponent(subject)}`;
  }
}
