/**
 * The Redis access store (REDIS_URL set): one access document shared by every instance.
 *
 * Layout, all under one hash tag so that every script touches a single cluster slot:
 *   <prefix>{access}:doc      the whole document, one JSON string
 *   <prefix>{access}:version  its version, raised by every change
 *   <prefix>{access}:changed  the channel every change publishes its new version on
 * A change is one Lua script (check the version, SET, raise the version, PUBLISH), so no reader
 * ever sees half a document or a document without its version. Instances learn of changes from
 * the channel, from a version check every `pollIntervalMs` (heals a lost message), and from a
 * check as soon as Redis is back. With Redis down every call fails fast, and the AccessCache
 * keeps serving its last good copy.
 *
 * Reads and writes those keys through the two connections it is given (one is for SUBSCRIBE
 * only) and closes both on `close()`.
 */
import type { ZodError } from 'zod';
import type { Logger } from '../logging/logger';
import { accessDocumentSchema, type AccessDocument } from './model';
import type { RedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../errors/error-catalogue';
import { VersionConflictError, type AccessStore, type VersionedAccessDocument } from './access-store';


/** Redis failing to answer is an outage (503), not a fault of ours (500). */
async function unavailableOnRedisError<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof InvalidAccessDocumentError || err instanceof VersionConflictError) throw err;
    throw new StoreUnavailableError(err);
  }
}

export interface RedisAccessStoreOptions {
  readonly client: RedisClient;
  /** A second connection: one that has sent SUBSCRIBE accepts no other command. */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** The declarative file's document, written as version 1 when Redis holds none. */
  readonly seed?: AccessDocument;
}

export class InvalidAccessDocumentError extends Error {
  override readonly name = 'InvalidAccessDocumentError';
}

/** How long `init()` waits for Redis unless told otherwise. */
export const DEFAULT_READY_TIMEOUT_MS = 5000;
/** How long `close()` lets QUIT take before dropping the connection. */
const QUIT_GRACE_MS = 200;

// KEYS: document, version. ARGV: JSON, expected version ('' for any), channel, highest version
// this instance has seen. The new version is above that last one too, so that a write made just
// after Redis lost its data never reuses a version number that instances already hold.
const REPLACE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[2] ~= '' and tonumber(ARGV[2]) ~= current then
  return {0, current}
end
local version = math.max(current, tonumber(ARGV[4])) + 1
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], version)
redis.call('PUBLISH', ARGV[3], version)
return {1, version}
`;

// KEYS: document, version. ARGV: JSON, its version, channel. Writes only when Redis holds no
// document or an older version than this one: SET NX semantics that concurrent starters and
// healers can all run, and the newest copy wins.
const WRITE_BACK_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('EXISTS', KEYS[1]) == 1 and current >= tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[2])
return 1
`;

interface KnownDocument {
  readonly version: number;
  readonly json: string;
  /** `seed` until a document has been read from Redis. */
  readonly source: 'seed' | 'redis';
}

function describeIssues(error: ZodError): string {
  return error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`).join('\n');
}

function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  // A failed first attempt is retried by the client's retryStrategy; the wait below bounds it.
  if (client.status === 'wait') client.connect().catch(() => undefined);
  return new Promise((resolve, reject) => {
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis was not reachable within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('ready', onReady);
  });
}

async function closeConnection(client: RedisClient): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, QUIT_GRACE_MS);
  });
  // QUIT lets Redis answer what it already received and ends any subscription; with Redis down
  // it fails at once, and disconnect() then stops the reconnect attempts.
  await Promise.race([client.quit().catch(() => undefined), grace]);
  clearTimeout(timer);
  if (client.status !== 'end') client.disconnect();
}

export class RedisAccessStore implements AccessStore {
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly documentKey: string;
  private readonly versionKey: string;
  private readonly channel: string;
  private readonly listeners = new Set<() => void>();
  /**
   * The last valid document this instance read (or its seed): what it writes back when Redis
   * has lost the document, and the version that the periodic check compares against.
   */
  private known: KnownDocument | null;
  private poller: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;

  constructor(options: RedisAccessStoreOptions) {
    this.client = options.client;
    this.subscriber = options.subscriber;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs;
    this.documentKey = `${options.keyPrefix}{access}:doc`;
    this.versionKey = `${options.keyPrefix}{access}:version`;
    this.channel = `${options.keyPrefix}{access}:changed`;
    this.known = options.seed ? { version: 1, json: this.serialize(options.seed), source: 'seed' } : null;
    this.client.on('ready', this.onClientReady);
    this.subscriber.on('ready', this.onSubscriberReady);
    this.subscriber.on('message', this.onMessage);
  }

  /**
   * Waits for both connections, subscribes to the change channel and writes the seed when Redis
   * holds no document. The store also recovers on its own when Redis only arrives later.
   */
  async init(readyTimeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      try {
        const left = Math.max(1, deadline - Date.now());
        await Promise.all([whenReady(this.client, left), whenReady(this.subscriber, left)]);
        await this.subscriber.subscribe(this.channel);
        await this.check();
        return;
      } catch (err) {
        // A connection that drops between "ready" and the first commands (a busy host, a
        // restarting Redis) is tried again until the deadline; a bad document is not.
        if (err instanceof InvalidAccessDocumentError || Date.now() >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  async read(): Promise<VersionedAccessDocument> {
    let stored = await unavailableOnRedisError(this.fetch());
    if (this.redisIsBehind(stored.version, stored.json !== null)) {
      await unavailableOnRedisError(this.writeBack());
      stored = await unavailableOnRedisError(this.fetch());
    }
    if (stored.json === null) return { version: stored.version, document: accessDocumentSchema.parse({}) };
    const document = this.parseStored(stored.json, stored.version);
    const previousVersion = this.known?.version;
    this.known = { version: stored.version, json: stored.json, source: 'redis' };
    // Whoever reads a new version first (the cache, or an admin request) makes sure the
    // cache hears of it, even when the change message never arrived.
    if (stored.version !== previousVersion) this.notify();
    return { version: stored.version, document };
  }

  async replace(document: AccessDocument, expectedVersion?: number): Promise<number> {
    const json = this.serialize(document);
    const reply = await unavailableOnRedisError(
      this.client.eval(
        REPLACE_SCRIPT,
        2,
        this.documentKey,
        this.versionKey,
        json,
        expectedVersion === undefined ? '' : String(expectedVersion),
        this.channel,
        String(this.knownVersion),
      ),
    );
    const [written, version] = reply as [number, number];
    if (written === 0) throw new VersionConflictError(expectedVersion ?? version, version);
    this.notify();
    return version;
  }

  subscribe(onChange: () => void): () => void {
    this.listeners.add(onChange);
    this.poller ??= setInterval(() => {
      this.check().catch((err: unknown) => this.logger.debug({ err }, 'access config version check failed'));
    }, this.pollIntervalMs).unref();
    return () => {
      this.listeners.delete(onChange);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  async close(): Promise<void> {
    this.stopPolling();
    this.listeners.clear();
    this.client.off('ready', this.onClientReady);
    this.subscriber.off('ready', this.onSubscriberReady);
    this.subscriber.off('message', this.onMessage);
    await Promise.all([closeConnection(this.client), closeConnection(this.subscriber)]);
  }

  private readonly onClientReady = (): void => {
    // Back after an outage: catch up at once on changes made meanwhile, or heal an empty Redis.
    this.check().catch((err: unknown) => this.logger.warn({ err }, 'access config version check failed'));
  };

  private readonly onSubscriberReady = (): void => {
    // Messages published while the subscriber was away are lost: check the version as well.
    this.subscriber
      .subscribe(this.channel)
      .then(() => this.check())
      .catch((err: unknown) => this.logger.warn({ err }, 'could not resubscribe to access config changes and check the version'));
  };

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel === this.channel && Number(message) !== this.knownVersion) this.notify();
  };

  /** Compares the version in Redis with the last one read; overlapping calls share one check. */
  private check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        const version = this.parseVersion(await this.client.get(this.versionKey));
        if (this.redisIsBehind(version)) {
          await this.writeBack();
          this.notify();
        } else if (version !== this.knownVersion) {
          this.notify();
        }
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  /**
   * True when this instance holds a newer document than Redis: Redis restarted empty (it runs
   * without persistence), or failed over to a replica that lagged behind. Every instance then
   * writes its last good copy back, and the write-back script keeps the newest, so the fleet
   * heals without an operator and a freshly started instance's seed never wins over the copy
   * the fleet was serving.
   */
  private redisIsBehind(version: number, documentPresent = true): boolean {
    return this.known !== null && (!documentPresent || version < this.known.version);
  }

  private get knownVersion(): number {
    return this.known?.version ?? 0;
  }

  private async writeBack(): Promise<void> {
    const known = this.known;
    if (!known) return;
    const written = await this.client.eval(WRITE_BACK_SCRIPT, 2, this.documentKey, this.versionKey, known.json, String(known.version), this.channel);
    if (written !== 1) return;
    if (known.source === 'seed') this.logger.info({ version: known.version }, 'Redis held no access document; wrote the seed');
    else this.logger.warn({ version: known.version }, 'Redis had lost the access document; wrote back the last good copy');
  }

  private async fetch(): Promise<{ version: number; json: string | null }> {
    const [json, version] = await this.client.mget(this.documentKey, this.versionKey);
    return { version: this.parseVersion(version ?? null), json: json ?? null };
  }

  private parseVersion(text: string | null): number {
    if (text === null) return 0;
    const version = Number(text);
    if (!Number.isSafeInteger(version) || version < 0) {
      throw new InvalidAccessDocumentError(`Redis key ${this.versionKey} holds "${text.slice(0, 40)}", not a version number`);
    }
    return version;
  }

  private parseStored(json: string, version: number): AccessDocument {
    const where = `the access document in Redis (key ${this.documentKey}, version ${version})`;
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      throw new InvalidAccessDocumentError(`${where} is not valid JSON`);
    }
    const result = accessDocumentSchema.safeParse(raw);
    if (!result.success) throw new InvalidAccessDocumentError(`${where} is invalid:\n${describeIssues(result.error)}`);
    return result.data;
  }

  private serialize(document: AccessDocument): string {
    const result = accessDocumentSchema.safeParse(document);
    if (!result.success) throw new InvalidAccessDocumentError(`refusing to store an invalid access document:\n${describeIssues(result.error)}`);
    return JSON.stringify(result.data);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }
}
