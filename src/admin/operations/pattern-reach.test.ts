/**
 * Patterns that reach no API id: the nearest ids named, and the admin API's refusal unless
 * `allowEmpty` (approval-filed writes included), on a real HTTP server over a memory store.
 */
import path from 'node:path';
import request from 'supertest';
import { stringify as toYaml } from 'yaml';
import { MemoryAccessStore, readAccessFile, readDocument } from '../../access/access-store';
import { MemoryAuditLog } from '../../access/memory-audit-log';
import { createLogger } from '../../logging/logger';
import { accessServiceFor } from '../../../test/support/access-service';
import { listenOnLoopback } from '../../../test/support/listen';
import { createAdminApp } from '../admin-app';
import { AdminDirectory } from './admin-directory';
import { nearestApiIds, reachesAnyApi } from './pattern-reach';
import { Proposals } from './proposals';

const TOKEN = 'admin-token-for-tests-0123456789';
const SANDBOX_ACCESS = path.join(__dirname, '../../../config/sandbox-access.yaml');
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('which API ids a pattern reaches', () => {
  it('knows a pattern that reaches none, and names the nearest API ids by edit distance', () => {
    expect(reachesAnyApi('GETaccounts*')).toBe(true);
    expect(reachesAnyApi('*')).toBe(true);
    expect(reachesAnyApi('GETacounts/*')).toBe(false);
    expect(nearestApiIds('GETacounts/*')[0]).toMatch(/^GETaccounts/);
    expect(nearestApiIds('GETbranchs')).toContain('GETbranches');
    expect(nearestApiIds('GETbranchs')).toHaveLength(3);
  });
});

describe('the admin API on a pattern that reaches no API id', () => {
  let close: () => Promise<void>;
  afterEach(() => close());

  async function startAdmin(approvals: 'off' | 'required'): Promise<{ api: ReturnType<typeof request>; store: MemoryAccessStore }> {
    const audit = new MemoryAuditLog();
    const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
    const service = accessServiceFor(store);
    const admins = new AdminDirectory(service.writer);
    const proposals = new Proposals(service, { approvals, changeTtlHours: 72 }, admins);
    const server = await listenOnLoopback(createAdminApp({ service, admins, proposals, audit, adminToken: TOKEN, logger: createLogger('silent') }));
    close = () => server.close();
    return { api: request(server.url), store };
  }

  async function adminWith(api: ReturnType<typeof request>, id: string, role: string): Promise<string> {
    const created = await api.post('/v1/admins').set(bearer(TOKEN)).send({ id, name: id, role });
    return (await api.post('/v1/admins/enrol').send({ enrolmentCode: created.body.enrolmentCode })).body.token as string;
  }

  it('refuses a licence, a permission and a document naming the pattern, its owner and the nearest API ids, unless allowEmpty=true', async () => {
    const { api, store } = await startAdmin('off');
    const licence = await api.post('/v1/vendors/demo-vendor/licences').set(bearer(TOKEN)).send({ api: 'GETacounts/*' });
    expect(licence.status).toBe(400);
    expect(licence.body.type).toMatch(/invalid_request$/);
    expect(licence.body.detail).toContain('"GETacounts/*" of vendor "demo-vendor" matches no API id');
    expect(licence.body.errors).toEqual([
      { field: 'api', message: expect.stringMatching(/^"GETacounts\/\*" matches no API id; nearest by edit distance: GETaccounts/) },
    ]);
    const permission = await api.post('/v1/users/ann/permissions').set(bearer(TOKEN)).send({ api: 'POSTnothing' });
    expect(permission.status).toBe(400);
    expect(permission.body.detail).toContain('of user "ann"');

    const document = readAccessFile(SANDBOX_ACCESS);
    document.users.push({ id: 'ann', permissions: [{ id: 'p-ann', api: 'POSTnothing' }] });
    const put = (query: string) => api.put(`/v1/access${query}`).set(bearer(TOKEN)).type('application/yaml').send(toYaml(document));
    const refused = await put('?dryRun=true');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ field: 'users[ann].permissions[0].api', message: expect.stringContaining('"POSTnothing" matches no API id') }]);
    expect((await put('')).status).toBe(400);

    expect((await api.post('/v1/vendors/demo-vendor/licences?allowEmpty=true').set(bearer(TOKEN)).send({ api: 'GETacounts/*' })).status).toBe(201);
    expect((await put('?allowEmpty=true')).status).toBe(200);
    expect((await readDocument(store)).document.users.find((u) => u.id === 'ann')?.permissions).toEqual([{ id: 'p-ann', api: 'POSTnothing' }]);
  });

  it('files allowEmpty with the change, so the approval applies what was filed', async () => {
    const { api, store } = await startAdmin('required');
    const operator = await adminWith(api, 'otto', 'operator');
    const approver = await adminWith(api, 'anna', 'approver');
    expect((await api.post('/v1/vendors/demo-vendor/licences').set(bearer(operator)).send({ api: 'GETacounts/*' })).status).toBe(400);

    const licence = await api.post('/v1/vendors/demo-vendor/licences?allowEmpty=true').set(bearer(operator)).send({ id: 'lic-typo', api: 'GETacounts/*' });
    expect(licence.status).toBe(202);
    const document = readAccessFile(SANDBOX_ACCESS);
    document.users.push({ id: 'ann', permissions: [{ api: 'POSTnothing' } as { id: string; api: string }] });
    const whole = await api.put('/v1/access?allowEmpty=true').set(bearer(operator)).type('application/yaml').send(toYaml(document));
    expect(whole.status).toBe(202);

    // The document first: approving the licence first would move the config it was planned on.
    const approvedWhole = await api.post(`/v1/changes/${whole.body.id}/approve`).set(bearer(approver));
    expect(approvedWhole.body).toMatchObject({ applied: true });
    expect((await api.post(`/v1/changes/${licence.body.id}/approve`).set(bearer(approver))).status).toBe(200);
    const { document: now } = await readDocument(store);
    expect(now.vendors.find((v) => v.id === 'demo-vendor')?.licences.map((l) => l.id)).toContain('lic-typo');
    expect(now.users.find((u) => u.id === 'ann')?.permissions).toEqual([{ id: expect.stringMatching(/^perm-[0-9a-f]{12}$/), api: 'POSTnothing' }]);
  });

  it('names a bad field of a whole document by its vendor or user id, not its index', async () => {
    const { api } = await startAdmin('off');
    const res = await api
      .put('/v1/access?dryRun=true')
      .set(bearer(TOKEN))
      .send({
        vendors: [{ id: 'acme', name: 'Acme', licences: [{ api: 'GET*' }, { id: 'x', api: 'FETCH*', colour: 'red' }] }],
        users: [{ id: 'ann', permissions: 'all' }],
      });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'users[ann].permissions',
      'vendors[acme].licences[1].api',
      'vendors[acme].licences[1].colour',
    ]);
  });
});
