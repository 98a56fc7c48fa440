/**
 * A whole gateway as a child process from the build (`node dist/main.js`, so `npm run build`
 * first), for tests that need what jest cannot load in process: single sign-on loads the ES
 * module openid-client, which Node allows a CommonJS program and jest's module loader does not.
 *
 * The config is config/test.yaml (NODE_ENV=test) plus the test's overrides, passed as
 * `GATEWAY__<section>__<key>` variables (each value as JSON, which the loader reads as YAML), on
 * loopback ports picked here before the start, since a test often needs the admin port in the
 * config itself (admin.oidc.redirectUrl). A port taken in between makes the start fail, and it is
 * tried again on other ports. `stop()` sends SIGTERM and waits for the exit.
 *
 * Reads PATH from the environment; spawns this process's own `node`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ConfigInput } from '../../src/config/config.schema';
import { TEST_ADMIN_TOKEN } from './config';
import { freePort } from './free-port';

const MAIN = path.join(__dirname, '../../dist/main.js');

export interface DistGateway {
  readonly adminPort: number;
  readonly statusPort: number;
  readonly vendorPort: number;
  readonly adminUrl: string;
  readonly statusUrl: string;
  /** What the gateway wrote to stdout and stderr so far (warnings and errors: log.level warn). */
  output(): string;
  stop(): Promise<void>;
}

/** The admin port the gateway will listen on, known before the config is written. */
type ConfigFor = (ports: { adminPort: number }) => ConfigInput;

/** `GATEWAY__a__b` = JSON of each leaf of `overrides` (lists are leaves). */
function configVariables(overrides: Record<string, unknown>, prefix = 'GATEWAY'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(overrides)) {
    const name = `${prefix}__${key}`;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) Object.assign(out, configVariables(value as Record<string, unknown>, name));
    else out[name] = JSON.stringify(value);
  }
  return out;
}

interface DistGatewayOptions {
  /** Variables the gateway gets besides its config (secrets: ADMIN_OIDC_CLIENT_SECRET, say). */
  readonly env?: Record<string, string>;
  /** The admin port, when the test had to know it before (a provider's registered redirect); never tried again. */
  readonly adminPort?: number;
}

export async function startDistGateway(configFor: ConfigFor, options: DistGatewayOptions = {}): Promise<DistGateway> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(configFor, options);
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE|address already in use|port .* in use/i.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(configFor: ConfigFor, { env = {}, adminPort: chosenAdminPort }: DistGatewayOptions): Promise<DistGateway> {
  const [adminPort, statusPort, vendorPort] = [chosenAdminPort ?? (await freePort()), await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PORT: String(vendorPort),
      ADMIN_PORT: String(adminPort),
      STATUS_PORT: String(statusPort),
      SANDBOX_PORT: '0',
      GATEWAY__server__host: '127.0.0.1',
      ...configVariables(configFor({ adminPort }) as Record<string, unknown>),
      ...env,
    },
  });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const statusUrl = `http://127.0.0.1:${statusPort}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway (dist/main.js) exited with ${child.exitCode}:\n${output.join('')}`);
    const ready = await fetch(`${statusUrl}/health/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the gateway (dist/main.js) was not ready within 30 s:\n${output.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  return {
    adminPort,
    statusPort,
    vendorPort,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    statusUrl,
    output: () => output.join(''),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
