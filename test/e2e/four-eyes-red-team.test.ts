/**
 * Four eyes against the red team's roads (issue 28, round 3), on two gateways over one real Redis
 * (admin.approvals: required): a sponsor loop or a deleted sponsor never splits one person in two,
 * an admin id is never reused (nor `bootstrap` in any case), set-up never reopens once two
 * approvers hold tokens, a pending change applies only on the very records it was previewed on,
 * and only while its maker could still file it.
 */
import type { AccessDocument } from '../../src/access/model';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { adminCall, startApprovalPair } from '../support/admin-pair';
import type { TestGateway } from '../support/gateway';
import { testKey } from '../support/access-fixture';

const teller = testKey('k-teller', 'teller');

function seed(): AccessDocument {
  return {
    vendors: [
      {
        id: 'acme',
        name: 'Acme',
        status: 'active',
        licences: [
          { id: 'l-read', api: 'GET*' },
          { id: 'l-post', api: 'POST*' },
        ],
        keys: [teller.record],
      },
      { id: 'gone', name: 'Compromised', status: 'active', licences: [], keys: [] },
    ],
    users: [
      {
        id: 'teller',
        permissions: [
          { id: 'p-all', api: '*' },
          { id: 'p-get', api: 'GET*' },
        ],
      },
    ],
  };
}

const call = adminCall;
const pair = (): Promise<[TestGateway, TestGateway]> => startApprovalPair(seed());

let g1: TestGateway;
let g2: TestGateway;
const t: Record<string, string> = {};
const token = (id: string): string => t[id] as string;

async function enrol(code: unknown): Promise<string> {
  const res = await call(g1.adminPort, null, 'POST', '/admins/enrol', { enrolmentCode: code });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** `maker` files an admin's creation, `checker` (another person) approves it, and the code is redeemed. */
async function createdBy(maker: string, checker: string, id: string, role: string): Promise<void> {
  const filed = await call(g1.adminPort, token(maker), 'POST', '/admins', { id, name: id, role });
  expect(filed.status).toBe(202);
  expect((await call(g2.adminPort, token(checker), 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(200);
  t[id] = await enrol(filed.body.enrolmentCode);
}

beforeAll(async () => {
  [g1, g2] = await pair();
  const codes: Record<string, unknown> = {};
  // Set-up closes (clearing the codes still out) once two approvers hold tokens: the other
  // approvers are made as viewers, enrol first, and are raised afterwards with four eyes.
  const people = [
    ['otto', 'operator'],
    ['opa', 'operator'],
    ['opb', 'operator'],
    ['opc', 'operator'],
    ['anna', 'viewer'],
    ['abe', 'viewer'],
    ['zed', 'owner'],
    ['olga', 'owner'],
  ];
  for (const [id, role] of people) {
    const res = await call(g1.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id, name: id, role });
    expect(res.status).toBe(201);
    codes[id as string] = res.body.enrolmentCode;
  }
  for (const id of Object.keys(codes)) t[id] = await enrol(codes[id]);
  for (const id of ['anna', 'abe']) {
    const raise = await call(g1.adminPort, token('zed'), 'PATCH', `/admins/${id}`, { role: 'approver' });
    expect((await call(g2.adminPort, token('olga'), 'POST', `/changes/${raise.body.id as string}/approve`)).status).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  await g1.stop();
  await g2.stop();
});

/** `maker` files a licence grant on g1; `checker` tries to approve it on g2. */
async function grantApprovedBy(maker: string, checker: string, licenceId: string): Promise<number> {
  const filed = await call(g1.adminPort, token(maker), 'POST', '/vendors/acme/licences', { id: licenceId, api: '*' });
  expect(filed.status).toBe(202);
  const status = (await call(g2.adminPort, token(checker), 'POST', `/changes/${filed.body.id as string}/approve`)).status;
  if (status !== 200) expect((await call(g1.adminPort, token('anna'), 'POST', `/changes/${filed.body.id as string}/reject`)).status).toBe(204);
  return status;
}

describe('one person stays one person', () => {
  it('never reuses a deleted admin’s id, so an owner cannot become their own sponsor’s sponsor (a loop through a reused id)', async () => {
    await createdBy('zed', 'anna', 'oli', 'owner');
    expect((await call(g1.adminPort, token('oli'), 'DELETE', '/admins/zed')).status).toBe(204);
    for (const id of ['zed', 'ZED']) {
      const again = await call(g1.adminPort, token('oli'), 'POST', '/admins', { id, name: 'New Zed', role: 'approver' });
      expect({ id, status: again.status }).toEqual({ id, status: 409 });
      expect(again.body).not.toHaveProperty('enrolmentCode');
    }
    // The deleted admin is gone from every list and road, its record kept only as a tombstone.
    const listed = (await call(g1.adminPort, token('oli'), 'GET', '/admins')).body as unknown as Array<{ id: string }>;
    expect(listed.map((a) => a.id)).not.toContain('zed');
    expect((await call(g1.adminPort, token('oli'), 'DELETE', '/admins/zed')).status).toBe(404);
    expect((await call(g1.adminPort, token('oli'), 'POST', '/admins/zed/enrolment')).status).toBe(404);
  });

  it('refuses to let an admin re-enrol anyone up their own sponsor chain (the puppet re-enrolling its owner)', async () => {
    await createdBy('olga', 'anna', 'puppet', 'owner');
    const loop = await call(g1.adminPort, token('puppet'), 'POST', '/admins/olga/enrolment');
    expect(loop.status).toBe(409);
    expect(loop.body).not.toHaveProperty('enrolmentCode');
    expect((await call(g1.adminPort, token('puppet'), 'POST', '/admins/puppet/enrolment')).status).toBe(409);
    expect(await grantApprovedBy('olga', 'puppet', 'evil-puppet')).toBe(403);
    expect(await grantApprovedBy('puppet', 'olga', 'evil-olga')).toBe(403);
  });

  it('keeps counting admins as their deleted sponsor’s person: deleting the middle of a chain splits nothing', async () => {
    await createdBy('olga', 'anna', 'sock', 'owner');
    await createdBy('sock', 'abe', 'sock2', 'approver');
    expect((await call(g1.adminPort, token('olga'), 'DELETE', '/admins/sock')).status).toBe(204);
    expect(await grantApprovedBy('olga', 'sock2', 'evil-sock2')).toBe(403);
    expect((await call(g1.adminPort, token('anna'), 'GET', '/vendors/acme/licences')).body).not.toContainEqual(expect.objectContaining({ id: 'evil-sock2' }));
  });

  it('refuses an admin id that reads as bootstrap in any case, and one that differs from another only in case', async () => {
    for (const id of ['Bootstrap', 'BOOTSTRAP']) {
      const res = await call(g1.adminPort, token('olga'), 'POST', '/admins', { id, name: 'x', role: 'viewer' });
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
    }
    expect((await call(g1.adminPort, token('olga'), 'POST', '/admins', { id: 'Anna', name: 'x', role: 'viewer' })).status).toBe(409);
  });
});

describe('a pending change applies only on the records it was previewed on', () => {
  it('refuses a licence and a key filed for a vendor that was deleted and made again meanwhile', async () => {
    const licence = await call(g1.adminPort, token('otto'), 'POST', '/vendors/gone/licences', { id: 'l-star', api: '*' });
    const key = await call(g1.adminPort, token('otto'), 'POST', '/vendors/gone/keys', { userId: 'teller' });
    expect([licence.status, key.status]).toEqual([202, 202]);
    expect((await call(g1.adminPort, token('olga'), 'DELETE', '/vendors/gone')).status).toBe(204);
    const again = await call(g1.adminPort, token('otto'), 'POST', '/vendors', { id: 'gone', name: 'Someone new', status: 'active' });
    expect((await call(g2.adminPort, token('anna'), 'POST', `/changes/${again.body.id as string}/approve`)).status).toBe(200);
    for (const filed of [licence, key]) {
      const approved = await call(g2.adminPort, token('abe'), 'POST', `/changes/${filed.body.id as string}/approve`);
      expect(approved.status).toBe(409);
      expect(approved.body).toHaveProperty('preview');
      expect(JSON.stringify(approved.body)).not.toMatch(/cbk_|"secret"/);
    }
    expect((await call(g1.adminPort, token('anna'), 'GET', '/vendors/gone/licences')).body).toEqual([]);
    expect(((await call(g1.adminPort, token('anna'), 'GET', '/vendors/gone/keys')).body as { items?: unknown[] }).items ?? []).toEqual([]);
  });

  it('refuses a rate limit filed before the vendor was suspended, and grants filed before another licence or permission of the same record was revoked', async () => {
    const rate = await call(g1.adminPort, token('otto'), 'PUT', '/vendors/acme/rate-limit', { points: 99_999, durationSeconds: 1 });
    const licence = await call(g1.adminPort, token('otto'), 'POST', '/vendors/acme/licences', { id: 'l-new', api: 'GET*' });
    const permission = await call(g1.adminPort, token('otto'), 'POST', '/users/teller/permissions', { id: 'p-new', api: 'GET*' });
    expect([rate.status, licence.status, permission.status]).toEqual([202, 202, 202]);
    expect((await call(g1.adminPort, token('olga'), 'DELETE', '/vendors/acme/licences/l-post')).status).toBe(204);
    expect((await call(g1.adminPort, token('olga'), 'DELETE', '/users/teller/permissions/p-get')).status).toBe(204);
    for (const filed of [licence, permission])
      expect((await call(g2.adminPort, token('anna'), 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(409);
    expect((await call(g1.adminPort, token('olga'), 'PATCH', '/vendors/acme', { status: 'suspended' })).status).toBe(200);
    expect((await call(g2.adminPort, token('anna'), 'POST', `/changes/${rate.body.id as string}/approve`)).status).toBe(409);
    const acme = (await call(g1.adminPort, token('anna'), 'GET', '/vendors/acme')).body;
    expect(acme).toMatchObject({ status: 'suspended' });
    expect(acme.rateLimit).toBeUndefined();
  });
});

describe('a pending change stands only while its maker could still file it', () => {
  it('refuses (409) the change of a maker deleted or revoked since; a demotion drops it (404)', async () => {
    const filed: Record<string, string> = {};
    for (const maker of ['opa', 'opb', 'opc']) {
      const res = await call(g1.adminPort, token(maker), 'POST', '/users/teller/permissions', { id: `p-${maker}`, api: 'POST*' });
      expect(res.status).toBe(202);
      filed[maker] = res.body.id as string;
    }
    expect((await call(g1.adminPort, token('olga'), 'DELETE', '/admins/opa')).status).toBe(204);
    expect((await call(g1.adminPort, token('olga'), 'POST', '/admins/opb/token')).status).toBe(200);
    expect((await call(g1.adminPort, token('olga'), 'PATCH', '/admins/opc', { role: 'viewer' })).status).toBe(200);
    for (const maker of ['opa', 'opb', 'opc']) {
      const approved = await call(g2.adminPort, token('anna'), 'POST', `/changes/${filed[maker] as string}/approve`);
      expect({ maker, status: approved.status }).toEqual({ maker, status: maker === 'opc' ? 404 : 409 });
    }
    const permissions = (await call(g1.adminPort, token('anna'), 'GET', '/users/teller/permissions')).body as unknown as { items: Array<{ id: string }> };
    expect(JSON.stringify(permissions)).not.toMatch(/p-op[abc]/);
  });
});

describe('set-up never opens again', () => {
  it('keeps set-up closed when two approvers enrol at once on two instances and the bootstrap token then revokes one', async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = await pair();
      try {
        const codes: Record<string, unknown> = {};
        for (const id of ['ann', 'ben'])
          codes[id] = (await call(a.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id, name: id, role: 'approver' })).body.enrolmentCode;
        const enrolled = await Promise.all([
          call(a.adminPort, null, 'POST', '/admins/enrol', { enrolmentCode: codes.ann }),
          call(b.adminPort, null, 'POST', '/admins/enrol', { enrolmentCode: codes.ben }),
        ]);
        expect(enrolled.map((r) => r.status)).toEqual([200, 200]);
        expect((await call(a.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins/ben/token')).status).toBe(200);
        const evil = await call(b.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id: 'evil', name: 'evil', role: 'owner' });
        expect({ round, status: evil.status }).toEqual({ round, status: 403 });
        expect((await call(a.adminPort, TEST_ADMIN_TOKEN, 'DELETE', '/admins/ann')).status).toBe(204);
        expect((await call(a.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id: 'evil2', name: 'evil', role: 'owner' })).status).toBe(403);
      } finally {
        await a.stop();
        await b.stop();
      }
    }
  }, 60_000);
});
