import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { stringify as toYaml } from 'yaml';
import { isWellFormedApiKey } from '../access/api-key';
import { AccessIndex } from '../access/access-index';
import { MemoryAccessStore, readAccessFile, readDocument } from '../access/access-store';
import { accessServiceFor, storedForm } from '../../test/support/access-service';
import { createLogger } from '../logging/logger';
import { createAdminApp } from './admin-app';
import { AuthThrottle } from './auth-throttle';
import { type AuditEntry, type AuditLog } from '../access/audit-log';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { listenOnLoopback } from '../../test/support/listen';

const TOKEN = 'admin-token-for-tests-0123456789';
const auth = { Authorization: `Bearer ${TOKEN}` };
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');

interface Harness {
  readonly url: string;
  readonly store: MemoryAccessStore;
  readonly audit: AuditLog;
  close(): Promise<void>;
}

async function listen(store: MemoryAccessStore, audit: AuditLog): Promise<{ url: string; close(): Promise<void> }> {
  const app = createAdminApp({ service: accessServiceFor(store), audit, adminToken: TOKEN, logger: createLogger('silent') });
  return listenOnLoopback(app);
}

async function startAdmin(audit: AuditLog = new MemoryAuditLog()): Promise<Harness> {
  const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
  const { url, close } = await listen(store, audit);
  return { url, store, audit, close };
}

function expectProblem(res: request.Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, type: `https://errors.core-banking-gateway.dev/${code}` });
  expect(typeof res.body.requestId).toBe('string');
}

const fields = (res: request.Response): string[] => (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();

describe('admin API', () => {
  let admin: Harness;
  let api: ReturnType<typeof request>;

  beforeEach(async () => {
    admin = await startAdmin();
    api = request(admin.url);
  });
  afterEach(() => admin.close());

  describe('authentication', () => {
    it.each([
      ['no Authorization header', {}],
      ['a wrong token', { Authorization: 'Bearer not-the-token' }],
      ['the token with another scheme', { Authorization: `Basic ${TOKEN}` }],
      ['a prefix of the token', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ])('answers 401 unauthorized to %s', async (_what, headers) => {
      const res = await api.get('/v1/vendors').set(headers);

      expectProblem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(res.text).not.toContain(TOKEN);
    });

    it('answers 401 before saying whether a route exists', async () => {
      expectProblem(await api.get('/v1/nothing-here'), 401, 'unauthorized');
    });

    it('answers an unknown route with a 404 problem and a wrong method with 405 and Allow', async () => {
      expectProblem(await api.get('/v1/nothing-here').set(auth), 404, 'not_found');
      expectProblem(await api.get('/no-such-page').set(auth), 404, 'not_found');
      const wrongMethod = await api.put('/v1/vendors').set(auth).send({});
      expectProblem(wrongMethod, 405, 'method_not_allowed');
      expect(wrongMethod.headers.allow).toBe('GET, POST');
    });

    it('counts only wrong tokens against an address: past five they wait (429, doubling), a right token still passes, no token is a plain 401; logs no token', async () => {
      const lines: string[] = [];
      const failures: number[] = [];
      const app = createAdminApp({
        service: accessServiceFor(admin.store),
        audit: admin.audit,
        adminToken: TOKEN,
        logger: createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) })),
        throttle: new AuthThrottle({ freeFailures: 5, maxBackoffMs: 60_000 }),
        onAuthFailure: () => failures.push(1),
      });
      const guarded = await listenOnLoopback(app);
      try {
        const wrong = { Authorization: 'Bearer a-wrong-admin-token-000000' };
        // Requests with no credential at all never count, however many.
        for (let i = 0; i < 10; i++) expectProblem(await request(guarded.url).get('/v1/vendors'), 401, 'unauthorized');
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await request(guarded.url).get('/v1/vendors').set(wrong)).status);
        expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
        const waiting = await request(guarded.url).get('/v1/vendors').set(wrong);
        expectProblem(waiting, 429, 'rate_limited');
        expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        // The right token passes from the same address, and leaves the back-off as it was.
        expect((await request(guarded.url).get('/v1/vendors').set(auth)).status).toBe(200);
        expectProblem(await request(guarded.url).get('/v1/vendors').set(wrong), 429, 'rate_limited');
        expectProblem(await request(guarded.url).get('/v1/vendors'), 401, 'unauthorized');
        expect(failures).toHaveLength(10 + 6 + 1 + 1 + 1);
        const logged = lines.filter((line) => line.includes('"msg":"admin request"'));
        expect(logged).toHaveLength(20);
        expect(logged[10]).toMatch(/"method":"GET","path":"\/v1\/vendors","status":401,"actor":"anonymous"/);
        expect(lines.join('')).not.toContain('a-wrong-admin-token');
        expect(lines.join('')).not.toContain(TOKEN);
      } finally {
        await guarded.close();
      }
    });

    it('audits every read of the whole access document, and refuses the read when the audit log cannot record it', async () => {
      expect((await api.get('/v1/access').set(auth)).status).toBe(200);
      expect((await admin.audit.list({ limit: 5 }))[0]).toMatchObject({ action: 'access.read', target: 'access', actor: expect.stringMatching(/^admin:/) });
      const broken = await startAdmin({ append: () => Promise.reject(new Error('audit down')), list: () => Promise.resolve([]) } as unknown as AuditLog);
      try {
        expectProblem(await request(broken.url).get('/v1/access').set(auth), 503, 'store_unavailable');
      } finally {
        await broken.close();
      }
    });

    it('sends no X-Powered-By and forbids caching', async () => {
      const res = await api.get('/v1/vendors').set(auth);

      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  it('lists the API catalogue', async () => {
    const res = await api.get('/v1/apis').set(auth);

    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({ apiId: 'GETaccounts/{accountId}', method: 'GET', path: 'accounts/{accountId}', group: 'resources' });
    expect(res.body).toContainEqual(expect.objectContaining({ apiId: 'POSTapi/transaction/savings/deposit', group: 'receipts' }));
  });

  describe('vendors', () => {
    it('lists vendors with their keys shown by prefix, without hashes', async () => {
      const res = await api.get('/v1/vendors').set(auth);

      expect(res.status).toBe(200);
      expect(res.body.map((v: { id: string }) => v.id)).toEqual(['demo-vendor', 'readonly-partner']);
      expect(res.body[0].keys[0]).toMatchObject({ id: 'key-demo-sandbox', prefix: 'cbk_5fd3cTg5', status: 'active' });
      expect(res.text).not.toContain('sha256:');
    });

    it('creates a vendor (201 with Location), reads, updates and deletes it', async () => {
      const created = await api
        .post('/v1/vendors')
        .set(auth)
        .send({ id: 'acme', name: 'Acme Ltd', rateLimit: { points: 100, durationSeconds: 60 }, licences: [{ api: 'GET*' }] });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe('/v1/vendors/acme');
      expect(created.body).toMatchObject({ id: 'acme', name: 'Acme Ltd', status: 'active', keys: [], licences: [{ api: 'GET*' }] });
      expect(created.body.licences[0].id).toMatch(/^lic-/);

      const read = await api.get('/v1/vendors/acme').set(auth);
      expect(read.status).toBe(200);
      // A read adds the limit in force; here the vendor's own.
      expect(read.body).toEqual({ ...created.body, effectiveRateLimit: { points: 100, durationSeconds: 60, source: 'vendor' } });

      const patched = await api.patch('/v1/vendors/acme').set(auth).send({ status: 'suspended', name: 'Acme plc' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: 'acme', name: 'Acme plc', status: 'suspended' });

      const deleted = await api.delete('/v1/vendors/acme').set(auth);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expectProblem(await api.get('/v1/vendors/acme').set(auth), 404, 'not_found');
    });

    it('reads a vendor without a rate limit of its own with the gateway default in force, in one vendor and the list', async () => {
      await api.post('/v1/vendors').set(auth).send({ id: 'plain', name: 'Plain Ltd' });

      const read = await api.get('/v1/vendors/plain').set(auth);
      expect(read.body.rateLimit).toBeUndefined();
      expect(read.body.effectiveRateLimit).toEqual({ points: 600, durationSeconds: 60, source: 'default' });
      const listed = (await api.get('/v1/vendors').set(auth)).body.find((v: { id: string }) => v.id === 'plain');
      expect(listed.effectiveRateLimit).toEqual({ points: 600, durationSeconds: 60, source: 'default' });
    });

    it('deletes a vendor with its keys and licences in one audited change; its users keep their permissions', async () => {
      await api
        .post('/v1/vendors')
        .set(auth)
        .send({ id: 'gone', name: 'Gone Ltd', licences: [{ id: 'lic-gone', api: 'GET*' }] });
      const key = await api.post('/v1/vendors/gone/keys').set(auth).send({ userId: 'demo.teller' });
      expect(key.status).toBe(201);

      expect((await api.delete('/v1/vendors/gone').set(auth)).status).toBe(204);

      expectProblem(await api.get('/v1/vendors/gone').set(auth), 404, 'not_found');
      // The key went with it: there is nothing left to revoke.
      expectProblem(await api.delete(`/v1/keys/${key.body.id}`).set(auth), 404, 'not_found');
      expect((await api.get('/v1/users/demo.teller/permissions').set(auth)).body.length).toBeGreaterThan(0);
      const [entry] = await admin.audit.list({ limit: 1 });
      expect(entry).toMatchObject({ action: 'vendor.delete', target: 'vendors/gone', after: null, before: { id: 'gone', licences: [{ id: 'lic-gone' }] } });
      expect(JSON.stringify(entry)).not.toContain(key.body.secret);
    });

    it('answers 409 conflict to a vendor id that exists', async () => {
      const res = await api.post('/v1/vendors').set(auth).send({ id: 'demo-vendor', name: 'Impostor' });

      expectProblem(res, 409, 'conflict');
      expect(res.body.detail).toContain('demo-vendor');
    });

    it('names each bad field of a vendor body', async () => {
      const res = await api
        .post('/v1/vendors')
        .set(auth)
        .send({ id: 'has space', status: 'sleeping', rateLimit: { points: -1, durationSeconds: 1 }, keys: [] });

      expectProblem(res, 400, 'invalid_request');
      expect(fields(res)).toEqual(['id', 'keys', 'name', 'rateLimit.points', 'status']);
    });

    it('names the fields of a bad patch, and refuses an empty one', async () => {
      const bad = await api.patch('/v1/vendors/demo-vendor').set(auth).send({ status: 'gone', id: 'renamed' });
      expectProblem(bad, 400, 'invalid_request');
      expect(fields(bad)).toEqual(['id', 'status']);

      expectProblem(await api.patch('/v1/vendors/demo-vendor').set(auth).send({}), 400, 'invalid_request');
    });

    it('answers 400 to a body that is not JSON and 415 to another media type', async () => {
      expectProblem(await api.post('/v1/vendors').set(auth).set('Content-Type', 'application/json').send('{"id":'), 400, 'invalid_request');
      expectProblem(await api.post('/v1/vendors').set(auth).set('Content-Type', 'text/plain').send('id=acme'), 415, 'unsupported_media_type');
    });

    it('answers 404 for an unknown vendor on every vendor route', async () => {
      const responses = await Promise.all([
        api.get('/v1/vendors/ghost').set(auth),
        api.patch('/v1/vendors/ghost').set(auth).send({ name: 'Ghost' }),
        api.delete('/v1/vendors/ghost').set(auth),
        api.get('/v1/vendors/ghost/keys').set(auth),
        api.post('/v1/vendors/ghost/keys').set(auth).send({ userId: 'teller' }),
        api.get('/v1/vendors/ghost/licences').set(auth),
        api.post('/v1/vendors/ghost/licences').set(auth).send({ api: 'GET*' }),
        api.delete('/v1/vendors/ghost/licences/lic-demo-read').set(auth),
        api.put('/v1/vendors/ghost/rate-limit').set(auth).send({ points: 1, durationSeconds: 1 }),
      ]);
      for (const res of responses) expectProblem(res, 404, 'not_found');
    });
  });

  describe('keys', () => {
    it('issues a key whose secret is shown once and works, and lists it by prefix', async () => {
      const issued = await api.post('/v1/vendors/demo-vendor/keys').set(auth).send({ userId: 'demo.teller', expiresAt: '2099-01-01T00:00:00Z' });

      expect(issued.status).toBe(201);
      expect(issued.headers.location).toBe(`/v1/keys/${issued.body.id}`);
      const secret: string = issued.body.secret;
      expect(isWellFormedApiKey(secret)).toBe(true);
      expect(issued.body).toMatchObject({ prefix: secret.slice(0, 12), userId: 'demo.teller', status: 'active', expiresAt: '2099-01-01T00:00:00Z' });
      expect(issued.body.hash).toBeUndefined();

      const listed = await api.get('/v1/vendors/demo-vendor/keys').set(auth);
      expect(listed.status).toBe(200);
      expect(listed.body.map((k: { id: string }) => k.id)).toEqual([issued.body.id, 'key-demo-sandbox'].sort());
      expect(listed.text).not.toContain(secret);
      expect(listed.text).not.toContain('sha256:');

      const { version, document } = await readDocument(admin.store);
      expect(JSON.stringify(document)).not.toContain(secret);
      expect(AccessIndex.fromDocument(document, version).authenticate(secret)).toMatchObject({
        ok: true,
        principal: { vendorId: 'demo-vendor', userId: 'demo.teller' },
      });
    });

    it('revokes a key: 204, listed as revoked, refused by authentication; an unknown key is 404', async () => {
      const issued = await api.post('/v1/vendors/readonly-partner/keys').set(auth).send({ userId: 'partner.reader' });

      const revoked = await api.delete(`/v1/keys/${issued.body.id}`).set(auth);
      expect(revoked.status).toBe(204);

      const listed = await api.get('/v1/vendors/readonly-partner/keys').set(auth);
      expect(listed.body.find((k: { id: string }) => k.id === issued.body.id)).toMatchObject({ status: 'revoked' });
      const { version, document } = await readDocument(admin.store);
      expect(AccessIndex.fromDocument(document, version).authenticate(issued.body.secret)).toEqual({ ok: false, reason: 'revoked' });

      expectProblem(await api.delete('/v1/keys/key-nobody').set(auth), 404, 'not_found');
    });

    it('answers 409 to a key id in use and names bad key fields', async () => {
      expectProblem(await api.post('/v1/vendors/demo-vendor/keys').set(auth).send({ id: 'key-partner-sandbox', userId: 'x' }), 409, 'conflict');

      const bad = await api.post('/v1/vendors/demo-vendor/keys').set(auth).send({ expiresAt: 'tomorrow', hash: 'sha256:00' });
      expectProblem(bad, 400, 'invalid_request');
      expect(fields(bad)).toEqual(['expiresAt', 'hash', 'userId']);

      const past = await api.post('/v1/vendors/demo-vendor/keys').set(auth).send({ userId: 'x', expiresAt: '2001-01-01T00:00:00Z' });
      expect(fields(past)).toEqual(['expiresAt']);
    });
  });

  describe('licences', () => {
    it('grants (generated id, 201), lists and revokes (204) a licence; revoking it again is 404', async () => {
      const granted = await api
        .post('/v1/vendors/readonly-partner/licences')
        .set(auth)
        .send({ api: 'POSTapi/transaction/*', expiresAt: '2099-06-01T00:00:00+01:00' });
      expect(granted.status).toBe(201);
      expect(granted.body).toMatchObject({ api: 'POSTapi/transaction/*', expiresAt: '2099-06-01T00:00:00+01:00' });
      expect(granted.headers.location).toBe(`/v1/vendors/readonly-partner/licences/${granted.body.id}`);

      const listed = await api.get('/v1/vendors/readonly-partner/licences').set(auth);
      expect(listed.body).toEqual([{ id: 'lic-partner-read', api: 'GET*' }, granted.body]);

      expect((await api.delete(`/v1/vendors/readonly-partner/licences/${granted.body.id}`).set(auth)).status).toBe(204);
      expect((await api.get('/v1/vendors/readonly-partner/licences').set(auth)).body).toEqual([{ id: 'lic-partner-read', api: 'GET*' }]);
      expectProblem(await api.delete(`/v1/vendors/readonly-partner/licences/${granted.body.id}`).set(auth), 404, 'not_found');
    });

    it('answers 409 to a licence id the vendor has and names a bad API pattern', async () => {
      expectProblem(await api.post('/v1/vendors/demo-vendor/licences').set(auth).send({ id: 'lic-demo-read', api: 'GET*' }), 409, 'conflict');

      const bad = await api.post('/v1/vendors/demo-vendor/licences').set(auth).send({ api: 'FETCH everything' });
      expectProblem(bad, 400, 'invalid_request');
      expect(fields(bad)).toEqual(['api']);
    });
  });

  describe('user permissions', () => {
    it('creates a user on the first grant, lists and revokes permissions', async () => {
      expectProblem(await api.get('/v1/users/new.clerk/permissions').set(auth), 404, 'not_found');

      const granted = await api.post('/v1/users/new.clerk/permissions').set(auth).send({ api: 'GETaccounts/{accountId}' });
      expect(granted.status).toBe(201);
      expect(granted.body.id).toMatch(/^perm-/);
      expect(granted.headers.location).toBe(`/v1/users/new.clerk/permissions/${granted.body.id}`);

      const listed = await api.get('/v1/users/new.clerk/permissions').set(auth);
      expect(listed.body).toEqual([{ id: granted.body.id, api: 'GETaccounts/{accountId}' }]);

      expect((await api.delete(`/v1/users/new.clerk/permissions/${granted.body.id}`).set(auth)).status).toBe(204);
      expect((await api.get('/v1/users/new.clerk/permissions').set(auth)).body).toEqual([]);
      expectProblem(await api.delete(`/v1/users/new.clerk/permissions/${granted.body.id}`).set(auth), 404, 'not_found');
      expectProblem(await api.delete('/v1/users/nobody/permissions/perm-x').set(auth), 404, 'not_found');
    });

    it('answers 409 to a permission id the user has and 400 naming a bad user id or pattern', async () => {
      expectProblem(await api.post('/v1/users/demo.teller/permissions').set(auth).send({ id: 'perm-teller-read', api: 'GET*' }), 409, 'conflict');

      const badPattern = await api.post('/v1/users/demo.teller/permissions').set(auth).send({ api: 'everything' });
      expect(fields(badPattern)).toEqual(['api']);
      const badUser = await api.post('/v1/users/-x/permissions').set(auth).send({ api: 'GET*' });
      expectProblem(badUser, 400, 'invalid_request');
      expect(fields(badUser)).toEqual(['userId']);
    });
  });

  it('sets a vendor rate limit and names bad rate-limit fields', async () => {
    const set = await api.put('/v1/vendors/readonly-partner/rate-limit').set(auth).send({ points: 50, durationSeconds: 10 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ points: 50, durationSeconds: 10 });
    expect((await api.get('/v1/vendors/readonly-partner').set(auth)).body.rateLimit).toEqual({ points: 50, durationSeconds: 10 });

    const bad = await api.put('/v1/vendors/readonly-partner/rate-limit').set(auth).send({ points: 1.5, durationSeconds: 0 });
    expectProblem(bad, 400, 'invalid_request');
    expect(fields(bad)).toEqual(['durationSeconds', 'points']);

    // A window past 31 days is refused: a monthly quota is the longest the limiter keeps.
    const tooLong = await api.put('/v1/vendors/readonly-partner/rate-limit').set(auth).send({ points: 5, durationSeconds: 99_999_999_999 });
    expectProblem(tooLong, 400, 'invalid_request');
    expect(fields(tooLong)).toEqual(['durationSeconds']);
    expect(
      (
        await api
          .put('/v1/vendors/readonly-partner/rate-limit')
          .set(auth)
          .send({ points: 5, durationSeconds: 31 * 86_400 })
      ).status,
    ).toBe(200);
  });

  describe('the whole access document', () => {
    it('exports the document with its version as ETag', async () => {
      const res = await api.get('/v1/access').set(auth);

      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body).toEqual(JSON.parse(JSON.stringify(storedForm(readAccessFile(SANDBOX_ACCESS)))));
    });

    it('answers a dry run with the diff and changes nothing', async () => {
      const next = structuredClone(readAccessFile(SANDBOX_ACCESS));
      next.vendors = next.vendors.filter((v) => v.id !== 'readonly-partner');
      next.vendors[0]!.status = 'suspended';
      next.users.push({ id: 'auditor', permissions: [{ id: 'perm-audit', api: 'GET*' }] });

      const res = await api.put('/v1/access?dryRun=true').set(auth).send(next);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        dryRun: true,
        applied: false,
        version: 1,
        diff: {
          identical: false,
          vendors: {
            added: [],
            removed: ['readonly-partner'],
            changed: [{ id: 'demo-vendor', fields: [{ field: 'status', from: 'active', to: 'suspended' }] }],
          },
          users: { added: ['auditor'], removed: [], changed: [] },
        },
      });
      expect((await readDocument(admin.store)).version).toBe(1);
      expect((await api.get('/v1/access').set(auth)).headers.etag).toBe('"1"');
      // Nothing changed; only the read of the document is on record.
      expect((await admin.audit.list({ limit: 10 })).map((entry) => entry.action)).toEqual(['access.read']);
    });

    it('applies a whole document in one change, from JSON or YAML', async () => {
      const changes: number[] = [];
      admin.store.subscribe(() => changes.push(Date.now()));
      const next = structuredClone(readAccessFile(SANDBOX_ACCESS));
      next.vendors.push({ id: 'acme', name: 'Acme', status: 'active', licences: [{ id: 'lic-a', api: 'GET*' }], keys: [] });
      next.users = [];

      const applied = await api.put('/v1/access').set(auth).set('Content-Type', 'application/yaml').send(toYaml(next));

      expect(applied.status).toBe(200);
      expect(applied.body).toMatchObject({
        dryRun: false,
        applied: true,
        version: 2,
        diff: { vendors: { added: ['acme'] }, users: { removed: ['demo.teller', 'partner.reader'] } },
      });
      expect(applied.headers.etag).toBe('"2"');
      expect(changes).toHaveLength(1);
      const exported = await api.get('/v1/access').set(auth);
      expect(exported.body).toEqual(JSON.parse(JSON.stringify(storedForm(next))));

      const again = await api.put('/v1/access').set(auth).send(exported.body);
      expect(again.body).toMatchObject({ applied: false, version: 2, diff: { identical: true } });
    });

    it('takes the sandbox access file exactly as it is on disk', async () => {
      const res = await api.put('/v1/access?dryRun=true').set(auth).set('Content-Type', 'application/yaml').send(readFileSync(SANDBOX_ACCESS, 'utf8'));

      expect(res.status).toBe(200);
      expect(res.body.diff.identical).toBe(true);
    });

    it('applies nothing of a document with one bad field, and names it', async () => {
      const next = structuredClone(readAccessFile(SANDBOX_ACCESS)) as unknown as { vendors: Array<{ keys: Array<{ hash: string }> }> };
      next.vendors[1]!.keys[0]!.hash = 'md5:abc';

      const res = await api.put('/v1/access').set(auth).send(next);

      expectProblem(res, 400, 'invalid_request');
      expect(fields(res)).toEqual(['vendors[readonly-partner].keys[0].hash']);
      expect((await readDocument(admin.store)).version).toBe(1);
    });

    it('refuses a stale If-Match (409), bad YAML or no document (400) and another media type (415)', async () => {
      const current = (await api.get('/v1/access').set(auth)).body;
      await api.post('/v1/vendors').set(auth).send({ id: 'acme', name: 'Acme' });

      expectProblem(await api.put('/v1/access').set(auth).set('If-Match', '"1"').send(current), 409, 'conflict');
      expectProblem(await api.put('/v1/access').set(auth).set('Content-Type', 'text/yaml').send('vendors: [unclosed'), 400, 'invalid_request');
      expectProblem(await api.put('/v1/access').set(auth).set('Content-Type', 'text/csv').send('a,b'), 415, 'unsupported_media_type');
      expectProblem(await api.put('/v1/access?dryRun=maybe').set(auth).send(current), 400, 'invalid_request');
      expectProblem(await api.put('/v1/access').set(auth), 400, 'invalid_request');
      expectProblem(await api.put('/v1/access').set(auth).set('Content-Type', 'application/yaml').send(''), 400, 'invalid_request');
      expect((await readDocument(admin.store)).version).toBe(2);
    });
  });

  describe('paged lists', () => {
    /** Follows `Link: <...>; rel="next"` from `path` to the end, collecting the ids of every page. */
    async function walk(path: string): Promise<string[][]> {
      const pages: string[][] = [];
      let next: string | null = path;
      while (next !== null) {
        const res: request.Response = await api.get(next).set(auth);
        expect(res.status).toBe(200);
        pages.push(res.body.map((item: { id: string }) => item.id));
        next = /<([^>]+)>; rel="next"/.exec(res.headers.link ?? '')?.[1] ?? null;
      }
      return pages;
    }

    it('pages vendors with limit and an opaque cursor in a Link header, the body staying an array', async () => {
      for (const id of ['v-a', 'v-b', 'v-c']) expect((await api.post('/v1/vendors').set(auth).send({ id, name: id })).status).toBe(201);

      const pages = await walk('/v1/vendors?limit=2');

      expect(pages).toEqual([['demo-vendor', 'readonly-partner'], ['v-a', 'v-b'], ['v-c']]);
      const whole = await api.get('/v1/vendors').set(auth);
      expect(whole.headers.link).toBeUndefined();
      expect(whole.body).toHaveLength(5);
    });

    it('pages a vendor’s keys, users and a user’s permissions the same way', async () => {
      for (let i = 0; i < 3; i++) {
        expect(
          (
            await api
              .post('/v1/vendors/demo-vendor/keys')
              .set(auth)
              .send({ id: `k-${i}`, userId: `user-${i}` })
          ).status,
        ).toBe(201);
        expect(
          (
            await api
              .post(`/v1/users/user-${i}/permissions`)
              .set(auth)
              .send({ id: `p-${i}`, api: 'GET*' })
          ).status,
        ).toBe(201);
        expect(
          (
            await api
              .post('/v1/users/user-0/permissions')
              .set(auth)
              .send({ id: `extra-${i}`, api: 'GET*' })
          ).status,
        ).toBe(201);
      }

      expect((await walk('/v1/vendors/demo-vendor/keys?limit=3')).flat()).toEqual(['k-0', 'k-1', 'k-2', 'key-demo-sandbox']);
      const users = await walk('/v1/users?limit=2');
      const all = users.flat();
      expect(users.slice(0, -1).every((page) => page.length === 2)).toBe(true);
      expect(all).toEqual([...new Set(all)].sort());
      expect(all).toEqual(expect.arrayContaining(['demo.teller', 'user-0', 'user-1', 'user-2']));
      expect((await walk('/v1/users/user-0/permissions?limit=1')).flat()).toEqual(['extra-0', 'extra-1', 'extra-2', 'p-0']);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=2&after=not%20a%20cursor', 'after'],
    ])('answers 400 naming the parameter for %s', async (query, field) => {
      const res = await api.get(`/v1/vendors?${query}`).set(auth);
      expectProblem(res, 400, 'invalid_request');
      expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
    });
  });

  describe('a large access document', () => {
    it('takes a document far above the 1 MB of other bodies, and exports it again in pieces', async () => {
      const document = readAccessFile(SANDBOX_ACCESS);
      const keys = Array.from({ length: 8000 }, (_, i) => ({
        id: `bulk-${String(i).padStart(5, '0')}`,
        prefix: 'cbk_AAAAAAAA',
        hash: `sha256:${i.toString(16).padStart(64, '0')}`,
        userId: `teller-${i}`,
      }));
      const large = { vendors: [...document.vendors, { id: 'bulk', name: 'Bulk', keys }], users: document.users };
      const body = JSON.stringify(large);
      expect(body.length).toBeGreaterThan(1024 * 1024);

      const applied = await api.put('/v1/access').set(auth).type('json').send(body);
      expect(applied.status).toBe(200);
      expect(applied.body).toMatchObject({ applied: true, version: 2 });

      const exported = await api.get('/v1/access').set(auth);
      expect(exported.headers['transfer-encoding']).toBe('chunked');
      expect(exported.body.vendors.find((v: { id: string }) => v.id === 'bulk').keys).toHaveLength(8000);
      const entries = await admin.audit.list({ limit: 5 });
      expect(entries.map((e) => e.action)).toContain('access.replace');
    });

    it('refuses a document above admin.maxDocumentBytes with 413', async () => {
      const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS));
      const small = await listenOnLoopback(
        createAdminApp({
          service: accessServiceFor(store),
          audit: new MemoryAuditLog(),
          adminToken: TOKEN,
          logger: createLogger('silent'),
          maxDocumentBytes: 2048,
        }),
      );
      try {
        const res = await request(small.url)
          .put('/v1/access')
          .set(auth)
          .send({ vendors: [{ id: 'x', name: 'y'.repeat(3000) }], users: [] });
        expect(res.status).toBe(413);
      } finally {
        await small.close();
      }
    });
  });

  describe('audit log', () => {
    it('records every write with actor, before and after, newest first, and never a secret or the token', async () => {
      await api.post('/v1/vendors').set(auth).send({ id: 'acme', name: 'Acme' });
      const issued = await api.post('/v1/vendors/acme/keys').set(auth).send({ userId: 'teller' });
      await api.patch('/v1/vendors/acme').set(auth).send({ status: 'suspended' });
      await api.delete(`/v1/keys/${issued.body.id}`).set(auth);
      await api.put('/v1/vendors/acme/rate-limit').set(auth).send({ points: 5, durationSeconds: 1 });
      await api.post('/v1/users/teller/permissions').set(auth).send({ id: 'perm-t', api: 'GET*' });
      await api.delete('/v1/users/teller/permissions/perm-t').set(auth);
      await api.post('/v1/vendors/acme/licences').set(auth).send({ id: 'lic-t', api: 'GET*' });
      await api.delete('/v1/vendors/acme/licences/lic-t').set(auth);
      await api.delete('/v1/vendors/acme').set(auth);

      const res = await api.get('/v1/audit').set(auth);

      expect(res.status).toBe(200);
      const entries = res.body as AuditEntry[];
      expect(entries.map((e) => e.action)).toEqual([
        'vendor.delete',
        'licence.revoke',
        'licence.grant',
        'permission.revoke',
        'permission.grant',
        'rate-limit.set',
        'key.revoke',
        'vendor.update',
        'key.issue',
        'vendor.create',
      ]);
      const byAction = new Map(entries.map((e) => [e.action, e]));
      expect(byAction.get('vendor.update')).toMatchObject({ target: 'vendors/acme', before: { status: 'active' }, after: { status: 'suspended' } });
      expect(byAction.get('key.issue')).toMatchObject({ target: `vendors/acme/keys/${issued.body.id}`, before: null, after: { prefix: issued.body.prefix } });
      expect(byAction.get('key.revoke')).toMatchObject({ before: { status: 'active' }, after: { status: 'revoked' } });
      expect(byAction.get('vendor.delete')).toMatchObject({ before: { id: 'acme' }, after: null });
      for (const entry of entries) {
        expect(entry.actor).toMatch(/^admin:bootstrap$/);
        expect(Date.parse(entry.at)).not.toBeNaN();
      }
      expect(res.text).not.toContain(issued.body.secret);
      expect(res.text).not.toContain(TOKEN);
    });

    it('records a document replacement as versions and the diff', async () => {
      const next = structuredClone(readAccessFile(SANDBOX_ACCESS));
      next.vendors.pop();
      await api.put('/v1/access').set(auth).send(next);

      const [entry] = (await api.get('/v1/audit').set(auth)).body as AuditEntry[];

      expect(entry).toMatchObject({
        action: 'access.replace',
        target: 'access',
        before: { version: 1 },
        after: { version: 2, diff: { vendors: { removed: ['readonly-partner'] } } },
      });
    });

    it('pages with limit and before, and names a bad limit', async () => {
      for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) await api.post('/v1/users/pager/permissions').set(auth).send({ id, api: 'GET*' });

      const first = (await api.get('/v1/audit?limit=2').set(auth)).body as AuditEntry[];
      const second = (await api.get(`/v1/audit?limit=2&before=${first[1]!.id}`).set(auth)).body as AuditEntry[];

      expect(first.map((e) => e.target)).toEqual(['users/pager/permissions/a5', 'users/pager/permissions/a4']);
      expect(second.map((e) => e.target)).toEqual(['users/pager/permissions/a3', 'users/pager/permissions/a2']);
      const bad = await api.get('/v1/audit?limit=0').set(auth);
      expectProblem(bad, 400, 'invalid_request');
      expect(fields(bad)).toEqual(['limit']);
    });
  });

  it('lands every one of 20 concurrent licence grants made through two instances', async () => {
    const second = await listen(admin.store, admin.audit);
    try {
      const apis = [api, request(second.url)];
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          apis[i % 2]!.post('/v1/vendors/demo-vendor/licences')
            .set(auth)
            .send({ id: `lic-c${i}`, api: 'GETaccounts/*' }),
        ),
      );

      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      const licences = (await api.get('/v1/vendors/demo-vendor/licences').set(auth)).body as Array<{ id: string }>;
      expect(
        licences
          .map((l) => l.id)
          .filter((id) => id.startsWith('lic-c'))
          .sort(),
      ).toEqual(Array.from({ length: 20 }, (_, i) => `lic-c${i}`).sort());
      expect((await readDocument(admin.store)).version).toBe(21);
      expect(await admin.audit.list({ limit: 100 })).toHaveLength(20);
    } finally {
      await second.close();
    }
  });
});
