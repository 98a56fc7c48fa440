/**
 * /openapi.json names the gateway's own URL in `servers`, as paging links do: server.publicUrl,
 * else the host a trusted proxy forwarded, else the listener's address; never the Host header a
 * client sent. Each origin gets its own bytes and so its own ETag. Real HTTP servers on loopback.
 */
import http from 'node:http';
import express from 'express';
import { createForwardedResolver, type ForwardedResolver } from '../core-client/forwarded';
import { GatewayError } from '../errors/error-catalogue';
import type { OpenApiDocument } from './openapi';
import { publicFileRoutes } from './public-file';
import { servedOpenApiDocument } from './served-document';

const document: OpenApiDocument = { openapi: '3.1.1', info: { title: 't', version: '1' }, servers: [{ url: '/' }], paths: {} };

interface Served {
  readonly port: number;
  get(headers?: Record<string, string>): Promise<{ url: string; etag: string; servers: number }>;
  close(): Promise<void>;
}

async function serve(config: { trustedProxies: string[]; publicUrl: string | null }): Promise<Served> {
  const app = express();
  app.use(publicFileRoutes([['/openapi.json', servedOpenApiDocument(document, createForwardedResolver(config))]]));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    // node:http rather than fetch, which would not send a Host header of the test's choosing.
    get: (headers = {}) =>
      new Promise((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/openapi.json', headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { servers: { url: string }[] };
              resolve({ url: body.servers[0]?.url ?? '', etag: String(res.headers.etag), servers: body.servers.length });
            });
          })
          .on('error', reject);
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the served OpenAPI document names the gateway in servers', () => {
  it('names server.publicUrl when it is set, whatever Host or forwarded host the request carries', async () => {
    const served = await serve({ trustedProxies: ['127.0.0.1'], publicUrl: 'https://api.bank.example' });
    try {
      expect(await served.get()).toMatchObject({ url: 'https://api.bank.example', servers: 1 });
      expect((await served.get({ Host: 'evil.example', 'X-Forwarded-Host': 'proxy.example' })).url).toBe('https://api.bank.example');
    } finally {
      await served.close();
    }
  });

  it("names the host and scheme a trusted proxy forwarded, and gives each origin's document its own ETag", async () => {
    const served = await serve({ trustedProxies: ['127.0.0.1'], publicUrl: null });
    try {
      const one = await served.get({ 'X-Forwarded-Host': 'gateway.bank.example', 'X-Forwarded-Proto': 'https' });
      const other = await served.get({ 'X-Forwarded-Host': 'sandbox.bank.example:8443', 'X-Forwarded-Proto': 'https' });
      const listener = await served.get();
      expect([one.url, other.url, listener.url]).toEqual([
        'https://gateway.bank.example',
        'https://sandbox.bank.example:8443',
        `http://127.0.0.1:${served.port}`,
      ]);
      expect(new Set([one.etag, other.etag, listener.etag]).size).toBe(3);
      // The same origin again: the same bytes, the same validator.
      expect((await served.get({ 'X-Forwarded-Host': 'gateway.bank.example', 'X-Forwarded-Proto': 'https' })).etag).toBe(one.etag);
      // More origins than are kept: each still right, and a dropped one comes back the same.
      for (let i = 0; i < 20; i++) expect((await served.get({ 'X-Forwarded-Host': `h${i}.bank.example` })).url).toBe(`http://h${i}.bank.example`);
      expect((await served.get({ 'X-Forwarded-Host': 'gateway.bank.example', 'X-Forwarded-Proto': 'https' })).etag).toBe(one.etag);
    } finally {
      await served.close();
    }
  });

  it("names the listener's address when no proxy is trusted: a client's Host or X-Forwarded-Host never appears", async () => {
    const served = await serve({ trustedProxies: [], publicUrl: null });
    try {
      const plain = await served.get();
      const spoofed = await served.get({ Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' });
      expect(plain.url).toBe(`http://127.0.0.1:${served.port}`);
      expect(spoofed).toEqual(plain);
    } finally {
      await served.close();
    }
  });

  it('builds no document for a client the public-file limit refuses: a proxy forwarding ever new hosts costs a refused client no serialisation', async () => {
    const resolve = createForwardedResolver({ trustedProxies: ['127.0.0.1'], publicUrl: null });
    let resolved = 0;
    const counted: ForwardedResolver = (req) => {
      resolved += 1;
      return resolve(req);
    };
    let refuse = false;
    const app = express();
    app.use(
      publicFileRoutes([['/openapi.json', servedOpenApiDocument(document, counted)]], async () =>
        refuse ? new GatewayError('rate_limited', 'Too many requests for the public files from this address.') : null,
      ),
    );
    app.use(((err, _req, res, _next) => res.status((err as GatewayError).status).end()) as express.ErrorRequestHandler);
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const statusFor = async (host: string): Promise<number> =>
        (await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'X-Forwarded-Host': host } })).status;
      expect(await statusFor('one.bank.example')).toBe(200);
      expect(resolved).toBe(1);
      refuse = true;
      expect([await statusFor('two.bank.example'), await statusFor('three.bank.example')]).toEqual([429, 429]);
      expect(resolved).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
