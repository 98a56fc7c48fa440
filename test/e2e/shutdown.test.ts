/**
 * Graceful shutdown. First the real thing: `src/main.ts` in a child process, on Redis and a
 * fake core, under a steady load of concurrent keep-alive requests, gets SIGTERM; the load
 * stops sending new requests as a load balancer would on that signal; every request sent gets
 * its answer, readiness turns 503 at once, and the process exits 0. Then the parts, in
 * process: the lame-duck time, the drain bound, idle keep-alive connections, Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port';
import { startFakeCore, type FakeCore } from '../support/fake-core';
import { SANDBOX_KEYS, startTestGateway } from '../support/gateway';
import { startRedisServer } from '../support/redis-server';
import { within } from '../support/within';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN_TOKEN = 'shutdown-test-admin-token-0001';
const CORE_DELAY_MS = 150;
const WORKERS = 16;

interface LoadResult {
  ok: number;
  failed: string[];
  closeAsked: number;
}

async function waitForReady(statusPort: number, child: ChildProcess, output: () => string): Promise<void> {
  await within(20_000, async () => {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${output()}`);
    const res = await fetch(`http://127.0.0.1:${statusPort}/health/ready`).catch(() => null);
    return res?.status === 200;
  });
}

describe('SIGTERM to a running gateway under load', () => {
  let core: FakeCore;
  let child: ChildProcess;
  let output = '';

  beforeAll(async () => {
    core = await startFakeCore({ kind: 'answer', status: 200, delayMs: CORE_DELAY_MS });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await core.close();
  });

  it('answers every request sent, turns readiness 503 at once, drains and exits 0', async () => {
    // A free port can be taken by another process between the test choosing it and the child
    // binding it: on EADDRINUSE the child is started again on fresh ports.
    let port = 0;
    let statusPort = 0;
    let exited: Promise<number | null> = Promise.resolve(null);
    for (let attempt = 1; ; attempt++) {
      let adminPort: number;
      let sandboxPort: number;
      [port, adminPort, statusPort, sandboxPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
      output = '';
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: '',
          PORT: String(port),
          ADMIN_PORT: String(adminPort),
          STATUS_PORT: String(statusPort),
          SANDBOX_PORT: String(sandboxPort),
          CORE_URL: core.url,
          REDIS_URL: process.env.TEST_REDIS_URL,
          ADMIN_TOKEN,
          LOG_LEVEL: 'info',
          GATEWAY__server__host: '127.0.0.1',
          // Quoted: the value is read as YAML, where a trailing colon would make a mapping.
          GATEWAY__redis__keyPrefix: `'shutdown${process.pid}:'`,
          GATEWAY__redis__seedAccessFile: 'always',
          GATEWAY__twoFactor__pepper: 'shutdown-test-pepper-not-secret-0000000',
          // A test rig: the stand-in core with the sandbox access file and the outbox SMS provider.
          GATEWAY__sandbox__allowWithRealCore: 'true',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        await waitForReady(statusPort, child, () => output);
        break;
      } catch (err) {
        if (attempt >= 3 || !output.includes('EADDRINUSE')) throw err;
      }
    }

    const agent = new http.Agent({ keepAlive: true, maxSockets: WORKERS });
    const result: LoadResult = { ok: 0, failed: [], closeAsked: 0 };
    let sending = true;
    const one = (): Promise<void> =>
      new Promise((resolve) => {
        const req = http.get(`http://127.0.0.1:${port}/accounts/1`, { agent, headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) result.ok += 1;
            else result.failed.push(`status ${res.statusCode}`);
            if (res.headers.connection === 'close') result.closeAsked += 1;
            resolve();
          });
          res.on('error', (err) => {
            result.failed.push(err.message);
            resolve();
          });
        });
        req.on('error', (err) => {
          result.failed.push(err.message);
          resolve();
        });
      });
    const workers = Array.from({ length: WORKERS }, async () => {
      while (sending) await one();
    });

    await new Promise((r) => setTimeout(r, 1500));
    const beforeSignal = result.ok;
    // The load balancer stops sending on the signal (Kubernetes removes the endpoint as it sends SIGTERM).
    sending = false;
    const signalledAt = performance.now();
    child.kill('SIGTERM');
    await within(2000, () => output.includes('shutting down'));
    const ready = await fetch(`http://127.0.0.1:${statusPort}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', shuttingDown: true });

    await Promise.all(workers);
    const code = await exited;
    const exitMs = performance.now() - signalledAt;
    agent.destroy();
    const inFlight = result.ok - beforeSignal;
    console.info(
      `shutdown under load: ${WORKERS} workers, ${result.ok} requests answered (${inFlight} in flight at SIGTERM), ` +
        `${result.failed.length} failed, ${result.closeAsked} told Connection: close, exit ${code} after ${exitMs.toFixed(0)} ms`,
    );
    expect(result.failed).toEqual([]);
    expect(result.ok).toBeGreaterThan(50);
    expect(inFlight).toBeGreaterThan(0);
    expect(code).toBe(0);
    expect(output).toMatch(/"msg":"stopped"/);
  });
});

describe('the parts of a graceful stop', () => {
  it('keeps serving during the lame-duck time with readiness at 503, then refuses connections', async () => {
    const core = await startFakeCore();
    const gateway = await startTestGateway({ core: { url: core.url } });
    try {
      const stopping = gateway.stop({ lameDuckMs: 600 });
      const ready = await fetch(`${gateway.statusUrl}/health/ready`);
      expect(ready.status).toBe(503);
      const during = await fetch(`${gateway.url}/accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
      expect(during.status).toBe(200);
      await stopping;
      await expect(fetch(`${gateway.url}/accounts/1`)).rejects.toThrow();
    } finally {
      await core.close();
    }
  });

  it('tells an in-flight request Connection: close, closes idle keep-alive connections at once, and waits for the request', async () => {
    const core = await startFakeCore({ kind: 'answer', status: 200, delayMs: 400 });
    const gateway = await startTestGateway({ core: { url: core.url } });
    try {
      const idle = net.connect(gateway.vendorPort, '127.0.0.1');
      await new Promise((r) => idle.once('connect', r));
      let idleClosedAt = 0;
      idle.on('close', () => (idleClosedAt = performance.now()));
      const inFlight = new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get(`${gateway.url}/accounts/1`, { agent: new http.Agent({ keepAlive: true }), headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } }, resolve)
          .on('error', reject);
      });
      await within(2000, () => core.requests.length === 1);
      const stopStarted = performance.now();
      const stopping = gateway.stop();
      await within(1000, () => idleClosedAt > 0);
      expect(idleClosedAt - stopStarted).toBeLessThan(200);
      const res = await inFlight;
      res.resume();
      expect(res.statusCode).toBe(200);
      expect(res.headers.connection).toBe('close');
      await stopping;
    } finally {
      await core.close();
    }
  });

  it('cuts what is still in flight when the drain time is over', async () => {
    const core = await startFakeCore({ kind: 'hang' });
    const gateway = await startTestGateway({ core: { url: core.url } });
    try {
      const inFlight = fetch(`${gateway.url}/accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } }).then(
        (res) => `status ${res.status}`,
        () => 'connection cut',
      );
      await within(2000, () => core.requests.length === 1);
      const started = performance.now();
      await gateway.stop({ drainTimeoutMs: 300 });
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(1500);
      expect(await inFlight).toBe('connection cut');
    } finally {
      await core.close();
    }
  });

  it('disconnects from Redis', async () => {
    const redis = await startRedisServer();
    const gateway = await startTestGateway({ redis: { url: redis.url, seedAccessFile: 'always' } });
    const observer = new Redis(redis.url);
    try {
      const gatewayClients = async (): Promise<number> =>
        ((await observer.client('LIST')) as string).split('\n').filter((line) => / name=cbg-/.test(line)).length;
      expect(await gatewayClients()).toBeGreaterThan(0);
      await gateway.stop();
      await within(1000, async () => (await gatewayClients()) === 0);
    } finally {
      observer.disconnect();
      await redis.stop();
    }
  });
});
