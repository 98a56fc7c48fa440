/**
 * A whole gateway on a real Redis that speaks only TLS (certificate from a private CA made for
 * the test with openssl) and admits only an ACL user with a password: the gateway connects
 * with `redis.tls.caFile`, `redis.username` and `redis.password` (or credentials in a rediss://
 * URL), verifies the server's certificate, and refuses to start, without echoing the
 * password, when the credentials or the CA are wrong.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AccessDocument } from '../../src/access/model';
import { testKey, writeAccessFile } from '../support/access-fixture';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { askRedis, startRedisProcess, type RedisProcess } from '../support/redis-sentinel';
import { testTempDir } from '../support/temp-dir';

jest.setTimeout(60_000);

const USER = 'gateway';
const PASSWORD = 'tls-test-password-0f3c9a';
const teller = testKey('k-teller', 'teller');

function document(): AccessDocument {
  return {
    vendors: [{ id: 'acme', name: 'Acme', status: 'active', licences: [{ id: 'l', api: 'GET*' }], keys: [teller.record] }],
    users: [{ id: 'teller', permissions: [{ id: 'p', api: '*' }] }],
  };
}

/** A CA and a server certificate for `localhost`, in a fresh directory. */
function makeCertificates(): { dir: string; ca: string; cert: string; key: string } {
  const dir = testTempDir('cbg-tls-');
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-subj', '/CN=cbg-test-ca', '-days', '1');
  openssl('req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('san.ext'), 'subjectAltName=DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.crt'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.crt'),
    '-days',
    '1',
    '-extfile',
    file('san.ext'),
  );
  return { dir, ca: file('ca.crt'), cert: file('server.crt'), key: file('server.key') };
}

describe('a gateway on a TLS-only Redis with an ACL user', () => {
  let certs: ReturnType<typeof makeCertificates>;
  let redis: RedisProcess;
  let url: string;
  const accessFile = writeAccessFile(document());
  const started: TestGateway[] = [];

  beforeAll(async () => {
    certs = makeCertificates();
    const tls = { ca: readFileSync(certs.ca), servername: 'localhost' };
    redis = await startRedisProcess(
      (port) => [
        // Last one wins in redis.conf: no plain-text port at all.
        'port 0',
        `tls-port ${port}`,
        `tls-cert-file ${certs.cert}`,
        `tls-key-file ${certs.key}`,
        `tls-ca-cert-file ${certs.ca}`,
        'tls-auth-clients no',
        'user default off',
        `user ${USER} on >${PASSWORD} ~* &* +@all`,
      ],
      { ping: async (port) => (await askRedis(port, (c) => c.ping(), { tls, username: USER, password: PASSWORD })) === 'PONG' },
    );
    url = `rediss://127.0.0.1:${redis.port}`;
  });
  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    await redis?.stop();
    rmSync(certs.dir, { recursive: true, force: true });
  });

  async function start(redisConfig: Record<string, unknown>, expectFailure = false): Promise<TestGateway> {
    // A start that fails leaves the in-process sandbox core listening (startGateway opens it
    // first); a core URL that is never called keeps it from being opened.
    const core = expectFailure ? { url: 'http://127.0.0.1:1' } : {};
    const gateway = await startTestGateway({ redis: { seedAccessFile: 'always', ...redisConfig }, access: { file: accessFile }, core });
    started.push(gateway);
    return gateway;
  }

  async function vendorStatus(gateway: TestGateway): Promise<number> {
    const res = await fetch(`${gateway.url}/genders`, { headers: { 'X-Vendor-Token': teller.secret } });
    await res.arrayBuffer();
    return res.status;
  }

  it('connects with username and password from the config and a CA file', async () => {
    const gateway = await start({ url, username: USER, password: PASSWORD, keyPrefix: 'tls1:', tls: { caFile: certs.ca, serverName: 'localhost' } });
    expect(await vendorStatus(gateway)).toBe(200);
    const health = (await (await fetch(`${gateway.statusUrl}/health/ready`)).json()) as { redis?: { up: boolean } };
    expect(health.redis?.up).toBe(true);
  });

  it('connects with the credentials in the rediss:// URL', async () => {
    const withCredentials = url.replace('rediss://', `rediss://${USER}:${PASSWORD}@`);
    const gateway = await start({ url: withCredentials, keyPrefix: 'tls2:', tls: { caFile: certs.ca, serverName: 'localhost' } });
    expect(await vendorStatus(gateway)).toBe(200);
  });

  it('refuses to start with a wrong password, and does not print it', async () => {
    const wrong = 'wrong-password-7d1e44';
    const failure = start({ url, username: USER, password: wrong, tls: { caFile: certs.ca, serverName: 'localhost' } }, true);
    await expect(failure).rejects.toThrow(/not reachable/);
    await expect(failure).rejects.not.toThrow(new RegExp(wrong));
  });

  it('refuses a server whose certificate no trusted CA signed', async () => {
    await expect(start({ url, username: USER, password: PASSWORD, tls: { serverName: 'localhost' } }, true)).rejects.toThrow(/not reachable/);
  });
});
