/**
 * Starts a real `redis-server` on a free loopback port for tests, so fault tests can stop and
 * restart their own instance. Nothing is persisted unless a `dir` is given (then SAVE writes a
 * snapshot there and a restart loads it, as a crashed Redis comes back from its RDB); the
 * process dies with the test run. Always `maxmemory-policy noeviction` (Redis's default), as
 * the gateway requires.
 *
 * Reads nothing from the environment; spawns redis-server from PATH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './free-port';

export interface RedisServerHandle {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL when `abrupt`, as a crash would). */
  stop(abrupt?: boolean): Promise<void>;
  /** Starts it again on the same port, empty (or from the snapshot in `dir`). */
  start(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface RedisServerOptions {
  /** Where SAVE writes its snapshot (dump.rdb) and a restart reads it; none: nothing survives a restart. */
  readonly dir?: string;
  /** Allows DEBUG (RELOAD: a stale copy loaded under live connections); off by default, as in production. */
  readonly enableDebugCommand?: boolean;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServerHandle> {
  // A free port can be taken between choosing it and redis-server binding it: then the server
  // exits at once, and another port is tried.
  for (let attempt = 1; ; attempt++) {
    const server = redisServerOn(await freePort(), options);
    try {
      await server.start();
      return server;
    } catch (err) {
      await server.stop(true);
      if (attempt >= 3) throw err;
    }
  }
}

function redisServerOn(port: number, options: RedisServerOptions): RedisServerHandle {
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    const snapshot = options.dir === undefined ? [] : ['--dir', options.dir, '--dbfilename', 'dump.rdb'];
    // redis-server 7 refuses DEBUG unless enabled; older ones know no such option.
    const debug = options.enableDebugCommand ? ['--enable-debug-command', 'yes'] : [];
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
      '--loglevel',
      'warning',
      ...snapshot,
      ...debug,
    ];
    const started = spawn('redis-server', args, {
      stdio: 'ignore',
    });
    child = started;
    started.once('error', (err) => {
      throw new Error(`redis-server failed to start (is it installed?): ${err.message}`);
    });
    await waitFor(async () => {
      if (started.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${started.exitCode}`);
      return ping(port);
    }, `redis-server on port ${port}`);
  };

  const stop = async (abrupt = false): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(abrupt ? 'SIGKILL' : 'SIGTERM');
    await exited;
    child = null;
  };

  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
