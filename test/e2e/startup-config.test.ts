/**
 * The process itself on a bad configuration: `src/main.ts` exits 2 with one message naming
 * every bad key, rules across keys included, and no stack trace.
 */
import { spawnSync } from 'node:child_process';

function start(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    // No NODE_ENV: config/test.yaml would supply a pepper.
    env: { PATH: process.env.PATH ?? '', PORT: '0', ADMIN_PORT: '0', STATUS_PORT: '0', SANDBOX_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr };
}

describe('start-up on an invalid configuration', () => {
  it('exits 2 with "invalid configuration" naming every key a cross-key rule involves, without a stack trace', () => {
    const { status, stderr } = start({
      GATEWAY__idempotency__inFlightTimeoutMs: '5000',
      GATEWAY__core__passHeaders: '[X-Vendor-Token]',
      GATEWAY__server__headersTimeoutMs: '40000',
    });
    expect(status).toBe(2);
    expect(stderr).toMatch(/^core-banking-gateway: invalid configuration/);
    for (const key of ['idempotency.inFlightTimeoutMs', 'core.passHeaders.0', 'server.headersTimeoutMs']) expect(stderr).toContain(key);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses the published sandbox access file with a real core (exit 2, naming ACCESS_FILE), and the outbox SMS provider (naming sms.provider)', () => {
    const sandboxFile = start({ CORE_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: 'startup-test-admin-token-01', GATEWAY__sms__provider: 'http', GATEWAY__sms__http__url: 'http://127.0.0.1:1/sms', GATEWAY__sms__http__bearerToken: 'sms-token-for-the-test' });
    expect(sandboxFile.status).toBe(2);
    expect(sandboxFile.stderr).toMatch(/ACCESS_FILE.*sandbox/);
    const outbox = start({ CORE_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: 'startup-test-admin-token-01' });
    expect(outbox.status).toBe(2);
    expect(outbox.stderr).toContain('sms.provider');
  });

  it('exits 2 naming the TLS key whose file cannot be read, without a stack trace', () => {
    const { status, stderr } = start({ GATEWAY__server__tls__certFile: '/nonexistent/server.crt', GATEWAY__server__tls__keyFile: '/nonexistent/server.key' });
    expect(status).toBe(2);
    expect(stderr).toMatch(/server\.tls\.certFile: cannot read/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 naming twoFactor.pepper when Redis is configured without one', () => {
    const { status, stderr } = start({ REDIS_URL: 'redis://127.0.0.1:1', ADMIN_TOKEN: 'startup-test-admin-token-01' });
    expect(status).toBe(2);
    expect(stderr).toContain('twoFactor.pepper');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
