/**
 * Named admins, roles and four-eyes approval through the admin API, on a real HTTP server over a
 * memory store (the Redis store runs the same records and scripts; see redis-access-store.test).
 */
import path from 'node:path';
import request from 'supertest';
import { MemoryAccessStore, readAccessFile, readDocument } from '../access/access-store';
import { AdminDirectory } from './operations/admin-directory';
import { Proposals } from './operations/proposals';
import type { AdminAccount } from '../access/model';
import { createLogger } from '../logging/logger';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback } from '../../test/support/listen';
import { createAdminApp } from './admin-app';
import { MemoryAuditLog } from '../access/memory-audit-log';

const TOKEN = 'admin-token-for-tests-0123456789';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

interface Harness {
  readonly api: ReturnType<typeof request>;
  readonly store: MemoryAccessStore;
  readonly audit: MemoryAuditLog;
  close(): Promise<void>;
}

const open: Harness[] = [];

async function startAdmin(approvals: 'off' | 'required'): Promise<Harness> {
  const audit = new MemoryAuditLog();
  const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
  const service = accessServiceFor(store);
  const admins = new AdminDirectory(service.writer);
  const app = createAdminApp({
    service,
    admins,
    proposals: new Proposals(service, { approvals, changeTtlHours: 72 }, admins),
    audit,
    adminToken: TOKEN,
    logger: createLogger('silent'),
  });
  const server = await listenOnLoopback(app);
  const harness = { api: request(server.url), store, audit, close: () => server.close() };
  open.push(harness);
  return harness;
}

afterEach(async () => {
  for (const harness of open.splice(0)) await harness.close();
});

/** Creates a named admin as the bootstrap owner, and enrols it with its code; answers its token. */
async function adminWith(h: Harness, id: string, role: string): Promise<string> {
  const res = await h.api
    .post('/v1/admins')
    .set(bearer(TOKEN))
    .send({ id, name: `${id} (${role})`, role });
  expect(res.status).toBe(201);
  const enrolled = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: res.body.enrolmentCode });
  expect(enrolled.status).toBe(200);
  return enrolled.body.token as string;
}

describe('named admins and roles', () => {
  it('creates an admin with a one-time enrolment code (never a token), which the new admin alone redeems for a token that is never listed', async () => {
    const h = await startAdmin('off');
    const created = await h.api.post('/v1/admins').set(bearer(TOKEN)).send({ id: 'alice', name: 'Alice', role: 'operator' });

    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/v1/admins/alice');
    expect(created.body).toMatchObject({
      id: 'alice',
      name: 'Alice',
      role: 'operator',
      status: 'enrolling',
      createdBy: 'bootstrap',
      enrolmentCode: expect.stringMatching(/^cbe_/),
    });
    expect(created.text).not.toMatch(/cba_/);
    expect(Date.parse(created.body.enrolmentExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const redeemed = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: created.body.enrolmentCode });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ id: 'alice', status: 'active', token: expect.stringMatching(/^cba_/) });
    // Single use: the same code again is refused, as a wrong one is.
    const again = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: created.body.enrolmentCode });
    expect(again.status).toBe(401);
    created.body.token = redeemed.body.token;
    const me = await h.api.get('/v1/me').set(bearer(created.body.token));
    expect(me.body).toMatchObject({ id: 'alice', name: 'Alice', role: 'operator', approvals: 'off' });
    const listed = await h.api.get('/v1/admins').set(bearer(TOKEN));
    expect(listed.body).toEqual([expect.objectContaining({ id: 'alice', role: 'operator' })]);
    expect(listed.text).not.toContain(created.body.token);
    expect(listed.text).not.toContain('sha256:');
    const audited = JSON.stringify(await h.audit.list({ limit: 10 }));
    for (const secret of [created.body.token, created.body.enrolmentCode, 'sha256:']) expect(audited).not.toContain(secret);
  });

  it('answers the bootstrap token as the owner named bootstrap', async () => {
    const h = await startAdmin('off');
    expect((await h.api.get('/v1/me').set(bearer(TOKEN))).body).toMatchObject({ id: 'bootstrap', name: 'bootstrap', role: 'owner' });
  });

  it('refuses with 403 permission_denied what a role may not do, and lets it read', async () => {
    const h = await startAdmin('off');
    const viewer = await adminWith(h, 'vera', 'viewer');
    const operator = await adminWith(h, 'otto', 'operator');
    const approver = await adminWith(h, 'anna', 'approver');

    for (const token of [viewer, operator, approver]) {
      expect((await h.api.get('/v1/vendors').set(bearer(token))).status).toBe(200);
      expect((await h.api.get('/v1/audit').set(bearer(token))).status).toBe(200);
    }
    for (const token of [viewer, approver]) {
      const refused = await h.api.post('/v1/vendors').set(bearer(token)).send({ id: 'x', name: 'X' });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('permission_denied');
    }
    expect((await h.api.post('/v1/admins').set(bearer(operator)).send({ name: 'Eve', role: 'owner' })).body.code).toBe('permission_denied');
    expect((await h.api.get('/v1/admins').set(bearer(operator))).status).toBe(403);
    expect((await h.api.post('/v1/vendors').set(bearer(operator)).send({ id: 'x', name: 'X' })).status).toBe(201);
  });

  it('names the admin in the audit log; an admin rotates only their own token, another’s is only revoked; a deleted admin’s token stops at once', async () => {
    const h = await startAdmin('off');
    const first = await adminWith(h, 'otto', 'operator');
    await h.api.post('/v1/vendors').set(bearer(first)).send({ id: 'acme', name: 'Acme' });
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ actor: 'admin:otto', action: 'vendor.create' });

    const rotated = await h.api.post('/v1/me/token').set(bearer(first));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: 'otto', token: expect.stringMatching(/^cba_/) });
    expect((await h.api.get('/v1/me').set(bearer(first))).status).toBe(401);
    expect((await h.api.get('/v1/me').set(bearer(rotated.body.token))).status).toBe(200);

    // The owner asking for otto's token gets none: otto's token is revoked.
    const revoked = await h.api.post('/v1/admins/otto/token').set(bearer(TOKEN));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: 'otto', status: 'no-token' });
    expect(revoked.text).not.toMatch(/cba_[A-Za-z0-9_-]{20,}/);
    expect((await h.api.get('/v1/me').set(bearer(rotated.body.token))).status).toBe(401);
    const reenrolled = await h.api.post('/v1/admins/otto/enrolment').set(bearer(TOKEN));
    expect(reenrolled.body).toMatchObject({ id: 'otto', status: 'enrolling', enrolmentCode: expect.stringMatching(/^cbe_/) });
    const token = (await h.api.post('/v1/admins/enrol').send({ enrolmentCode: reenrolled.body.enrolmentCode })).body.token as string;
    expect((await h.api.get('/v1/me').set(bearer(token))).status).toBe(200);

    expect((await h.api.delete('/v1/admins/otto').set(bearer(TOKEN))).status).toBe(204);
    expect((await h.api.get('/v1/me').set(bearer(token))).status).toBe(401);
    const actions = (await h.audit.list({ limit: 20 })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['admin.create', 'admin.enrol', 'admin.rotate', 'admin.revoke-token', 'admin.reenrol', 'admin.delete']));
    // Only the short prefix that tells tokens apart, never a whole token or its hash.
    expect(JSON.stringify(await h.audit.list({ limit: 10 }))).not.toMatch(/cba_[A-Za-z0-9_-]{20,}|tokenHash|sha256:/);
  });

  it('refuses an admin named bootstrap and a role that does not exist', async () => {
    const h = await startAdmin('off');
    const res = await h.api.post('/v1/admins').set(bearer(TOKEN)).send({ id: 'bootstrap', name: 'B', role: 'emperor' });
    expect(res.status).toBe(400);
    expect((res.body.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual(['id', 'role']);
  });
});

describe('four-eyes approval', () => {
  async function twoAdmins(): Promise<{ h: Harness; operator: string; approver: string }> {
    const h = await startAdmin('required');
    return { h, operator: await adminWith(h, 'otto', 'operator'), approver: await adminWith(h, 'anna', 'approver') };
  }

  it('files an operator’s licence grant as a pending change that does nothing until another admin approves it', async () => {
    const { h, operator, approver } = await twoAdmins();

    const filed = await h.api.post('/v1/vendors/demo-vendor/licences').set(bearer(operator)).send({ id: 'lic-new', api: 'DELETE*' });
    expect(filed.status).toBe(202);
    expect(filed.headers.location).toBe(`/v1/changes/${filed.body.id}`);
    expect(filed.body).toMatchObject({ status: 'pending', makerId: 'otto', action: 'licence.grant', preview: { after: { id: 'lic-new', api: 'DELETE*' } } });
    const licences = async (): Promise<string[]> =>
      (await h.api.get('/v1/vendors/demo-vendor/licences').set(bearer(operator))).body.map((l: { id: string }) => l.id);
    expect(await licences()).not.toContain('lic-new');

    const own = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(operator));
    expect(own.status).toBe(403);
    expect(await licences()).not.toContain('lic-new');

    const approved = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver));
    expect(approved.status).toBe(200);
    expect(await licences()).toContain('lic-new');
    expect((await h.api.get('/v1/changes').set(bearer(approver))).body).toEqual([]);
    const [entry] = await h.audit.list({ limit: 1 });
    expect(entry).toMatchObject({
      actor: 'admin:anna',
      action: 'licence.grant',
      approval: { maker: 'admin:otto', checker: 'admin:anna', madeAt: filed.body.createdAt, checkedAt: expect.any(String) },
    });
  });

  it('applies a revocation at once, and records that it needed no approval', async () => {
    const { h, operator } = await twoAdmins();
    const res = await h.api.delete('/v1/keys/key-demo-sandbox').set(bearer(operator));
    expect(res.status).toBe(204);
    const { document } = await readDocument(h.store);
    expect(document.vendors.flatMap((v) => v.keys).find((k) => k.id === 'key-demo-sandbox')?.status).toBe('revoked');
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'key.revoke', approval: { required: false, reason: 'only reduces access' } });
  });

  it('refuses with 409 an approval that would now conflict, and leaves the change to be rejected', async () => {
    const { h, operator, approver } = await twoAdmins();
    const first = await h.api.post('/v1/vendors').set(bearer(operator)).send({ id: 'newco', name: 'NewCo' });
    const second = await h.api.post('/v1/vendors').set(bearer(operator)).send({ id: 'newco', name: 'NewCo again' });
    expect([first.status, second.status]).toEqual([202, 202]);

    expect((await h.api.post(`/v1/changes/${first.body.id}/approve`).set(bearer(approver))).status).toBe(200);
    const conflict = await h.api.post(`/v1/changes/${second.body.id}/approve`).set(bearer(approver));
    expect(conflict.status).toBe(409);
    expect((await h.api.get('/v1/vendors/newco').set(bearer(approver))).body.name).toBe('NewCo');

    expect((await h.api.post(`/v1/changes/${second.body.id}/reject`).set(bearer(approver))).status).toBe(204);
    expect((await h.api.get('/v1/changes').set(bearer(approver))).body).toEqual([]);
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'change.reject', approval: { maker: 'admin:otto', checker: 'admin:anna' } });
  });

  it('gives the secret of a key issued through approval once, to the approver, and the key works', async () => {
    const { h, operator, approver } = await twoAdmins();
    const filed = await h.api.post('/v1/vendors/demo-vendor/keys').set(bearer(operator)).send({ id: 'k-new', userId: 'demo.teller' });
    expect(filed.status).toBe(202);
    // No secret exists yet: it is made when the change is approved.
    expect(filed.text).not.toMatch(/cbk_[0-9A-Za-z]{32}/);

    const approved = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver));
    expect(approved.body).toMatchObject({ id: 'k-new', secret: expect.stringMatching(/^cbk_/) });
    expect(JSON.stringify(await h.audit.list({ limit: 5 }))).not.toContain(approved.body.secret);
    const keys = (await h.api.get('/v1/vendors/demo-vendor/keys').set(bearer(approver))).body.map((k: { id: string }) => k.id);
    expect(keys).toContain('k-new');
  });

  it('files a whole-document upload too, and refuses an expired change', async () => {
    const { h, operator, approver } = await twoAdmins();
    const current = (await h.api.get('/v1/access').set(bearer(operator))).body;
    current.vendors.push({ id: 'doc-vendor', name: 'From a document', keys: [] });
    const filed = await h.api.put('/v1/access').set(bearer(operator)).send(current);
    expect(filed.status).toBe(202);
    expect(filed.body.preview.after.diff.vendors.added).toEqual(['doc-vendor']);

    const dryRun = await h.api.put('/v1/access?dryRun=true').set(bearer(operator)).send(current);
    expect(dryRun.status).toBe(200);

    // The same change, but past its expiry.
    const stale = { ...filed.body, id: 'chg-stale', expiresAt: '2000-01-01T00:00:00.000Z' };
    delete stale.status;
    await h.store.commit({ ops: [{ kind: 'proposal', id: 'chg-stale', value: stale, expect: null }], audit: null });
    const expired = await h.api.post('/v1/changes/chg-stale/approve').set(bearer(approver));
    expect(expired.status).toBe(409);
    expect(expired.body.detail).toMatch(/expired/);

    expect((await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver))).status).toBe(200);
    expect((await h.api.get('/v1/vendors/doc-vendor').set(bearer(approver))).status).toBe(200);
  });

  it('applies on approval the very id its preview showed, for a licence the maker left unnamed', async () => {
    const { h, operator, approver } = await twoAdmins();
    const filed = await h.api.post('/v1/vendors/demo-vendor/licences').set(bearer(operator)).send({ api: 'DELETE*' });
    const shown = filed.body.preview.after.id as string;
    expect((await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver))).body).toMatchObject({ id: shown, api: 'DELETE*' });
  });

  it('refuses (409, with a fresh preview) a whole-document change filed without If-Match once an owner deleted a vendor it would bring back', async () => {
    const { h, operator, approver } = await twoAdmins();
    const document = (await h.api.get('/v1/access').set(bearer(operator))).body;
    const victim = document.vendors[1].id as string;
    document.vendors[0].name = 'Renamed';
    const filed = await h.api.put('/v1/access').set(bearer(operator)).send(document);
    expect(filed.status).toBe(202);
    expect(filed.body.preview.after.diff.vendors.added).toEqual([]);

    expect((await h.api.delete(`/v1/vendors/${victim}`).set(bearer(TOKEN))).status).toBe(204);
    const approved = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver));
    expect(approved.status).toBe(409);
    expect(approved.body.preview.after.diff.vendors.added).toEqual([victim]);
    expect((await h.api.get(`/v1/vendors/${victim}`).set(bearer(approver))).status).toBe(404);
  });

  it('refuses (409) a vendor change approved after the vendor was suspended: it would have resumed it', async () => {
    const { h, operator, approver } = await twoAdmins();
    const filed = await h.api.patch('/v1/vendors/demo-vendor').set(bearer(operator)).send({ name: 'Renamed', status: 'active' });
    expect(filed.status).toBe(202);
    expect((await h.api.patch('/v1/vendors/demo-vendor').set(bearer(TOKEN)).send({ status: 'suspended' })).status).toBe(200);
    const approved = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver));
    expect(approved.status).toBe(409);
    expect(approved.body.preview.before).toMatchObject({ status: 'suspended' });
    expect((await h.api.get('/v1/vendors/demo-vendor').set(bearer(approver))).body.status).toBe('suspended');
  });

  it('refuses an approval by an admin whose enrolment code the maker was handed, and lets a third person approve', async () => {
    const h = await startAdmin('required');
    const owner = await adminWith(h, 'olga', 'owner');
    const other = await adminWith(h, 'anna', 'approver');
    const filed = await h.api.post('/v1/admins').set(bearer(owner)).send({ id: 'sock', name: 'Sock', role: 'approver' });
    expect(filed.status).toBe(202);
    expect(filed.body).toMatchObject({ action: 'admin.create', enrolmentCode: expect.stringMatching(/^cbe_/) });
    expect(filed.body.args).toEqual([{ id: 'sock', name: 'Sock', role: 'approver' }]);
    expect((await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(other))).status).toBe(200);
    const sock = (await h.api.post('/v1/admins/enrol').send({ enrolmentCode: filed.body.enrolmentCode })).body.token as string;

    const grant = await h.api.post('/v1/vendors/demo-vendor/licences').set(bearer(owner)).send({ id: 'lic-x', api: 'DELETE*' });
    const bySock = await h.api.post(`/v1/changes/${grant.body.id}/approve`).set(bearer(sock));
    expect(bySock.status).toBe(403);
    expect(bySock.body.detail).toMatch(/same person/);
    expect((await h.api.post(`/v1/changes/${grant.body.id}/approve`).set(bearer(other))).status).toBe(200);
    // The bootstrap token closed set-up when olga and anna enrolled: it no longer creates or approves.
    expect((await h.api.post('/v1/admins').set(bearer(TOKEN)).send({ id: 'late', name: 'Late', role: 'owner' })).status).toBe(403);
    expect((await h.api.get('/v1/admins').set(bearer(owner))).body.map((a: { id: string }) => a.id)).toEqual(['anna', 'olga', 'sock']);
    const audit = JSON.stringify(await h.audit.list({ limit: 50 }));
    expect(audit).not.toContain(filed.body.enrolmentCode);
    expect(audit).not.toContain(sock);
    expect(audit).toContain('bootstrap.use');
  });

  it('refuses an enrolment code past its 24 h, and one whose admin was revoked before redeeming it', async () => {
    const h = await startAdmin('off');
    const created = await h.api.post('/v1/admins').set(bearer(TOKEN)).send({ id: 'late', name: 'Late', role: 'viewer' });
    const stored: AdminAccount[] = [];
    await h.store.load((batch) => stored.push(...(batch.admins ?? [])));
    const record = stored.find((a) => a.id === 'late')!;
    const expired = { ...record, enrolment: { ...record.enrolment!, expiresAt: new Date(Date.now() - 1000).toISOString() } };
    await h.store.commit({ ops: [{ kind: 'admin', id: 'late', value: expired, expect: record }], audit: null });
    expect((await h.api.post('/v1/admins/enrol').send({ enrolmentCode: created.body.enrolmentCode })).status).toBe(401);

    const again = await h.api.post('/v1/admins/late/enrolment').set(bearer(TOKEN));
    expect((await h.api.post('/v1/admins/late/token').set(bearer(TOKEN))).body).toMatchObject({ status: 'no-token' });
    expect((await h.api.post('/v1/admins/enrol').send({ enrolmentCode: again.body.enrolmentCode })).status).toBe(401);
  });

  it('files raising an admin’s role for approval, and lowers one to viewer at once', async () => {
    const h = await startAdmin('required');
    await adminWith(h, 'otto', 'operator');
    const owner = await adminWith(h, 'olga', 'owner');
    const other = await adminWith(h, 'anna', 'approver');
    const raised = await h.api.patch('/v1/admins/otto').set(bearer(owner)).send({ role: 'owner' });
    expect(raised.status).toBe(202);
    expect(raised.body).toMatchObject({ action: 'admin.role', args: ['otto', { role: 'owner' }] });
    expect((await h.api.post(`/v1/changes/${raised.body.id}/approve`).set(bearer(owner))).status).toBe(403);
    expect((await h.api.post(`/v1/changes/${raised.body.id}/approve`).set(bearer(other))).body).toMatchObject({ id: 'otto', role: 'owner' });
    const lowered = await h.api.patch('/v1/admins/otto').set(bearer(owner)).send({ role: 'viewer' });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ id: 'otto', role: 'viewer' });
  });

  it('throttles wrong enrolment codes per address (429 with Retry-After)', async () => {
    const h = await startAdmin('off');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await h.api.post('/v1/admins/enrol').send({ enrolmentCode: `cbe_wrong${i}` })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    const limited = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: 'cbe_wrong' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('files a change posted by operation name, and refuses an unknown operation', async () => {
    const { h, operator } = await twoAdmins();
    const filed = await h.api
      .post('/v1/changes')
      .set(bearer(operator))
      .send({ operation: 'grantPermission', args: ['demo.teller', { id: 'p-x', api: 'GET*' }] });
    expect(filed.status).toBe(202);
    expect(filed.body).toMatchObject({ operation: 'grantPermission', target: 'users/demo.teller/permissions/p-x' });
    const bad = await h.api.post('/v1/changes').set(bearer(operator)).send({ operation: 'dropDatabase', args: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'operation' })]);
  });
});

describe('web UI sessions', () => {
  async function signIn(h: Harness, token: string): Promise<string> {
    const res = await h.api.post('/ui/session').set('x-requested-by', 'cbg-admin-ui').send({ token });
    expect(res.status).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^cbg_admin_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=1800/);
    expect(setCookie).not.toContain(token);
    return setCookie.split(';')[0] as string;
  }

  it('signs a browser in with a token and answers the API for the session cookie', async () => {
    const h = await startAdmin('off');
    const cookie = await signIn(h, TOKEN);
    expect((await h.api.get('/ui/session').set('Cookie', cookie)).body).toEqual({
      admin: { id: 'bootstrap', name: 'bootstrap', role: 'owner' },
      signIn: { sso: false, token: true },
    });
    expect((await h.api.get('/ui/session')).body).toEqual({ admin: null, signIn: { sso: false, token: true } });
    expect((await h.api.get('/v1/vendors').set('Cookie', cookie)).status).toBe(200);
  });

  it('refuses a cookie-authenticated write without the UI’s request header (a cross-site form cannot set it)', async () => {
    const h = await startAdmin('off');
    const cookie = await signIn(h, TOKEN);
    const forged = await h.api.post('/v1/vendors').set('Cookie', cookie).send({ id: 'x', name: 'X' });
    expect(forged.status).toBe(403);
    const fromUi = await h.api.post('/v1/vendors').set('Cookie', cookie).set('x-requested-by', 'cbg-admin-ui').send({ id: 'x', name: 'X' });
    expect(fromUi.status).toBe(201);
  });

  it('ends a named admin’s sessions when its token is rotated, and refuses a wrong token', async () => {
    const h = await startAdmin('off');
    const token = await adminWith(h, 'otto', 'operator');
    const cookie = await signIn(h, token);
    expect((await h.api.get('/v1/me').set('Cookie', cookie)).status).toBe(200);
    await h.api.post('/v1/me/token').set(bearer(token));
    expect((await h.api.get('/v1/me').set('Cookie', cookie)).status).toBe(401);
    const wrong = await h.api.post('/ui/session').set('x-requested-by', 'cbg-admin-ui').send({ token: 'cba_not-a-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a sign-in without the UI’s request header (another site cannot sign a browser in)', async () => {
    const h = await startAdmin('off');
    const res = await h.api.post('/ui/session').send({ token: TOKEN });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('signs out by clearing the cookie and ending the session, so a copy of the cookie is refused', async () => {
    const h = await startAdmin('off');
    const cookie = await signIn(h, TOKEN);
    const res = await h.api.delete('/ui/session').set('x-requested-by', 'cbg-admin-ui').set('Cookie', cookie);
    expect(res.status).toBe(204);
    expect(String(res.headers['set-cookie'])).toMatch(/^cbg_admin_session=; .*Max-Age=0/);
    expect((await h.api.get('/v1/vendors').set('Cookie', cookie)).status).toBe(401);
    expect((await h.api.get('/ui/session').set('Cookie', cookie)).body).toMatchObject({ admin: null });
    // Without the page's header another site could sign a browser out: refused.
    expect((await h.api.delete('/ui/session')).status).toBe(403);
  });
});
