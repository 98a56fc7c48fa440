/**
 * Redis connections that fail fast, and a health monitor that follows them.
 *
 * No request may wait on Redis: there is no offline queue (a command issued while the
 * connection is down fails at once), every command has a short timeout, and the connection
 * keeps reconnecting in the background, at most about a second apart. The same rules hold for
 * the three topologies the `redis` config can name: one server (`url`), a master found through
 * Sentinel (`sentinels` + `name`, which follows failovers) and a Redis Cluster (`nodes`).
 *
 * Reads the `redis` config and, when `tls.caFile` is set, that CA file; opens a connection on
 * creation unless `lazyConnect`. RedisHealth reads connection events and reports up/down (for
 * gateway_redis_up) to its subscribers.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../logging/logger';
import { TlsFileError } from '../tls/pem-files';
import { redisConfigured, type RedisConfig } from './redis.schema';

/** A connection of any topology; the stores use only commands both kinds share. */
export type RedisClient = Redis | Cluster;

interface RedisClientOptions {
  /** Connect on `connect()` or on the first command instead of at once. */
  readonly lazyConnect?: boolean;
  /** Shown by CLIENT LIST, so that operators can tell the gateway's connections apart. */
  readonly name?: string;
  /** Instead of `commandTimeoutMs`, for a connection that does bulk work off the request path. */
  readonly commandTimeoutMs?: number;
  /**
   * Batch the commands issued in one turn of the event loop into one write (ioredis
   * auto-pipelining): for the request path, where every request sends its own command, this
   * saves a socket write per request under load; alone, a command waits only for the current
   * turn to end. Replies and errors stay per command.
   */
  readonly autoPipelining?: boolean;
}

const FIRST_RECONNECT_DELAY_MS = 50;
/**
 * ioredis destroys a closing socket after this; its default of 2 s would hold a shutdown (and
 * the process) open for that long whenever Redis is already gone.
 */
const DISCONNECT_TIMEOUT_MS = 200;
const MAX_RECONNECT_DELAY_MS = 1000;

/** Never gives up: an instance that lost Redis must find it again without a restart. */
function reconnectDelayMs(attempt: number): number {
  return Math.min(FIRST_RECONNECT_DELAY_MS * 2 ** (attempt - 1), MAX_RECONNECT_DELAY_MS);
}

/** Where the config points, without credentials: for start-up messages and logs. */
export function describeRedisTarget(config: RedisConfig): string {
  const list = (addresses: RedisConfig['nodes']): string => addresses.map(({ host, port }) => `${host}:${port}`).join(',');
  if (config.sentinels.length > 0) return `Sentinel master "${config.name ?? ''}" via ${list(config.sentinels)}`;
  if (config.nodes.length > 0) return `Cluster ${list(config.nodes)}`;
  if (config.url === null) return 'no Redis';
  const url = new URL(config.url);
  url.username = '';
  url.password = '';
  return url.toString();
}

/** The CA bundle Redis's certificate is checked against; unreadable, it fails the start (exit 2) naming the key. */
function readCaFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsFileError(`redis.tls.caFile ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function tlsOptions(config: RedisConfig): ConnectionOptions | undefined {
  if (!config.tls.enabled && !config.url?.startsWith('rediss:')) return undefined;
  return {
    ...(config.tls.caFile ? { ca: readCaFile(config.tls.caFile) } : {}),
    ...(config.tls.serverName ? { servername: config.tls.serverName } : {}),
  };
}

/** What every connection to a Redis server gets, whatever the topology. */
function serverOptions(config: RedisConfig, options: RedisClientOptions): RedisOptions {
  const tls = tlsOptions(config);
  return {
    connectionName: options.name,
    enableReadyCheck: true,
    commandTimeout: options.commandTimeoutMs ?? config.commandTimeoutMs,
    enableAutoPipelining: options.autoPipelining ?? false,
    connectTimeout: config.connectTimeoutMs,
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // 0 rather than 1: a command whose connection drops fails at once instead of being sent
    // again after the reconnect. Redis may have applied a write whose reply was lost (the
    // access replace script, a rate-limit increment), and sending it again would apply it twice.
    maxRetriesPerRequest: 0,
    // ioredis (5.11.1, 6.0.0) resubscribes after a reconnect with a SUBSCRIBE nobody awaits: when
    // the connection drops again before the reply, that is an unhandled rejection, which ends a
    // Node process (fixed upstream in redis/ioredis#2187, not yet released). The access store
    // subscribes again itself on every 'ready', with its errors handled.
    autoResubscribe: false,
    ...(config.username !== null ? { username: config.username } : {}),
    ...(config.password !== null ? { password: config.password } : {}),
    ...(tls ? { tls } : {}),
  };
}

/** A socket error after the first: ioredis already heard the first, and is closing the socket and reconnecting. */
function ignoreLaterSocketError(): void {}

/**
 * ioredis (5.11.1) listens for a socket's 'error' with once(): a socket that fails twice (a TLS
 * client refusing the server's certificate, then the server's alert on the same socket) emits a
 * second 'error' nobody hears, which ends the Node process (redis/ioredis#961, never merged).
 * Every socket this client opens gets a listener of its own, which stays; the first error still
 * reaches ioredis, which closes the socket and reconnects. The client must not have connected
 * yet (created with `lazyConnect`): ioredis asks its connector for the first socket at once.
 */
function hearEverySocketError(client: Redis): Redis {
  type Connect = (...args: unknown[]) => Promise<NodeJS.EventEmitter>;
  const connector = (client as unknown as { connector: { connect: Connect } }).connector;
  const connect = connector.connect.bind(connector);
  connector.connect = async (...args) => {
    const stream = await connect(...args);
    stream.on('error', ignoreLaterSocketError);
    return stream;
  };
  return client;
}

/** Connects a client created lazily for `hearEverySocketError` unless the caller asked for a lazy one. */
function connectUnlessLazy<T extends RedisClient>(client: T, options: RedisClientOptions): T {
  // Failures surface as 'error' events and the retry strategy, as when ioredis connects itself.
  if (!(options.lazyConnect ?? false)) client.connect().catch(() => undefined);
  return client;
}

export function createRedisClient(config: RedisConfig, options: RedisClientOptions = {}): RedisClient {
  if (!redisConfigured(config)) throw new Error('no Redis is configured: set redis.url (env REDIS_URL), redis.sentinels + redis.name, or redis.nodes');
  const server = serverOptions(config, options);
  if (config.nodes.length > 0) {
    const cluster = new Cluster(
      config.nodes.map(({ host, port }) => ({ host, port })),
      {
        lazyConnect: true,
        enableOfflineQueue: false,
        enableAutoPipelining: server.enableAutoPipelining,
        // The cluster's ready check sends CLUSTER INFO to any node, often one still connecting,
        // which a cluster without offline queue refuses: it would loop on reconnects. The slot
        // map it loads first already shows the cluster answering.
        enableReadyCheck: false,
        clusterRetryStrategy: reconnectDelayMs,
        // With TLS the certificates name the hosts, not their addresses: connect by name.
        ...(server.tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
        redisOptions: server,
      },
    );
    // Node connections are created lazily and announced before they connect.
    cluster.on('+node', hearEverySocketError);
    return connectUnlessLazy(cluster, options);
  }
  if (config.sentinels.length > 0) {
    const sentinelTls = server.tls;
    const sentinelClient = hearEverySocketError(
      new Redis({
        ...server,
        lazyConnect: true,
        enableOfflineQueue: false,
        retryStrategy: reconnectDelayMs,
        sentinels: config.sentinels.map(({ host, port }) => ({ host, port })),
        name: config.name ?? undefined,
        role: 'master',
        sentinelRetryStrategy: reconnectDelayMs,
        sentinelCommandTimeout: config.connectTimeoutMs,
        // A demoted master that is still reachable refuses writes with READONLY: reconnect, and so
        // ask the sentinels again (the failed command is not sent again). Sentinel's own failover
        // also drops the old master's clients; ioredis's failoverDetector would add nothing but
        // sentinel connections that hold a stopping process open for 2 s.
        reconnectOnError: (err: Error) => err.message.startsWith('READONLY'),
        ...(config.sentinelUsername !== null ? { sentinelUsername: config.sentinelUsername } : {}),
        ...(config.sentinelPassword !== null ? { sentinelPassword: config.sentinelPassword } : {}),
        ...(sentinelTls ? { enableTLSForSentinelMode: true, sentinelTLS: sentinelTls } : {}),
      }),
    );
    return connectUnlessLazy(sentinelClient, options);
  }
  const client = new Redis(config.url as string, { ...server, lazyConnect: true, enableOfflineQueue: false, retryStrategy: reconnectDelayMs });
  return connectUnlessLazy(hearEverySocketError(client), options);
}

/** How long a start-up waits for Redis to be ready unless told otherwise. */
export const DEFAULT_READY_TIMEOUT_MS = 5000;

/** Waits until the client is ready (connecting it when it waits), at most `timeoutMs`. */
export function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
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

/**
 * A start-up's first commands: run once every client is ready, and again when a connection drops
 * between "ready" and the commands (a busy host, a restarting Redis), until `timeoutMs` has
 * passed; an error `isFinal` says will not get better (a bad document) ends it at once.
 */
export async function whenReadyRun<T>(
  clients: readonly RedisClient[],
  timeoutMs: number,
  first: () => Promise<T>,
  isFinal: (err: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const left = Math.max(1, deadline - Date.now());
      await Promise.all(clients.map((client) => whenReady(client, left)));
      return await first();
    } catch (err) {
      if (isFinal(err) || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** How long `closeRedisClient` lets QUIT take before dropping the connection. */
const QUIT_GRACE_MS = 200;

/** Closes a connection politely, and at once when Redis does not answer. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
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

  watch(client: RedisClient, name: string): this {
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
