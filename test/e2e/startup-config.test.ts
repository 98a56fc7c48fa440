/**
 * The process itself on a bad configuration or any other start-up failure (one family,
 * StartupError): `src/main.ts` exits 2 with one message naming every bad key, rules across keys
 * included, or the file or port to fix, and no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

function start(env: Record<string, string>): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    // No NODE_ENV: config/test.yaml would supply a pepper.
    env: { PATH: process.env.PATH ?? '', PORT: '0', ADMIN_PORT: '0', STATUS_PORT: '0', SANDBOX_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stderr: result.stderr };
}

// Each case starts a process through tsx (up to 30 s on a loaded machine), one case two.
jest.setTimeout(70_000);

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
    const sandboxFile = start({
      CORE_URL: 'http://127.0.0.1:1',
      ADMIN_TOKEN: 'startup-test-admin-token-01',
      GATEWAY__sms__provider: 'http',
      GATEWAY__sms__http__url: 'http://127.0.0.1:1/sms',
      GATEWAY__sms__http__bearerToken: 'sms-token-for-the-test',
    });
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

  it('exits 2 naming every problem of a config with several at once: a bad value, and rules across keys', () => {
    const { status, stderr } = start({ PORT: 'eighty', REDIS_URL: 'redis://127.0.0.1:1', LOG_LEVEL: 'loud' });
    expect(status).toBe(2);
    expect(stderr).toMatch(/^core-banking-gateway: invalid configuration/);
    for (const key of ['server.port', 'log.level', 'admin.token', 'twoFactor.pepper']) expect(stderr).toContain(`  ${key}: `);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 naming the receipt enumerations file when it is invalid, without a stack trace', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cbg-enums-')), 'receipt-enums.yaml');
    writeFileSync(file, 'AWReceiptType: [{value: one, name: Cash}]\n');
    const { status, stderr } = start({ GATEWAY__body__receiptEnumsFile: file });
    expect(status).toBe(2);
    expect(stderr).toContain(`${file}: invalid receipt enumerations`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 naming the access file when it cannot be read', () => {
    const { status, stderr } = start({ ACCESS_FILE: '/nonexistent/access.yaml' });
    expect(status).toBe(2);
    expect(stderr).toMatch(/access\.file \(ACCESS_FILE\) \/nonexistent\/access\.yaml cannot be read: ENOENT/);
  });

  it('exits 2 naming the address when the vendor port is taken', async () => {
    const holder = await holdPort();
    try {
      const port = (holder.address() as AddressInfo).port;
      const { status, stderr } = start({ PORT: String(port), GATEWAY__server__host: '127.0.0.1' });
      expect(status).toBe(2);
      expect(stderr).toContain(`server.port (PORT): cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      holder.close();
    }
  });

  it('exits 2 naming twoFactor.pepper when Redis is configured without one', () => {
    const { status, stderr } = start({ REDIS_URL: 'redis://127.0.0.1:1', ADMIN_TOKEN: 'startup-test-admin-token-01' });
    expect(status).toBe(2);
    expect(stderr).toContain('twoFactor.pepper');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

/** A port held by this test process, on loopback. */
function holdPort(): Promise<Server> {
  const server = createServer();
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
