/**
 * The soak's processes: the standalone sandbox core (dist/sandbox/main.js) and the gateway
 * instances (dist/main.js, with the image's node flags), each a child process on fixed loopback
 * ports chosen once, so that a restarted process comes back where the load and the probes
 * already point. Redis is test/support's redis-server (no persistence: a restart comes back empty).
 *
 * Reads nothing but what it is given; sets each child's environment from scratch (PATH and HOME
 * only from this process, so a variable of the caller's shell cannot change the gateway's
 * config); appends each child's stdout and stderr to <out>/<name>.log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { imageNodeOptions } from '../servers/image-node-options';

const ROOT = path.resolve(__dirname, '..', '..');
/** A child that does not exit within this after SIGTERM is killed. */
const STOP_GRACE_MS = 30_000;
const START_TIMEOUT_MS = 60_000;

interface Lifecycle {
  readonly at: number;
  readonly event: 'started' | 'exited';
  readonly detail: string;
}

/** One long-lived role (instance A, the core…) played by successive processes on the same ports. */
export class ChildRole {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  readonly history: Lifecycle[] = [];
  incarnation = 0;

  constructor(
    readonly name: string,
    private readonly argv: readonly string[],
    private readonly env: Readonly<Record<string, string>>,
    private readonly logFile: string,
    /** Answers true once the process serves (polled every 100 ms after spawning). */
    private readonly isUp: () => Promise<boolean>,
  ) {}

  get pid(): number | null {
    return this.running ? (this.child?.pid ?? null) : null;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and waits until it serves; a process that exits first is an error. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const log = openSync(this.logFile, 'a');
    const child = spawn(process.execPath, [...this.argv], { cwd: ROOT, env: { ...this.env }, stdio: ['ignore', log, log] });
    closeSync(log);
    this.child = child;
    this.incarnation += 1;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.history.push({ at: Date.now(), event: 'exited', detail: signal ?? `code ${code}` });
        resolve();
      }),
    );
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${this.name} exited while starting (${child.signalCode ?? child.exitCode}); see ${this.logFile}`);
      if (await this.isUp().catch(() => false)) {
        this.history.push({ at: Date.now(), event: 'started', detail: `pid ${child.pid}` });
        return;
      }
      await sleep(100);
    }
    child.kill('SIGKILL');
    throw new Error(`${this.name} did not come up within ${START_TIMEOUT_MS / 1000} s; see ${this.logFile}`);
  }

  /** Sends the signal and waits for the exit; SIGKILL follows if SIGTERM is not enough. */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** GET on loopback with a short timeout: true for a 2xx. */
async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await res.arrayBuffer();
  return res.ok;
}

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
}

export function sandboxCore(port: number, out: string): ChildRole {
  const env = { ...baseEnv(), NODE_ENV: 'production', SANDBOX_PORT: String(port), LOG_LEVEL: 'warn' };
  return new ChildRole('core', [path.join(ROOT, 'dist', 'sandbox', 'main.js')], env, path.join(out, 'core.log'), () =>
    answers(`http://127.0.0.1:${port}/accounts/50001`),
  );
}

export interface GatewayPorts {
  readonly vendor: number;
  readonly admin: number;
  readonly status: number;
}

interface GatewaySettings {
  readonly redisUrl: string;
  readonly coreUrl: string;
  readonly accessFile: string;
  readonly adminToken: string;
  readonly pepper: string;
  readonly logLevel: string;
  readonly dataLossHoldSeconds: number;
  readonly lameDuckMs: number;
}

/**
 * One gateway instance as a deployment runs it, in front of the standalone sandbox core: the
 * core counts as a real one (CORE_URL), so the sandbox access file and the outbox SMS provider
 * need `sandbox.allowWithRealCore` (a test rig, which this is), and an empty Redis is seeded from
 * the access file only with `seedAccessFile: always`. The soak's load balancer polls readiness
 * every second, so a lame duck of a few seconds lets it stop sending before the listener closes,
 * as a preStop sleep does on Kubernetes.
 */
export function gatewayInstance(name: string, ports: GatewayPorts, settings: GatewaySettings, out: string): ChildRole {
  const env = {
    ...baseEnv(),
    NODE_ENV: 'production',
    PORT: String(ports.vendor),
    ADMIN_PORT: String(ports.admin),
    STATUS_PORT: String(ports.status),
    REDIS_URL: settings.redisUrl,
    CORE_URL: settings.coreUrl,
    ACCESS_FILE: settings.accessFile,
    ADMIN_TOKEN: settings.adminToken,
    LOG_LEVEL: settings.logLevel,
    GATEWAY__server__host: '127.0.0.1',
    GATEWAY__twoFactor__pepper: settings.pepper,
    GATEWAY__sandbox__allowWithRealCore: 'true',
    GATEWAY__redis__seedAccessFile: 'always',
    GATEWAY__redis__dataLossHoldSeconds: String(settings.dataLossHoldSeconds),
    // The hold may not be shorter than the records it stands in for; the soak's retries all fall within it.
    GATEWAY__idempotency__retentionSeconds: String(settings.dataLossHoldSeconds),
    GATEWAY__rateLimit__expectedInstances: '2',
    GATEWAY__shutdown__lameDuckMs: String(settings.lameDuckMs),
  };
  const argv = [...imageNodeOptions(), path.join(ROOT, 'dist', 'main.js')];
  return new ChildRole(name, argv, env, path.join(out, `gateway-${name}.log`), () => answers(`http://127.0.0.1:${ports.status}/health/live`));
}
