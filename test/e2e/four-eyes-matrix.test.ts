/**
 * Four eyes against one person, through a real gateway on real Redis (admin.approvals:
 * required): for each set of credentials one person could hold (the bootstrap token; one owner;
 * an owner with the admins they created; an owner with an admin they had re-enrolled; an owner
 * with an admin sponsored by an admin of theirs deleted since), every
 * route by which a granting change could take effect is tried, and none lets it. And a change
 * applies exactly as previewed: a whole-document change filed without If-Match is refused (409,
 * with a fresh preview) once the config moved, so a vendor deleted meanwhile stays deleted.
 */
import type { AccessDocument } from '../../src/access/model';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { adminCall, type AdminAnswer as Answer } from '../support/admin-pair';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { testKey, vendorStatus, writeAccessFile } from '../support/access-fixture';

const teller = testKey('k-teller', 'teller');
const gone = testKey('k-gone', 'teller');

function seed(): AccessDocument {
  return {
    vendors: [
      { id: 'acme', name: 'Acme', status: 'active', licences: [{ id: 'l-read', api: 'GET*' }], keys: [teller.record] },
      { id: 'gone', name: 'Compromised', status: 'active', licences: [{ id: 'l-all', api: '*' }], keys: [gone.record] },
    ],
    users: [{ id: 'teller', permissions: [{ id: 'p-all', api: '*' }] }],
  };
}

let gateway: TestGateway;

const call = (token: string | null, method: string, path: string, body?: unknown): Promise<Answer> => adminCall(gateway.adminPort, token, method, path, body);

/** A code that redeems nothing: 401, or 429 once this address has sent enough of them. */
const REFUSED_CODE = [401, 429];

async function enrol(code: unknown): Promise<string> {
  const res = await call(null, 'POST', '/admins/enrol', { enrolmentCode: code });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** Made by the bootstrap token during set-up; enrolled later, each by the admin themselves. */
async function setUp(id: string, role: string): Promise<unknown> {
  const res = await call(TEST_ADMIN_TOKEN, 'POST', '/admins', { id, name: id, role });
  expect(res.status).toBe(201);
  return res.body.enrolmentCode;
}

const tokens: Record<string, string> = {};

beforeAll(async () => {
  gateway = await startTestGateway({
    redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix: `fe${process.pid}:`, seedAccessFile: 'always' },
    access: { file: writeAccessFile(seed()) },
    admin: { approvals: 'required' },
  });
  const codes: Record<string, unknown> = {};
  // abe starts as a viewer: set-up closes (clearing the codes still out) when olga and anna have
  // enrolled, so a third approver of their own is made in set-up and raised afterwards.
  for (const [id, role] of [
    ['otto', 'operator'],
    ['vic', 'viewer'],
    ['abe', 'viewer'],
    ['olga', 'owner'],
    ['anna', 'approver'],
  ] as const)
    codes[id] = await setUp(id, role);
  for (const id of Object.keys(codes)) tokens[id] = await enrol(codes[id]);
  const raise = await call(tokens.olga as string, 'PATCH', '/admins/abe', { role: 'approver' });
  expect((await call(tokens.anna as string, 'POST', `/changes/${raise.body.id as string}/approve`)).status).toBe(200);
});
afterAll(async () => {
  await gateway.stop();
});

/** Whether anything granting took effect: a licence, portal user or admin named `evil…`, or the vendor `gone` back. */
async function nothingGranted(): Promise<void> {
  const licences = (await call(tokens.anna as string, 'GET', '/vendors/acme/licences')).body as unknown as Array<{ id: string }>;
  expect(licences.map((l) => l.id)).toEqual(['l-read']);
  expect((await call(tokens.anna as string, 'GET', '/vendors/acme/portal-users')).body).toEqual([]);
  expect((await call(tokens.anna as string, 'GET', '/vendors/evil')).status).toBe(404);
  const admins = (await call(tokens.olga as string, 'GET', '/admins')).body as unknown as Array<{ id: string; status: string; role: string }>;
  expect(admins.filter((a) => a.id.startsWith('evil'))).toEqual([]);
  expect(admins.find((a) => a.id === 'otto')).toMatchObject({ role: 'operator' });
}

/**
 * Every road one person holding `held` could take to make a granting change take effect: write
 * directly (a portal user invited among them), file by name, upload the whole document, create an admin, re-enrol or take another
 * admin's token, and approve whatever any of the held credentials filed with any of them.
 */
async function tryEverything(held: Record<string, string>, tag: string, rejecter = tokens.abe as string): Promise<void> {
  const filed: string[] = [];
  const file = (answer: Answer): void => {
    // Never applied: filed for approval (202) or refused (403), nothing else.
    expect([202, 403]).toContain(answer.status);
    if (answer.status === 202) filed.push(answer.body.id as string);
  };
  for (const [who, token] of Object.entries(held)) {
    const licence = { id: `evil-${tag}-${who}`, api: 'DELETE*' };
    file(await call(token, 'POST', '/vendors/acme/licences', licence));
    file(await call(token, 'POST', '/changes', { operation: 'grantLicence', args: ['acme', { ...licence, id: `${licence.id}-byname` }] }));
    file(await call(token, 'POST', '/vendors', { id: 'evil', name: 'Evil' }));
    const invited = await call(token, 'POST', '/vendors/acme/portal-users', { email: `evil-${tag}-${who}@example.com`, name: 'Evil' });
    file(invited);
    expect(JSON.stringify(invited.body)).not.toMatch(/cbp_/);
    const document = seed();
    document.vendors[0]!.licences.push({ id: `${licence.id}-doc`, api: '*' });
    file(await call(token, 'PUT', '/access', document));
    const created = await call(token, 'POST', '/admins', { id: `evil-${tag}-${who}`, name: 'Sock puppet', role: 'owner' });
    file(created);
    expect(created.body).not.toHaveProperty('token');
    // The code of a creation that is only pending redeems nothing.
    if (created.status === 202)
      expect(REFUSED_CODE).toContain((await call(null, 'POST', '/admins/enrol', { enrolmentCode: created.body.enrolmentCode })).status);
    const reenrol = await call(token, 'POST', '/admins/anna/enrolment');
    file(reenrol);
    if (reenrol.status === 202)
      expect(REFUSED_CODE).toContain((await call(null, 'POST', '/admins/enrol', { enrolmentCode: reenrol.body.enrolmentCode })).status);
    file(await call(token, 'PATCH', '/admins/otto', { role: 'owner' }));
    // Another admin's token: revoked at most, never handed over.
    const other = await call(token, 'POST', '/admins/vic/token');
    expect([200, 403]).toContain(other.status);
    expect(other.body).not.toHaveProperty('token');
  }
  for (const changeId of filed) {
    for (const [who, token] of Object.entries(held)) {
      const approved = await call(token, 'POST', `/changes/${changeId}/approve`);
      expect({ changeId, who, status: approved.status }).toEqual({ changeId, who, status: 403 });
    }
  }
  await nothingGranted();
  // Leave the queue empty for the next set (another person rejects what this one filed).
  for (const changeId of filed) expect((await call(rejecter, 'POST', `/changes/${changeId}/reject`)).status).toBe(204);
}

describe('four eyes against one person', () => {
  it('lets the bootstrap token, once two approvers hold tokens, only read and take access away (every use audited)', async () => {
    await tryEverything({ bootstrap: TEST_ADMIN_TOKEN }, 'boot');
    const filed = await call(tokens.otto as string, 'POST', '/vendors/acme/licences', { id: 'evil-boot-approve', api: '*' });
    expect(filed.status).toBe(202);
    expect((await call(TEST_ADMIN_TOKEN, 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(403);
    expect((await call(TEST_ADMIN_TOKEN, 'POST', `/changes/${filed.body.id as string}/reject`)).status).toBe(204);
    // Taking access away still works; giving it back takes two people.
    expect((await call(TEST_ADMIN_TOKEN, 'PATCH', '/vendors/acme', { status: 'suspended' })).status).toBe(200);
    const resume = await call(tokens.olga as string, 'PATCH', '/vendors/acme', { status: 'active' });
    expect(resume.status).toBe(202);
    expect((await call(tokens.anna as string, 'POST', `/changes/${resume.body.id as string}/approve`)).status).toBe(200);
    const audit = (await call(tokens.anna as string, 'GET', '/audit?limit=200')).body as unknown as Array<{ actor: string; action: string }>;
    expect(audit.filter((e) => e.action === 'bootstrap.use').length).toBeGreaterThan(10);
    expect(JSON.stringify(audit)).not.toContain(TEST_ADMIN_TOKEN);
  });

  it('lets one owner make no granting change take effect alone', async () => {
    // The set-up latch shares the bootstrap token's id: it is no admin to revoke or re-enrol.
    expect((await call(tokens.olga as string, 'POST', '/admins/bootstrap/enrolment')).status).toBe(404);
    expect((await call(tokens.olga as string, 'POST', '/admins/bootstrap/token')).status).toBe(404);
    await tryEverything({ olga: tokens.olga as string }, 'owner');
  });

  it('counts the admins an owner created (and enrolled with the codes they were handed) as that owner', async () => {
    const held: Record<string, string> = { olga: tokens.olga as string };
    for (const [id, role] of [
      ['sock', 'approver'],
      ['puppet', 'owner'],
    ] as const) {
      const filed = await call(tokens.olga as string, 'POST', '/admins', { id, name: id, role });
      expect(filed.status).toBe(202);
      expect(filed.body).not.toHaveProperty('token');
      // Another person approves the creation, as they would a colleague's: the code still went to olga.
      const approved = await call(tokens.anna as string, 'POST', `/changes/${filed.body.id as string}/approve`);
      expect(approved.status).toBe(200);
      expect(JSON.stringify(approved.body)).not.toMatch(/cba_|cbe_/);
      held[id] = tokens[id] = await enrol(filed.body.enrolmentCode);
    }
    await tryEverything(held, 'created');
  });

  it('counts an admin an owner had re-enrolled (the old rotate-and-take road) as that owner', async () => {
    const taken = await call(tokens.olga as string, 'POST', '/admins/abe/token');
    expect(taken.status).toBe(200);
    expect(taken.body).not.toHaveProperty('token');
    expect((await call(tokens.abe as string, 'GET', '/me')).status).toBe(401);
    const filed = await call(tokens.olga as string, 'POST', '/admins/abe/enrolment');
    expect(filed.status).toBe(202);
    expect((await call(tokens.anna as string, 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(200);
    const abe = await enrol(filed.body.enrolmentCode);
    // The audit names abe's token only as abe's re-enrolment, sponsored by olga.
    const admins = (await call(tokens.olga as string, 'GET', '/admins')).body as unknown as Array<{ id: string; sponsor?: string }>;
    expect(admins.find((a) => a.id === 'abe')).toMatchObject({ sponsor: 'olga' });
    await tryEverything({ olga: tokens.olga as string, abe }, 'rotated', tokens.anna as string);
  });

  it('applies a whole-document change only as previewed: filed without If-Match, refused once an owner deleted a vendor', async () => {
    const exported = (await call(tokens.otto as string, 'GET', '/access')).body as unknown as AccessDocument;
    exported.vendors.find((v) => v.id === 'acme')!.name = 'Acme (renamed)';
    const filed = await call(tokens.otto as string, 'PUT', '/access', exported);
    expect(filed.status).toBe(202);
    expect(filed.body.preview).toMatchObject({ after: { diff: { vendors: { added: [], removed: [] } } } });

    expect((await call(tokens.olga as string, 'DELETE', '/vendors/gone')).status).toBe(204);
    expect(await vendorStatus(gateway.url, gone)).toBe(401);

    const approved = await call(tokens.anna as string, 'POST', `/changes/${filed.body.id as string}/approve`);
    expect(approved.status).toBe(409);
    expect(approved.body.preview).toMatchObject({ after: { diff: { vendors: { added: ['gone'] } } } });
    expect((await call(tokens.anna as string, 'GET', '/vendors/gone')).status).toBe(404);
    expect(await vendorStatus(gateway.url, gone)).toBe(401);
    expect(await vendorStatus(gateway.url, teller)).toBe(200);
  });

  it('counts an owner’s admins as that owner through an admin deleted between them, and lets no loop or reused id split them', async () => {
    // puppet (olga's) creates heir; anna approves a routine creation; the code went to olga's person.
    const filed = await call(tokens.puppet as string, 'POST', '/admins', { id: 'heir', name: 'heir', role: 'approver' });
    expect(filed.status).toBe(202);
    expect((await call(tokens.anna as string, 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(200);
    const heir = await enrol(filed.body.enrolmentCode);
    // No loop: an admin up one's own sponsor chain cannot be re-enrolled by one.
    expect((await call(tokens.puppet as string, 'POST', '/admins/olga/enrolment')).status).toBe(409);
    expect((await call(tokens.olga as string, 'DELETE', '/admins/puppet')).status).toBe(204);
    // No reused id: the deleted admin's id stays taken, in any case.
    for (const id of ['puppet', 'Puppet']) expect((await call(tokens.olga as string, 'POST', '/admins', { id, name: id, role: 'approver' })).status).toBe(409);
    await tryEverything({ olga: tokens.olga as string, heir, sock: tokens.sock as string }, 'heir', tokens.anna as string);
  });

  it('keeps set-up closed when every approver is deleted: the bootstrap token still cannot create an admin', async () => {
    for (const id of ['anna', 'abe', 'olga', 'sock', 'heir']) expect((await call(TEST_ADMIN_TOKEN, 'DELETE', `/admins/${id}`)).status).toBe(204);
    const created = await call(TEST_ADMIN_TOKEN, 'POST', '/admins', { id: 'evil-after', name: 'Evil', role: 'approver' });
    expect(created.status).toBe(403);
    expect(created.body).not.toHaveProperty('enrolmentCode');
  });
});
