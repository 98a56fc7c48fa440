/**
 * `/ui-vendor/`: the admin port serves the allow-listed browser modules (once registered, under the
 * page's CSP) and nothing else of node_modules, whatever the path asks for.
 */
import path from 'node:path';
import request from 'supertest';
import { MemoryAccessStore, readAccessFile } from '../access/access-store';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback } from '../../test/support/listen';
import { createLogger } from '../logging/logger';
import { createAdminApp } from './admin-app';

const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');

describe('/ui-vendor/', () => {
  let close: () => Promise<void>;
  let api: ReturnType<typeof request>;

  beforeAll(async () => {
    const audit = new MemoryAuditLog();
    const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
    const app = createAdminApp({ service: accessServiceFor(store), audit, adminToken: 'admin-token-for-tests-0123456789', logger: createLogger('silent') });
    const listening = await listenOnLoopback(app);
    close = listening.close;
    api = request(listening.url);
  });
  afterAll(() => close());

  it.each([
    ['/ui-vendor/microdiff.js', /^text\/javascript/],
    ['/ui-vendor/uplot.esm.js', /^text\/javascript/],
    ['/ui-vendor/uplot.min.css', /^text\/css/],
  ])('serves %s with its type and the page CSP', async (url, type) => {
    const res = await api.get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it.each(['/ui-vendor/uplot.iife.js', '/ui-vendor/../package.json', '/ui-vendor/%2e%2e/%2e%2e/package.json', '/ui-vendor/microdiff/package.json'])(
    'serves nothing else: %s',
    async (url) => {
      const res = await api.get(url);
      expect(res.status).not.toBe(200);
      expect(res.text).not.toContain('"dependencies"');
    },
  );
});
