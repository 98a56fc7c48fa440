/**
 * Real Redis processes for topology tests: `startRedisProcess` runs one `redis-server` (any
 * mode) on loopback, and `startSentinelSetup` runs one master, one replica and one sentinel
 * (`redis-server --sentinel`) watching them, so a test can kill the master and watch Sentinel
 * promote the replica.
 *
 * Spawns redis-server from PATH; writes each process's config into a fresh temporary
 * directory. Every process started here is killed when the test process exits, even when a
 * test fails before its own cleanup.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from './free-port';
import { testTempDir } from './temp-dir';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisProcess {
  readonly port: number;
  /** SIGKILL (a crash) unless `graceful`; resolves once the process has exited. */
  stop(graceful?: boolean): Promise<void>;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (${(lastError as Error).message})` : ''}`);
}

/** One short-lived connection per question (`options`: TLS, credentials): a probe must not reconnect in the background. */
export async function askRedis<T>(port: number, question: (client: Redis) => Promise<T>, options: RedisOptions = {}): Promise<T> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 500,
    // ioredis keeps a timer this long after disconnect(); its 2 s default holds jest open.
    disconnectTimeout: 50,
    ...options,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await question(client);
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `redis-server <config file> [--sentinel]` on a free port and waits until it answers
 * PING. `config(port)` gives redis.conf lines; port, bind, dir and no persistence are added here.
 * A free port can be taken between choosing it and redis-server binding it (another suite, a
 * cluster bus): the server then exits at once, and it is started again on another port, as
 * startRedisServer does.
 */
export async function startRedisProcess(
  config: (port: number) => readonly string[] | Promise<readonly string[]>,
  options: { sentinel?: boolean; ping?: (port: number) => Promise<boolean> } = {},
): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startRedisProcessOn(port, await config(port), options);
    } catch (err) {
      if (!(err instanceof ExitedAtStart) || attempt >= 3) throw err;
    }
  }
}

class ExitedAtStart extends Error {}

async function startRedisProcessOn(
  port: number,
  config: readonly string[],
  options: { sentinel?: boolean; ping?: (port: number) => Promise<boolean> },
): Promise<RedisProcess> {
  const dir = testTempDir('cbg-redis-');
  const file = path.join(dir, 'redis.conf');
  // Sentinel rewrites its config file, so it must be a file of its own in a writable place.
  writeFileSync(file, [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'save ""', 'appendonly no', 'loglevel warning', ...config].join('\n') + '\n');
  const child = spawn('redis-server', [file, ...(options.sentinel ? ['--sentinel'] : [])], { stdio: 'ignore' });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => {
    running.delete(child);
    rmSync(dir, { recursive: true, force: true });
  });
  child.once('error', () => running.delete(child));
  const ping = options.ping ?? (async (on: number) => (await askRedis(on, (c) => c.ping())) === 'PONG');
  try {
    // until() retries what a probe throws, so an exit is answered, then thrown here.
    const answered = await until(`redis-server on port ${port}`, 5000, async () =>
      child.exitCode !== null ? 'exited' : (await ping(port)) ? 'up' : undefined,
    );
    if (answered === 'exited') throw new ExitedAtStart(`redis-server on port ${port} exited at start (code ${child.exitCode})`);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    port,
    async stop(graceful = false) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(graceful ? 'SIGTERM' : 'SIGKILL');
      await exited;
    },
  };
}

export interface SentinelSetup {
  readonly masterName: string;
  /** What the gateway's `redis.sentinels` takes. */
  readonly sentinels: Array<{ host: string; port: number }>;
  /** The master's port as the sentinel currently reports it. */
  masterPort(): Promise<number>;
  /** SIGKILLs the current master, as a crash would; returns its port. */
  killMaster(): Promise<number>;
  /** Resolves with the new master's port once the sentinel has promoted another server. */
  waitForFailover(fromPort: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

interface SentinelSetupOptions {
  /** How long the master must be unreachable before the sentinel fails over. */
  readonly downAfterMs?: number;
}

export async function startSentinelSetup(options: SentinelSetupOptions = {}): Promise<SentinelSetup> {
  const masterName = 'cbg-master';
  const downAfterMs = options.downAfterMs ?? 500;
  let sentinelPort = 0;
  const servers = new Map<number, RedisProcess>();
  const started: RedisProcess[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(started.map((p) => p.stop()));
  };
  try {
    const master = await startRedisProcess(() => []);
    const masterPort = master.port;
    started.push(master);
    servers.set(masterPort, master);
    const replica = await startRedisProcess(() => [`replicaof 127.0.0.1 ${masterPort}`]);
    const replicaPort = replica.port;
    started.push(replica);
    servers.set(replicaPort, replica);
    await until('the replica to sync', 10_000, async () =>
      (await askRedis(replicaPort, (c) => c.info('replication'))).includes('master_link_status:up') ? true : undefined,
    );
    const sentinel = await startRedisProcess(
      () => [
        `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
        `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
        `sentinel failover-timeout ${masterName} 10000`,
        `sentinel parallel-syncs ${masterName} 1`,
      ],
      { sentinel: true },
    );
    started.push(sentinel);
    sentinelPort = sentinel.port;
    // Sentinel learns of replicas from the master's INFO; a failover needs one it knows.
    await until('the sentinel to know the replica', 15_000, async () => {
      const replicas = (await askRedis(sentinelPort, (c) => c.call('SENTINEL', 'REPLICAS', masterName))) as string[][];
      return replicas.some((fields) => fields.includes(String(replicaPort))) ? true : undefined;
    });
  } catch (err) {
    await stopAll();
    throw err;
  }

  const masterPortNow = async (): Promise<number> => {
    const [, port] = (await askRedis(sentinelPort, (c) => c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName))) as [string, string];
    return Number(port);
  };

  return {
    masterName,
    sentinels: [{ host: '127.0.0.1', port: sentinelPort }],
    masterPort: masterPortNow,
    async killMaster() {
      const port = await masterPortNow();
      await servers.get(port)?.stop();
      return port;
    },
    waitForFailover(fromPort, timeoutMs) {
      return until('the sentinel to promote the replica', timeoutMs, async () => {
        const port = await masterPortNow();
        if (port === fromPort) return undefined;
        const role = await askRedis(port, (c) => c.info('replication'));
        return role.includes('role:master') ? port : undefined;
      });
    },
    stop: stopAll,
  };
}
