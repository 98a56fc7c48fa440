/**
 * HTTPS on the vendor and admin ports, client-certificate modes, and certificate-bound keys
 * (RFC 8705 style), with real certificates (openssl) and real TLS clients. Also the boundary's
 * framing refusals over TLS, and the ingress header that carries a certificate, believed only
 * from trusted proxies.
 */
import { X509Certificate } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import https from 'node:https';
import tls from 'node:tls';
import { certificateThumbprint } from '../../src/tls/pem-files';
import { type IssuedTestKey, testKey, testVendor, writeAccessFile } from '../support/access-fixture';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { createTestCa, type CertificateFiles, type TestCa } from '../support/tls-certs';
import { within } from '../support/within';

interface Answer {
  readonly status: number;
  readonly body: string;
}

function thumbprintOf(files: CertificateFiles): string {
  return certificateThumbprint(new X509Certificate(readFileSync(files.cert)).raw);
}

describe('TLS on the vendor and admin ports', () => {
  let serverCa: TestCa;
  let vendorCa: TestCa;
  let strangerCa: TestCa;
  let server: CertificateFiles;
  let clientA: CertificateFiles;
  let clientB: CertificateFiles;
  let stranger: CertificateFiles;
  let core: EchoCore;
  let free: IssuedTestKey;
  let bound: IssuedTestKey;
  let accessFile: string;
  const gateways: TestGateway[] = [];

  /** A GET over HTTPS trusting the server CA, with `client` as the client certificate if given. */
  function httpsGet(port: number, path: string, key: string, client?: CertificateFiles, headers: Record<string, string> = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port,
          path,
          servername: 'localhost',
          ca: readFileSync(serverCa.cert),
          ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
          headers: { 'X-Vendor-Token': key, ...headers },
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  async function start(overrides: Record<string, unknown>): Promise<TestGateway> {
    const gateway = await startTestGateway({ core: { url: core.url }, access: { file: accessFile }, ...overrides });
    gateways.push(gateway);
    return gateway;
  }
  const serverTls = (mode: 'off' | 'optional' | 'required'): Record<string, unknown> => ({
    server: { tls: { certFile: server.cert, keyFile: server.key, ...(mode === 'off' ? {} : { clientCaFile: vendorCa.cert, clientCertificate: mode }) } },
  });

  beforeAll(async () => {
    serverCa = createTestCa('server-ca');
    vendorCa = createTestCa('vendor-ca');
    strangerCa = createTestCa('stranger-ca');
    server = serverCa.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
    clientA = vendorCa.issue('vendor-a', { client: true });
    clientB = vendorCa.issue('vendor-b', { client: true });
    stranger = strangerCa.issue('vendor-a', { client: true });
    free = testKey('k-free', 'teller');
    bound = testKey('k-bound', 'teller', { certificateThumbprints: [thumbprintOf(clientA)] });
    accessFile = writeAccessFile({
      vendors: [testVendor({ id: 'acme', name: 'Acme', points: 1000, licences: [{ id: 'l', api: 'GET*' }], keys: [free.record, bound.record] })],
      users: [{ id: 'teller', permissions: [{ id: 'p', api: '*' }] }],
    });
    core = await startEchoCore();
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
  });

  it('serves HTTPS with no client certificate asked (off), and nothing in plain HTTP on that port', async () => {
    const gateway = await start(serverTls('off'));
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', free.secret)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/1`, { headers: { 'X-Vendor-Token': free.secret } })).rejects.toThrow();
  });

  it('with required client certificates: refuses a vendor without one, or with an unknown or expired one, serves one from clientCaFile', async () => {
    const gateway = await start(serverTls('required'));
    await expect(httpsGet(gateway.vendorPort, '/accounts/1', free.secret)).rejects.toThrow();
    await expect(httpsGet(gateway.vendorPort, '/accounts/1', free.secret, stranger)).rejects.toThrow();
    await expect(httpsGet(gateway.vendorPort, '/accounts/1', free.secret, vendorCa.issueExpired('vendor-expired'))).rejects.toThrow();
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', free.secret, clientA)).status).toBe(200);
  });

  it('with optional client certificates: serves a vendor without one, refuses one from an unknown CA or an expired one', async () => {
    const gateway = await start(serverTls('optional'));
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', free.secret)).status).toBe(200);
    await expect(httpsGet(gateway.vendorPort, '/accounts/1', free.secret, stranger)).rejects.toThrow();
    await expect(httpsGet(gateway.vendorPort, '/accounts/1', free.secret, vendorCa.issueExpired('vendor-expired-optional'))).rejects.toThrow();
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', free.secret, clientB)).status).toBe(200);
  });

  it('lets a bound key work only with its certificate (401 with another or none, counted as certificate_mismatch), and rebinds it without re-issuing', async () => {
    const gateway = await start(serverTls('optional'));
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', bound.secret, clientA)).status).toBe(200);
    const other = await httpsGet(gateway.vendorPort, '/accounts/1', bound.secret, clientB);
    const none = await httpsGet(gateway.vendorPort, '/accounts/1', bound.secret);
    expect([other.status, none.status]).toEqual([401, 401]);
    expect(JSON.parse(other.body)).toMatchObject({ code: 'unauthorized' });
    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(/^gateway_auth_failures_total\{reason="certificate_mismatch"\} (\S+)$/m.exec(metrics)?.[1]).toBe('2');

    const rebind = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/keys/k-bound`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ certificateThumbprints: [thumbprintOf(clientB)] }),
    });
    expect(rebind.status).toBe(200);
    expect(((await rebind.json()) as { certificateThumbprints: string[] }).certificateThumbprints).toEqual([thumbprintOf(clientB)]);
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', bound.secret, clientB)).status).toBe(200);
    expect((await httpsGet(gateway.vendorPort, '/accounts/1', bound.secret, clientA)).status).toBe(401);
    const audit = (await (
      await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/audit`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    ).json()) as Array<{ action: string }>;
    expect(audit.map((entry) => entry.action)).toContain('key.update');
  });

  it('believes the ingress certificate header only from a trusted proxy: a forged one binds nothing', async () => {
    const pem = encodeURIComponent(readFileSync(clientA.cert, 'utf8'));
    const trusting = await start({ server: { trustedProxies: ['127.0.0.0/8'], clientCertificateHeader: 'ssl-client-cert' } });
    const distrusting = await start({ server: { trustedProxies: ['10.0.0.0/8'], clientCertificateHeader: 'ssl-client-cert' } });
    const viaIngress = await fetch(`${trusting.url}/accounts/1`, { headers: { 'X-Vendor-Token': bound.secret, 'ssl-client-cert': pem } });
    const forged = await fetch(`${distrusting.url}/accounts/1`, { headers: { 'X-Vendor-Token': bound.secret, 'ssl-client-cert': pem } });
    expect([viaIngress.status, forged.status]).toEqual([200, 401]);
  });

  it('refuses smuggling framing over TLS as over plain HTTP', async () => {
    const gateway = await start(serverTls('off'));
    const smuggled = 'POST /api/transaction/savings/deposit HTTP/1.1\r\nHost: core\r\nContent-Length: 2\r\n\r\n{}';
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: gateway.vendorPort, servername: 'localhost', ca: readFileSync(serverCa.cert) }, () => {
        socket.write(
          `GET /accounts/1 HTTP/1.1\r\nHost: x\r\nX-Vendor-Token: ${free.secret}\r\nConnection: Content-Length\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(core.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('serves a rotated certificate on the vendor port to new connections, without a restart', async () => {
    const first = serverCa.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
    const dir = path.dirname(first.cert);
    const certFile = path.join(dir, 'vendor-port.crt');
    const keyFile = path.join(dir, 'vendor-port.key');
    copyFileSync(first.cert, certFile);
    copyFileSync(first.key, keyFile);
    const gateway = await start({ server: { tls: { certFile, keyFile } } });
    const servedSerial = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: gateway.vendorPort, servername: 'localhost', ca: readFileSync(serverCa.cert) }, () => {
          resolve(socket.getPeerCertificate().serialNumber);
          socket.destroy();
        });
        socket.on('error', reject);
      });
    const before = await servedSerial();
    const second = serverCa.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
    copyFileSync(second.key, keyFile);
    copyFileSync(second.cert, certFile);
    await within(5000, async () => (await servedSerial()) !== before);
    expect(await servedSerial()).toBe(new X509Certificate(readFileSync(second.cert)).serialNumber);
  });

  it('serves the admin API over HTTPS with admin.tls, and exports every served certificate expiry', async () => {
    const gateway = await start({ ...serverTls('off'), admin: { tls: { certFile: server.cert, keyFile: server.key } } });
    const answer = await new Promise<number>((resolve, reject) => {
      https
        .get(
          {
            host: '127.0.0.1',
            port: gateway.adminPort,
            path: '/v1/apis',
            servername: 'localhost',
            ca: readFileSync(serverCa.cert),
            headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
            agent: false,
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        )
        .on('error', reject);
    });
    expect(answer).toBe(200);
    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    for (const use of ['server', 'admin']) expect(metrics).toMatch(new RegExp(`^gateway_tls_certificate_expiry_timestamp_seconds\\{use="${use}"\\} \\d+`, 'm'));
  });
});
