/**
 * Redis connections that fail fast, and a health monitor that follows them.
 *
 * No request may wait on Redis: there is no offline queue (a command issued while the
 * connection is down fails at once), every command has a short timeout, and the connection
 * keeps reconnecting in the background, at most about a second apart.
 *
 * Reads the `redis` config; opens a connection on creation unless `lazyConnect`. RedisHealth
 * reads connection events and reports up/down (for gateway_redis_up) to its subscribers.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logging/logger';
import type { RedisConfig } from './redis.schema';

export interface RedisClientOptions {
  /** Connect on `connect()` or on the first command instead of at once. */
  readonly lazyConnect?: boolean;
  /** Shown by CLIENT LIST, so that operators can tell the gateway's connections apart. */
  readonly name?: string;
}

const FIRST_RECONNECT_DELAY_MS = 50;
/**
 * ioredis destroys a closing socket after this; its default of 2 s would hold a shutdown (and
 * the process) open for that long whenever Redis is already gone.
 */
const DISCONNECT_TIMEOUT_MS = 200;
const MAX_RECONNECT_DELAY_MS = 1000;

/** Never gives up: an instance that lost Redis must find it again without a restart. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(FIRST_RECONNECT_DELAY_MS * 2 ** (attempt - 1), MAX_RECONNECT_DELAY_MS);
}

export function createRedisClient(config: RedisConfig, options: RedisClientOptions = {}): Redis {
  if (config.url === null) throw new Error('redis.url is not set (env REDIS_URL)');
  return new Redis(config.url, {
    lazyConnect: options.lazyConnect ?? false,
    connectionName: options.name,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    commandTimeout: config.commandTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // 0 rather than 1: a command whose connection drops fails at once instead of being sent
    // again after the reconnect. Redis may have applied a write whose reply was lost (the
    // access replace script, a rate-limit increment), and sending it again would apply it twice.
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelayMs,
  });
}

/** Up while every watched connection is ready; tells subscribers when that changes. */
export class RedisHealth {
  private readonly ready = new Map<string, boolean>();
  private readonly listeners = new Set<(up: boolean) => void>();
  private current = false;
  private wentDownAtMs: number | null = null;

  constructor(private readonly logger: Logger) {}

  get up(): boolean {
    return this.current;
  }

  /** Seconds since the connections stopped being ready (what this instance serves may be stale); 0 while up. */
  downSeconds(nowMs = Date.now()): number {
    return this.wentDownAtMs === null ? 0 : Math.round((nowMs - this.wentDownAtMs) / 1000);
  }

  watch(client: Redis, name: string): this {
    let lastError: string | undefined;
    let outageLogged = false;
    // Listening to 'error' also stops ioredis printing every failed reconnect to stderr; an
    // outage is logged once, when reconnecting starts, and once more when it ends.
    client.on('error', (err: Error) => {
      lastError = err.message;
    });
    client.on('reconnecting', () => {
      if (outageLogged) return;
      outageLogged = true;
      this.logger.warn({ connection: name, reason: lastError }, 'Redis connection lost; reconnecting');
    });
    client.on('ready', () => {
      if (outageLogged) this.logger.info({ connection: name }, 'Redis connection restored');
      lastError = undefined;
      outageLogged = false;
      this.set(name, true);
    });
    client.on('close', () => this.set(name, false));
    client.on('end', () => this.set(name, false));
    this.ready.set(name, client.status === 'ready');
    this.recompute();
    return this;
  }

  /** Returns an unsubscribe. */
  onChange(listener: (up: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(name: string, ready: boolean): void {
    this.ready.set(name, ready);
    this.recompute();
  }

  private recompute(): void {
    const up = this.ready.size > 0 && [...this.ready.values()].every(Boolean);
    if (up === this.current) return;
    this.current = up;
    this.wentDownAtMs = up ? null : Date.now();
    for (const listener of this.listeners) listener(up);
  }
}
