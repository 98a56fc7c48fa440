/**
 * What set-up leaves behind cannot act as a second person afterwards (issue 28, round 3
 * verification), on two gateways over one real Redis (admin.approvals: required): codes the
 * bootstrap token was handed and no one redeemed die with the latch; a bootstrap write racing the
 * second approver's enrolment on the other instance never commits after the latch; a change filed
 * with a token that was since revoked stays dead (one whose maker's role changed is dropped) after the maker is
 * re-enrolled or raised back; and the bootstrap token's own id is no admin to revoke.
 */
import type { AccessDocument } from '../../src/access/model';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { adminCall, startApprovalPair, type AdminAnswer as Answer } from '../support/admin-pair';
import type { TestGateway } from '../support/gateway';

jest.setTimeout(120_000);

const seed = (): AccessDocument => ({ vendors: [{ id: 'acme', name: 'Acme', status: 'active', licences: [], keys: [] }], users: [] });

const call = adminCall;
const pair = (): Promise<[TestGateway, TestGateway]> => startApprovalPair(seed());

async function withPair(run: (g1: TestGateway, g2: TestGateway) => Promise<void>): Promise<void> {
  const [g1, g2] = await pair();
  try {
    await run(g1, g2);
  } finally {
    await g1.stop();
    await g2.stop();
  }
}

/** Bootstrap creates these admins (set-up) and answers their codes. */
async function setUp(g: TestGateway, people: ReadonlyArray<readonly [string, string]>): Promise<Record<string, string>> {
  const codes: Record<string, string> = {};
  for (const [id, role] of people) {
    const res = await call(g.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id, name: id, role });
    expect(res.status).toBe(201);
    codes[id] = res.body.enrolmentCode as string;
  }
  return codes;
}

async function enrol(g: TestGateway, code: string | undefined): Promise<Answer> {
  return call(g.adminPort, null, 'POST', '/admins/enrol', { enrolmentCode: code });
}

interface Entry {
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly after: unknown;
  readonly approval?: { readonly checker?: string };
}

async function auditOf(g: TestGateway, token: string): Promise<Entry[]> {
  const res = await fetch(`http://127.0.0.1:${g.adminPort}/v1/audit/export?since=2000-01-01`, { headers: { authorization: `Bearer ${token}` } });
  // JSON lines, ending with the checkpoint the export signed.
  return (await res.text())
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Entry)
    .filter((e) => e.action !== 'audit.checkpoint');
}

describe('codes the bootstrap token was handed during set-up', () => {
  it('redeem nothing once set-up closes, are cleared (and audited) by the write that closes it, and an owner re-enrols them', async () => {
    await withPair(async (g1, g2) => {
      const codes = await setUp(g1, [
        ['olga', 'owner'],
        ['anna', 'approver'],
        ['late1', 'owner'],
        ['late2', 'approver'],
      ]);
      const olga = (await enrol(g1, codes.olga)).body.token as string;
      const anna = (await enrol(g2, codes.anna)).body.token as string;
      // One person (the bootstrap holder) would otherwise hold four tokens and approve alone.
      expect((await enrol(g2, codes.late1)).status).toBe(401);
      expect((await enrol(g1, codes.late2)).status).toBe(401);
      const list = (await call(g1.adminPort, olga, 'GET', '/admins')).body as unknown as Array<{ id: string; status: string }>;
      expect(list.filter((a) => a.id.startsWith('late')).map((a) => a.status)).toEqual(['no-token', 'no-token']);
      const closing = (await auditOf(g1, olga)).find((e) => e.action === 'admin.enrol' && e.target === 'admins/anna');
      expect(closing?.after).toMatchObject({ setupClosed: { enrolmentCodesCleared: expect.arrayContaining(['late1', 'late2']) } });
      expect(JSON.stringify(closing)).not.toContain(codes.late1);
      // An owner re-enrols one: a code olga is handed, so late1 is olga's person now.
      const re = await call(g1.adminPort, olga, 'POST', '/admins/late1/enrolment');
      expect((await call(g2.adminPort, anna, 'POST', `/changes/${re.body.id as string}/approve`)).status).toBe(200);
      const late1 = await enrol(g1, re.body.enrolmentCode as string);
      expect(late1.status).toBe(200);
      const filed = await call(g1.adminPort, late1.body.token as string, 'POST', '/vendors/acme/licences', { id: 'l-all', api: '*' });
      expect((await call(g2.adminPort, olga, 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(403);
    });
  });
});

describe('the bootstrap token racing the second approver’s enrolment on another instance', () => {
  const ROUNDS = 3;
  const RACERS = 16;

  it('never creates an admin after the write that closed set-up', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await withPair(async (g1, g2) => {
        const codes = await setUp(g1, [
          ['olga', 'owner'],
          ['anna', 'approver'],
        ]);
        const olga = (await enrol(g1, codes.olga)).body.token as string;
        const creates = Array.from({ length: RACERS }, (_, i) =>
          new Promise((r) => setTimeout(r, i)).then(() =>
            call(g1.adminPort, TEST_ADMIN_TOKEN, 'POST', '/admins', { id: `racer${i}`, name: 'r', role: 'owner' }),
          ),
        );
        const closing = new Promise((r) => setTimeout(r, RACERS / 3)).then(() => enrol(g2, codes.anna));
        const answers = await Promise.all([...creates, closing]);
        expect(answers.at(-1)?.status).toBe(200);
        for (const answer of answers.slice(0, -1)) expect([201, 403]).toContain(answer.status);
        const audit = await auditOf(g1, olga);
        const closedAt = audit.findIndex((e) => e.action === 'admin.enrol' && e.target === 'admins/anna');
        expect(audit.filter((e, i) => i > closedAt && e.action === 'admin.create')).toEqual([]);
      });
    }
  });

  it('never approves a change after the write that closed set-up', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await withPair(async (g1, g2) => {
        const codes = await setUp(g1, [
          ['olga', 'owner'],
          ['anna', 'approver'],
        ]);
        const olga = (await enrol(g1, codes.olga)).body.token as string;
        const ids: string[] = [];
        for (let i = 0; i < RACERS; i++)
          ids.push((await call(g1.adminPort, olga, 'POST', '/vendors/acme/licences', { id: `l${i}`, api: '*' })).body.id as string);
        const approvals = ids.map((id, i) =>
          new Promise((r) => setTimeout(r, i)).then(() => call(g1.adminPort, TEST_ADMIN_TOKEN, 'POST', `/changes/${id}/approve`)),
        );
        const closing = new Promise((r) => setTimeout(r, RACERS / 3)).then(() => enrol(g2, codes.anna));
        const answers = await Promise.all([...approvals, closing]);
        expect(answers.at(-1)?.status).toBe(200);
        const audit = await auditOf(g1, olga);
        const closedAt = audit.findIndex((e) => e.action === 'admin.enrol' && e.target === 'admins/anna');
        expect(audit.filter((e, i) => i > closedAt && e.approval?.checker === 'admin:bootstrap')).toEqual([]);
      });
    }
  });
});

describe('a change filed with a token or role its maker no longer holds', () => {
  let g1: TestGateway;
  let g2: TestGateway;
  const t: Record<string, string> = {};

  beforeAll(async () => {
    [g1, g2] = await pair();
    const codes = await setUp(g1, [
      ['otto', 'operator'],
      ['olga', 'owner'],
      ['anna', 'approver'],
    ]);
    for (const id of Object.keys(codes)) t[id] = (await enrol(g1, codes[id])).body.token as string;
  });
  afterAll(async () => {
    await g1.stop();
    await g2.stop();
  });

  it('stays unapprovable after the maker’s token is revoked and they are re-enrolled', async () => {
    const leaked = await call(g1.adminPort, t.otto as string, 'POST', '/vendors/acme/licences', { id: 'l-leaked', api: '*' });
    expect(leaked.status).toBe(202);
    expect((await call(g1.adminPort, t.olga as string, 'POST', '/admins/otto/token')).status).toBe(200);
    expect((await call(g2.adminPort, t.anna as string, 'POST', `/changes/${leaked.body.id as string}/approve`)).status).toBe(409);
    const re = await call(g1.adminPort, t.olga as string, 'POST', '/admins/otto/enrolment');
    expect((await call(g2.adminPort, t.anna as string, 'POST', `/changes/${re.body.id as string}/approve`)).status).toBe(200);
    t.otto = (await enrol(g1, re.body.enrolmentCode as string)).body.token as string;
    const after = await call(g2.adminPort, t.anna as string, 'POST', `/changes/${leaked.body.id as string}/approve`);
    expect(after.status).toBe(409);
    expect(JSON.stringify(after.body)).toContain('no longer holds');
    // Filed again with the new token, it stands.
    const again = await call(g1.adminPort, t.otto as string, 'POST', '/vendors/acme/licences', { id: 'l-again', api: 'GET*' });
    expect((await call(g2.adminPort, t.anna as string, 'POST', `/changes/${again.body.id as string}/approve`)).status).toBe(200);
  });

  it('stays unapprovable after the maker is demoted and raised back', async () => {
    const filed = await call(g1.adminPort, t.otto as string, 'POST', '/vendors/acme/licences', { id: 'l-demoted', api: '*' });
    expect(filed.status).toBe(202);
    expect((await call(g1.adminPort, t.olga as string, 'PATCH', '/admins/otto', { role: 'viewer' })).status).toBe(200);
    const up = await call(g1.adminPort, t.olga as string, 'PATCH', '/admins/otto', { role: 'operator' });
    expect((await call(g2.adminPort, t.anna as string, 'POST', `/changes/${up.body.id as string}/approve`)).status).toBe(200);
    // The demotion dropped it in the same write (and named it in its audit entry).
    expect((await call(g2.adminPort, t.anna as string, 'POST', `/changes/${filed.body.id as string}/approve`)).status).toBe(404);
    const demotion = (await auditOf(g1, t.anna as string)).find((e) => e.action === 'admin.role' && (e.after as { role?: string }).role === 'viewer');
    expect(demotion?.after).toMatchObject({ pendingChangesDropped: expect.arrayContaining([filed.body.id]) });
  });

  it('never shows the seal it is checked by', async () => {
    const filed = await call(g1.adminPort, t.otto as string, 'POST', '/vendors/acme/licences', { id: 'l-shown', api: 'GET*' });
    expect(Object.keys(filed.body)).not.toContain('makerSeal');
    expect(JSON.stringify((await call(g1.adminPort, t.anna as string, 'GET', '/changes')).body)).not.toContain('makerSeal');
  });

  it('the bootstrap token’s id is no admin: revoking it, or changing it, is 404 for an owner and 403 for an approver', async () => {
    expect((await call(g1.adminPort, t.olga as string, 'POST', '/admins/bootstrap/token')).status).toBe(404);
    expect((await call(g1.adminPort, t.anna as string, 'POST', '/admins/bootstrap/token')).status).toBe(403);
    expect((await call(g1.adminPort, t.anna as string, 'POST', '/admins/otto/token')).status).toBe(403);
  });
});
