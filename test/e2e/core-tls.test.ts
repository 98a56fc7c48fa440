/**
 * Mutual TLS to the core: a core on loopback that requires a client certificate from a private
 * CA, and gateways configured with `core.tls.*`. Real certificates (openssl), real TLS.
 */
import { copyFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { TlsFileError } from '../../src/tls/pem-files';
import { testConfig } from '../support/config';
import { SANDBOX_KEYS } from '../support/gateway';
import { createTestCa, type TestCa } from '../support/tls-certs';
import { within } from '../support/within';

const KEY = { 'X-Vendor-Token': SANDBOX_KEYS.demo };
type Running = Awaited<ReturnType<typeof startGateway>>;

interface TlsCore {
  readonly url: string;
  readonly port: number;
  /** Common names of the client certificates of the requests the core answered. */
  readonly clients: string[];
  close(): Promise<void>;
}

async function startTlsCore(ca: TestCa, options: { maxVersion?: tls.SecureVersion } = {}): Promise<TlsCore> {
  const server = ca.issue('localhost', { dns: ['localhost'], ips: ['127.0.0.1'] });
  const clients: string[] = [];
  const core = https.createServer(
    {
      key: readFileSync(server.key),
      cert: readFileSync(server.cert),
      ca: readFileSync(ca.cert),
      requestCert: true,
      rejectUnauthorized: true,
      maxVersion: options.maxVersion,
    },
    (req, res) => {
      const peer = (req.socket as tls.TLSSocket).getPeerCertificate();
      clients.push(String(peer.subject?.CN ?? ''));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":1}');
    },
  );
  await new Promise<void>((resolve) => core.listen(0, '127.0.0.1', resolve));
  const { port } = core.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    clients,
    close: () =>
      new Promise((resolve) => {
        core.close(() => resolve());
        core.closeAllConnections();
      }),
  };
}

describe('mutual TLS to the core', () => {
  let ca: TestCa;
  let core: TlsCore;
  const gateways: Running[] = [];
  const logLines: string[] = [];

  async function start(coreTls: Record<string, unknown>, url = core.url): Promise<Running> {
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (logLines.push(chunk.toString()), done()) }));
    const gateway = await startGateway(testConfig({ core: { url, tls: coreTls } }), logger);
    gateways.push(gateway);
    return gateway;
  }
  const get = async (gateway: Running): Promise<{ status: number; body: string }> => {
    const res = await fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/1`, { headers: KEY });
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    ca = createTestCa();
    core = await startTlsCore(ca);
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await core.close();
  });
  beforeEach(() => {
    core.clients.length = 0;
  });

  it('serves vendor calls through a core that requires the client certificate of a private CA, and exports its expiry', async () => {
    const client = ca.issue('gateway-one', { client: true });
    const gateway = await start({ caFile: ca.cert, certFile: client.cert, keyFile: client.key, serverName: 'localhost' });
    expect((await get(gateway)).status).toBe(200);
    expect(core.clients).toEqual(['gateway-one']);
    const metrics = await (await fetch(`http://127.0.0.1:${gateway.statusPort}/metrics`)).text();
    const expiry = Number(/^gateway_tls_certificate_expiry_timestamp_seconds\{use="core_client"\} (\S+)$/m.exec(metrics)?.[1]);
    expect(expiry).toBeGreaterThan(Date.now() / 1000);
    expect(expiry).toBeLessThan(Date.now() / 1000 + 2 * 86_400);
  });

  it("exports the core CA's expiry as use core_ca: the soonest certificate of a CA bundle", async () => {
    // The long-lived CA first: the gauge must not be the first certificate's, but the one that lapses first.
    const longLived = createTestCa('cbg-long-ca', { days: 30 });
    const bundle = path.join(ca.dir, 'core-ca-bundle.pem');
    writeFileSync(bundle, Buffer.concat([readFileSync(longLived.cert), readFileSync(ca.cert)]));
    const client = ca.issue('gateway-ca-gauge', { client: true });
    const gateway = await start({ caFile: bundle, certFile: client.cert, keyFile: client.key, serverName: 'localhost' });
    expect((await get(gateway)).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${gateway.statusPort}/metrics`)).text();
    const gauge = (use: string): number =>
      Number(new RegExp(`^gateway_tls_certificate_expiry_timestamp_seconds\\{use="${use}"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    const expiry = (file: string): number => Math.floor(new Date(new X509Certificate(readFileSync(file)).validTo).getTime() / 1000);
    expect(gauge('core_ca')).toBe(expiry(ca.cert));
    expect(gauge('core_ca')).toBeLessThan(expiry(longLived.cert));
    expect(gauge('core_client')).toBe(expiry(client.cert));
  });

  it.each([
    ['without a client certificate', () => ({ caFile: ca.cert, serverName: 'localhost' })],
    ['without the private CA', () => ({})],
    ['checking another name than the certificate carries', () => ({ caFile: ca.cert, ...clientPair(), serverName: 'core.other.example' })],
  ])('answers 502 bad_gateway %s, shows no address, and the core serves nothing', async (_label, tlsConfig) => {
    const gateway = await start(tlsConfig());
    const answer = await get(gateway);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'bad_gateway' });
    expect(answer.body).not.toContain('127.0.0.1');
    expect(answer.body).not.toContain(String(core.port));
    expect(core.clients).toEqual([]);
  });

  function clientPair(): { certFile: string; keyFile: string } {
    const client = ca.issue('gateway-other', { client: true });
    return { certFile: client.cert, keyFile: client.key };
  }

  it('refuses a core below core.tls.minVersion (the core really offers TLS 1.2)', async () => {
    const old = await startTlsCore(ca, { maxVersion: 'TLSv1.2' });
    try {
      // The peer does speak TLS 1.2: a plain client gets through to it.
      const client = ca.issue('probe', { client: true });
      const version = await new Promise<string | null>((resolve, reject) => {
        const socket = tls.connect(
          {
            port: old.port,
            host: '127.0.0.1',
            servername: 'localhost',
            ca: readFileSync(ca.cert),
            cert: readFileSync(client.cert),
            key: readFileSync(client.key),
            maxVersion: 'TLSv1.2',
          },
          () => {
            resolve(socket.getProtocol());
            socket.destroy();
          },
        );
        socket.on('error', reject);
      });
      expect(version).toBe('TLSv1.2');
      const gateway = await start({ caFile: ca.cert, ...clientPair(), serverName: 'localhost', minVersion: 'TLSv1.3' }, old.url);
      expect((await get(gateway)).status).toBe(502);
      expect(old.clients).toEqual([]);
    } finally {
      await old.close();
    }
  });

  it('switches to a rotated client certificate within 5 s without a restart or a failed request, and keeps the last good pair when the new one is broken', async () => {
    const first = ca.issue('rotating-one', { client: true });
    const dir = path.dirname(first.cert);
    const certFile = path.join(dir, 'live.crt');
    const keyFile = path.join(dir, 'live.key');
    copyFileSync(first.cert, certFile);
    copyFileSync(first.key, keyFile);
    const gateway = await start({ caFile: ca.cert, certFile, keyFile, serverName: 'localhost' });
    expect((await get(gateway)).status).toBe(200);

    const statuses: number[] = [];
    let running = true;
    const traffic = (async () => {
      while (running) {
        statuses.push((await get(gateway)).status);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const second = ca.issue('rotating-two', { client: true });
    const rotatedAt = Date.now();
    // The key first, then the certificate: in between the pair does not match, and is not taken.
    copyFileSync(second.key, keyFile);
    copyFileSync(second.cert, certFile);
    const tookMs = await within(5000, () => core.clients.at(-1) === 'rotating-two');
    console.info(`client certificate rotation (files rewritten) seen by the core after ${Math.round(tookMs)} ms`);
    running = false;
    await traffic;
    expect(Date.now() - rotatedAt).toBeLessThan(5000);
    expect(tookMs).toBeLessThan(5000);
    expect(statuses.every((status) => status === 200)).toBe(true);

    // A half-written certificate: the last good pair stays in use, and the log says so.
    writeFileSync(certFile, readFileSync(second.cert, 'utf8').slice(0, 100));
    await within(5000, () => logLines.some((line) => line.includes('not a usable set')));
    core.clients.length = 0;
    expect((await get(gateway)).status).toBe(200);
    expect(core.clients).toEqual(['rotating-two']);
  });

  it('follows a Kubernetes Secret rotation: the ..data symlink swapped to a new folder', async () => {
    const root = path.dirname(ca.issue('placeholder', { client: true }).cert);
    const generation = (name: string, files: { cert: string; key: string }): string => {
      const dir = path.join(root, name);
      mkdirSync(dir);
      copyFileSync(files.cert, path.join(dir, 'tls.crt'));
      copyFileSync(files.key, path.join(dir, 'tls.key'));
      return dir;
    };
    const secret = path.join(root, 'secret');
    mkdirSync(secret);
    symlinkSync(generation('gen-1', ca.issue('symlink-one', { client: true })), path.join(secret, '..data'));
    symlinkSync('..data/tls.crt', path.join(secret, 'tls.crt'));
    symlinkSync('..data/tls.key', path.join(secret, 'tls.key'));
    const gateway = await start({ caFile: ca.cert, certFile: path.join(secret, 'tls.crt'), keyFile: path.join(secret, 'tls.key'), serverName: 'localhost' });
    expect((await get(gateway)).status).toBe(200);
    expect(core.clients.at(-1)).toBe('symlink-one');
    // What the kubelet does: a new folder, a new link beside the old one, then an atomic rename.
    const next = generation('gen-2', ca.issue('symlink-two', { client: true }));
    symlinkSync(next, path.join(secret, '..data_tmp'));
    renameSync(path.join(secret, '..data_tmp'), path.join(secret, '..data'));
    const tookMs = await within(5000, async () => {
      await get(gateway);
      return core.clients.at(-1) === 'symlink-two';
    });
    console.info(`client certificate rotation (symlink swap) seen by the core after ${Math.round(tookMs)} ms`);
  });

  it('refuses to start when a configured file cannot be read, naming the key', async () => {
    await expect(start({ caFile: '/nonexistent/ca.pem' })).rejects.toThrow(TlsFileError);
    await expect(start({ caFile: '/nonexistent/ca.pem' })).rejects.toThrow(/core\.tls\.caFile/);
  });
});
