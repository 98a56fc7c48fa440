/**
 * A start that fails half-way closes everything it had opened, in reverse: with the admin port
 * (or the vendor port) already taken, the start rejects naming the setting, the listeners it
 * had opened (sandbox core, status, vendor) are free to bind again, no Redis connection of it
 * remains, and a process whose start failed ends by itself, without process.exit: no timer,
 * socket or watcher is left to hold it. A stopped gateway's process ends by itself as well.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { freePort } from '../support/free-port';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { within } from '../support/within';

const ROOT = path.resolve(__dirname, '../..');

/** A port held by this test process, as another program would hold it. */
async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return { port: (holder.address() as net.AddressInfo).port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function gatewayConnections(redis: RedisServerHandle): Promise<string[]> {
  const observer = new Redis(redis.url);
  try {
    return ((await observer.client('LIST')) as string).split('\n').filter((line) => / name=cbg-/.test(line));
  } finally {
    observer.disconnect();
  }
}

interface Ports {
  readonly port: number;
  readonly adminPort: number;
  readonly statusPort: number;
  readonly sandboxPort: number;
}

async function freePorts(taken: Partial<Ports>): Promise<Ports> {
  return {
    port: taken.port ?? (await freePort()),
    adminPort: taken.adminPort ?? (await freePort()),
    statusPort: taken.statusPort ?? (await freePort()),
    sandboxPort: taken.sandboxPort ?? (await freePort()),
  };
}

describe('a start that fails closes what it opened', () => {
  let redis: RedisServerHandle;
  let held: { port: number; release: () => Promise<void> };

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  beforeEach(async () => {
    held = await takenPort();
  });
  afterEach(async () => {
    await held.release();
  });
  afterAll(async () => {
    await redis.stop();
  });

  async function startWith(ports: Ports): Promise<unknown> {
    const config = testConfig({
      server: { port: ports.port, adminPort: ports.adminPort, statusPort: ports.statusPort },
      sandbox: { port: ports.sandboxPort },
      redis: { url: redis.url, seedAccessFile: 'always', keyPrefix: `failed-start${process.pid}:` },
    });
    return startGateway(config, createLogger('silent')).then(
      async (gateway) => {
        await gateway.stop({ drainTimeoutMs: 0 });
        return 'started';
      },
      (err: unknown) => err,
    );
  }

  it('with the admin port taken: rejects naming ADMIN_PORT, frees the vendor, status and sandbox ports, and leaves no Redis connection', async () => {
    const ports = await freePorts({ adminPort: held.port });
    const failure = await startWith(ports);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(`server.adminPort (ADMIN_PORT): cannot listen on 127.0.0.1:${held.port}: the port is in use (EADDRINUSE)`);
    for (const port of [ports.port, ports.statusPort, ports.sandboxPort]) expect(await canBind(port)).toBe(true);
    await within(2000, async () => (await gatewayConnections(redis)).length === 0);
  });

  it('with the vendor port taken: rejects naming PORT, frees the status and sandbox ports, and leaves no Redis connection', async () => {
    const ports = await freePorts({ port: held.port });
    const failure = await startWith(ports);
    expect((failure as Error).message).toBe(`server.port (PORT): cannot listen on 127.0.0.1:${held.port}: the port is in use (EADDRINUSE)`);
    for (const port of [ports.adminPort, ports.statusPort, ports.sandboxPort]) expect(await canBind(port)).toBe(true);
    await within(2000, async () => (await gatewayConnections(redis)).length === 0);
  });

  /** Starts test/support/start-once.ts in a child: the line it printed, its exit code, and the time from that line to its exit. */
  async function startOnceInChild(ports: Ports): Promise<{ line: string; code: number | null; lingeredMs: number; output: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/start-once.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(ports.port),
        ADMIN_PORT: String(ports.adminPort),
        STATUS_PORT: String(ports.statusPort),
        SANDBOX_PORT: String(ports.sandboxPort),
        REDIS_URL: redis.url,
        ADMIN_TOKEN: 'failed-start-admin-token-000001',
        GATEWAY__server__host: '127.0.0.1',
        GATEWAY__redis__keyPrefix: `'failed-start-child${process.pid}:'`,
        GATEWAY__redis__seedAccessFile: 'always',
        GATEWAY__twoFactor__pepper: 'failed-start-pepper-not-secret-000000',
        // A tracing exporter too (its collector is away): its batch timer must not hold the process.
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let lineAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (lineAt === 0 && /^(started|start failed)/m.test(output)) lineAt = performance.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // Starting a child under tsx can take a while on a loaded machine; ending, once started, must not.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(stuck);
    return { line: output.split('\n')[0] ?? '', code, lingeredMs: lineAt === 0 ? Infinity : performance.now() - lineAt, output };
  }

  it('ends a process whose start failed (admin port taken) by itself, without process.exit', async () => {
    const ports = await freePorts({ adminPort: held.port });
    const { line, code, lingeredMs, output } = await startOnceInChild(ports);
    expect(line).toBe(`start failed: server.adminPort (ADMIN_PORT): cannot listen on 127.0.0.1:${held.port}: the port is in use (EADDRINUSE)`);
    expect(code).toBe(3);
    expect(output).not.toContain('still open');
    expect(lingeredMs).toBeLessThan(2000);
  }, 40_000);

  it('ends a process whose gateway started and stopped by itself, without process.exit', async () => {
    const { line, code, lingeredMs, output } = await startOnceInChild(await freePorts({}));
    expect(line).toBe('started');
    expect(code).toBe(0);
    expect(output).not.toContain('still open');
    expect(lingeredMs).toBeLessThan(2000);
  }, 40_000);
});
