/**
 * Single-sign-on admins on the server side, through the admin API on a real HTTP server over a
 * memory store: their records, sessions, blocking, four eyes with them, and token sign-in turned
 * off. The provider's part (the redirect, the ID token) runs against a real OpenID provider in
 * test/e2e/admin-sso.test.ts; here the verified sign-in is recorded directly, as the callback does.
 */
import path from 'node:path';
import request from 'supertest';
import { MemoryAccessStore, readAccessFile } from '../access/access-store';
import { AdminDirectory } from './operations/admin-directory';
import { Proposals } from './operations/proposals';
import type { SsoAdmins } from './operations/sso-admins';
import type { AccessWriter } from './operations/access-writer';
import { createLogger } from '../logging/logger';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback } from '../../test/support/listen';
import { adminConfigDeps, createAdminApp } from './admin-app';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { MemorySessionEpochs } from '../sessions/session-epochs';
import { adminSessions, SESSION_COOKIE } from './admin-session';
import type { AdminRole } from '../access/model';
import { adminSchema } from './admin.schema';

const TOKEN = 'admin-token-for-tests-0123456789';
const ISSUER = 'https://login.bank.example/tenant-1';
const CALLBACK = 'https://admin.bank.example/ui/sso/callback';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const UI = { 'x-requested-by': 'cbg-admin-ui' };

interface Harness {
  readonly api: ReturnType<typeof request>;
  readonly audit: MemoryAuditLog;
  readonly sso: SsoAdmins;
  readonly writer: AccessWriter;
  readonly breakGlass: string[];
  /** The app's own session signer: what a holder of the bootstrap token could sign with. */
  readonly sessions: ReturnType<typeof adminSessions>;
  /** The session cookie a single-sign-on admin gets from the callback: recorded, then signed in with `role`. */
  signInSso(subject: string, role: AdminRole, name?: string): Promise<string>;
  close(): Promise<void>;
}

const open: Harness[] = [];

async function startAdmin(options: { approvals: 'off' | 'required'; tokenSignIn?: boolean; oidc?: boolean }): Promise<Harness> {
  const audit = new MemoryAuditLog();
  const store = new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit });
  const service = accessServiceFor(store);
  const admins = new AdminDirectory(service.writer, { ssoIssuer: ISSUER });
  const epochs = new MemorySessionEpochs();
  const breakGlass: string[] = [];
  const app = createAdminApp({
    service,
    admins,
    proposals: new Proposals(service, { approvals: options.approvals, changeTtlHours: 72, singleSignOn: true }, admins),
    audit,
    adminToken: TOKEN,
    logger: createLogger('silent'),
    sessionEpochs: epochs,
    tokenSignIn: options.tokenSignIn ?? true,
    onBreakGlass: (via) => breakGlass.push(via),
    ...(options.oidc
      ? {
          oidc: adminConfigDeps(adminSchema.parse({ oidc: { issuer: ISSUER, clientId: 'gateway', redirectUrl: CALLBACK, roles: { viewer: ['staff'] } } })).oidc,
        }
      : {}),
  });
  const server = await listenOnLoopback(app);
  const sso = admins.sso as SsoAdmins;
  const sessions = adminSessions(TOKEN, { idleMinutes: 30, maxHours: 12, epochs });
  const harness: Harness = {
    api: request(server.url),
    audit,
    sso,
    writer: service.writer,
    breakGlass,
    sessions,
    async signInSso(subject, role, name = subject) {
      const outcome = await sso.signIn({ subject, issuer: ISSUER, name, email: `${subject}@bank.example`, role });
      if (!('fingerprint' in outcome)) throw new Error(`sign-in refused: ${outcome.refused}`);
      const session = await sessions.issue(`oidc:${subject}`, outcome.fingerprint, 15 * 60_000);
      return `${SESSION_COOKIE}=${session.value}`;
    },
    close: () => server.close(),
  };
  open.push(harness);
  return harness;
}

afterEach(async () => {
  for (const harness of open.splice(0)) await harness.close();
});

/** A token admin, created and enrolled while token writes still apply at once; answers its token. */
async function tokenAdmin(h: Harness, owner: string, id: string, role: AdminRole): Promise<string> {
  const created = await h.api.post('/v1/admins').set('Cookie', owner).set(UI).send({ id, name: id, role });
  expect(created.status).toBe(201);
  const enrolled = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: created.body.enrolmentCode });
  return enrolled.body.token as string;
}

describe('single-sign-on admins', () => {
  it('acts with the role its sign-in gave, shown by name and email, audited as admin:oidc:<sub>', async () => {
    const h = await startAdmin({ approvals: 'off' });
    const cookie = await h.signInSso('a1b2c3', 'operator', 'Olga Operator');
    const me = await h.api.get('/v1/me').set('Cookie', cookie);
    expect(me.body).toMatchObject({ id: 'oidc:a1b2c3', name: 'Olga Operator', email: 'a1b2c3@bank.example', role: 'operator', source: 'oidc' });
    expect((await h.api.post('/v1/vendors').set('Cookie', cookie).set(UI).send({ id: 'sso-made', name: 'SSO made' })).status).toBe(201);
    expect((await h.api.get('/v1/admins').set('Cookie', cookie)).status).toBe(403);
    const entries = await h.audit.list({ limit: 10 });
    expect(entries.find((e) => e.action === 'vendor.create')?.actor).toBe('admin:oidc:a1b2c3');
    expect(entries.find((e) => e.action === 'admin.sso_seen')).toMatchObject({ actor: 'admin:oidc:a1b2c3', target: 'admins/oidc:a1b2c3' });
  });

  it('gives a record written without a session salt one at its next sign-in, so its admin can sign in', async () => {
    const h = await startAdmin({ approvals: 'off' });
    await h.sso.signIn({ subject: 'old', issuer: ISSUER, name: 'Old', email: undefined, role: 'viewer' });
    const index = await h.writer.index();
    const { sessionSalt: _salt, ...unsalted } = index.admin('oidc:old')!;
    await h.writer.write('admin:test', () => ({
      result: null,
      change: { action: 'test.unsalted', target: 'admins/oidc:old', before: null, after: null },
      ops: [{ kind: 'admin', id: 'oidc:old', value: unsalted, expect: index.admin('oidc:old')! }],
    }));
    expect((await h.writer.index()).admin('oidc:old')?.sessionSalt).toBeUndefined();
    const again = await h.sso.signIn({ subject: 'old', issuer: ISSUER, name: 'Old', email: undefined, role: 'viewer' });
    if (!('fingerprint' in again)) throw new Error(`sign-in refused: ${again.refused}`);
    expect(again.fingerprint).toMatch(/^sso:viewer:[0-9a-f]{32}$/);
    expect(await h.sso.sessionIdentity('oidc:old', again.fingerprint)).toMatchObject({ id: 'oidc:old', role: 'viewer' });
  });

  it('writes its record at the first sign-in and again only when the name, email or role changes', async () => {
    const h = await startAdmin({ approvals: 'off' });
    const seen = async (): Promise<number> => (await h.audit.list({ limit: 50 })).filter((e) => e.action === 'admin.sso_seen').length;
    await h.sso.signIn({ subject: 'u1', issuer: ISSUER, name: 'U One', email: 'u1@bank.example', role: 'viewer' });
    await h.sso.signIn({ subject: 'u1', issuer: ISSUER, name: 'U One', email: 'u1@bank.example', role: 'viewer' });
    expect(await seen()).toBe(1);
    await h.sso.signIn({ subject: 'u1', issuer: ISSUER, name: 'U One', email: 'u1@bank.example', role: 'operator' });
    expect(await seen()).toBe(2);
    // Issuer and subject together are the identity: the same subject from another issuer is someone else.
    expect(await h.sso.signIn({ subject: 'u1', issuer: 'https://other.example', name: 'X', email: undefined, role: 'owner' })).toEqual({
      refused: 'identity_conflict',
    });
  });

  it('lets an owner block one: its sessions end at once, it cannot sign in, and unblocking it takes a second approver', async () => {
    const h = await startAdmin({ approvals: 'required' });
    const owner = await h.signInSso('owner-1', 'owner');
    const approver = await h.signInSso('approver-1', 'approver');
    const target = await h.signInSso('op-1', 'operator');
    expect((await h.api.get('/v1/vendors').set('Cookie', target)).status).toBe(200);

    const blocked = await h.api.post('/v1/admins/oidc%3Aop-1/block').set('Cookie', owner).set(UI);
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ id: 'oidc:op-1', status: 'blocked', blockedBy: 'oidc:owner-1' });
    expect((await h.api.get('/v1/vendors').set('Cookie', target)).status).toBe(401);
    expect(await h.sso.signIn({ subject: 'op-1', issuer: ISSUER, name: 'op-1', email: undefined, role: 'operator' })).toEqual({ refused: 'blocked' });
    const listed = await h.api.get('/v1/admins').set('Cookie', owner);
    expect(listed.body).toContainEqual(expect.objectContaining({ id: 'oidc:op-1', source: 'oidc', status: 'blocked', email: 'op-1@bank.example' }));

    const unblock = await h.api.delete('/v1/admins/oidc%3Aop-1/block').set('Cookie', owner).set(UI);
    expect(unblock.status).toBe(202);
    expect((await h.api.post(`/v1/changes/${unblock.body.id}/approve`).set('Cookie', owner).set(UI)).status).toBe(403);
    expect((await h.api.post(`/v1/changes/${unblock.body.id}/approve`).set('Cookie', approver).set(UI)).status).toBe(200);
    // Unblocked, it signs in again; the session it held when blocked stays ended.
    expect((await h.api.get('/v1/vendors').set('Cookie', target)).status).toBe(401);
    expect((await h.api.get('/v1/vendors').set('Cookie', await h.signInSso('op-1', 'operator'))).status).toBe(200);
    const actions = (await h.audit.list({ limit: 50 })).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['admin.block', 'admin.unblock']));
  });

  it('refuses token operations on one (its role and sign-in belong to the provider): delete, role change, token', async () => {
    const h = await startAdmin({ approvals: 'off' });
    const owner = await h.signInSso('owner-1', 'owner');
    await h.signInSso('v-1', 'viewer');
    for (const res of [
      await h.api.delete('/v1/admins/oidc%3Av-1').set('Cookie', owner).set(UI),
      await h.api.patch('/v1/admins/oidc%3Av-1').set('Cookie', owner).set(UI).send({ role: 'owner' }),
      await h.api.post('/v1/admins/oidc%3Av-1/token').set('Cookie', owner).set(UI),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/single sign-on/);
    }
    const tokenOwner = await tokenAdmin(h, owner, 'tina', 'viewer');
    expect(tokenOwner).toMatch(/^cba_/);
    expect((await h.api.post('/v1/admins/tina/block').set('Cookie', owner).set(UI)).status).toBe(409);
  });
});

describe('four eyes with single sign-on', () => {
  it('holds between two single-sign-on admins: the maker cannot approve, another approver can', async () => {
    const h = await startAdmin({ approvals: 'required' });
    const maker = await h.signInSso('maker', 'owner');
    const checker = await h.signInSso('checker', 'approver');
    const filed = await h.api.post('/v1/vendors').set('Cookie', maker).set(UI).send({ id: 'four-eyes', name: 'Four eyes' });
    expect(filed.status).toBe(202);
    const own = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set('Cookie', maker).set(UI);
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('permission_denied');
    expect((await h.api.post(`/v1/changes/${filed.body.id}/approve`).set('Cookie', checker).set(UI)).status).toBe(200);
    const applied = (await h.audit.list({ limit: 20 })).find((e) => e.action === 'vendor.create');
    expect(applied?.approval).toMatchObject({ maker: 'admin:oidc:maker', checker: 'admin:oidc:checker' });
  });

  it('holds between a single-sign-on admin and a token admin: the token admin only reads and takes access away', async () => {
    const h = await startAdmin({ approvals: 'required' });
    const ssoApprover = await h.signInSso('checker', 'approver');
    const ssoOperator = await h.signInSso('maker', 'operator');
    // A token admin comes from an approved change too: an SSO owner files it, the SSO approver approves it.
    const owner = await h.signInSso('owner-1', 'owner');
    const filedAdmin = await h.api.post('/v1/admins').set('Cookie', owner).set(UI).send({ id: 'tom', name: 'Tom', role: 'owner' });
    expect(filedAdmin.status).toBe(202);
    expect((await h.api.post(`/v1/changes/${filedAdmin.body.id}/approve`).set('Cookie', ssoApprover).set(UI)).status).toBe(200);
    const tom = (await h.api.post('/v1/admins/enrol').send({ enrolmentCode: filedAdmin.body.enrolmentCode })).body.token as string;

    // A token says nothing of who holds it (maybe the SSO maker): it neither approves nor files a grant.
    const bySso = await h.api.post('/v1/vendors').set('Cookie', ssoOperator).set(UI).send({ id: 'by-sso', name: 'By SSO' });
    const refused = await h.api.post(`/v1/changes/${bySso.body.id}/approve`).set(bearer(tom));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/single sign-on/);
    const byToken = await h.api.post('/v1/vendors').set(bearer(tom)).send({ id: 'by-token', name: 'By token' });
    expect(byToken.status).toBe(403);
    expect((await h.api.patch('/v1/vendors/readonly-partner').set(bearer(tom)).send({ status: 'suspended' })).status).toBe(200);
    expect((await h.api.post(`/v1/changes/${bySso.body.id}/approve`).set('Cookie', ssoApprover).set(UI)).status).toBe(200);
  });

  it('ends a session another site tossed in beside ours rather than guess which is ours', async () => {
    const h = await startAdmin({ approvals: 'off' });
    const ours = await h.signInSso('o-1', 'operator');
    const theirs = await h.signInSso('attacker', 'viewer');
    expect((await h.api.get('/v1/me').set('Cookie', `${theirs}; ${ours}`)).status).toBe(401);
    expect((await h.api.get('/v1/me').set('Cookie', ours)).body.id).toBe('oidc:o-1');
  });

  it('refuses a session cookie signed with the bootstrap token for a single-sign-on admin: only the gateway knows the salt', async () => {
    const h = await startAdmin({ approvals: 'off' });
    await h.signInSso('owner-1', 'owner');
    for (const fingerprint of ['sso:owner', `sso:owner:${'0'.repeat(32)}`]) {
      const forged = await h.sessions.issue('oidc:owner-1', fingerprint);
      expect((await h.api.get('/v1/me').set('Cookie', `${SESSION_COOKIE}=${forged.value}`)).status).toBe(401);
    }
  });

  it('leaves the bootstrap token only reading and taking access away', async () => {
    const h = await startAdmin({ approvals: 'required' });
    const refused = await h.api.post('/v1/vendors').set(bearer(TOKEN)).send({ id: 'boot', name: 'Boot' });
    expect(refused.status).toBe(403);
    expect((await h.api.patch('/v1/vendors/readonly-partner').set(bearer(TOKEN)).send({ status: 'suspended' })).status).toBe(200);
    expect((await h.audit.list({ limit: 20 })).some((e) => e.action === 'setup.close')).toBe(true);
  });
});

describe('token sign-in turned off', () => {
  it('refuses a named admin at the web UI but lets the bootstrap token in as break-glass, each use counted', async () => {
    const h = await startAdmin({ approvals: 'off', tokenSignIn: false });
    const owner = await h.signInSso('owner-1', 'owner');
    const named = await tokenAdmin(h, owner, 'nina', 'operator');
    const refused = await h.api.post('/ui/session').set(UI).send({ token: named });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/single sign-on/);
    // Automation keeps its bearer token.
    expect((await h.api.get('/v1/vendors').set(bearer(named))).status).toBe(200);
    expect((await h.api.get('/ui/session')).body.signIn).toEqual({ sso: false, token: false });

    const signedIn = await h.api.post('/ui/session').set(UI).send({ token: TOKEN });
    expect(signedIn.status).toBe(200);
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] as string;
    expect((await h.api.get('/v1/vendors').set('Cookie', cookie)).status).toBe(200);
    expect(h.breakGlass).toEqual(['sign_in', 'request']);
    const entry = (await h.audit.list({ limit: 20 })).find((e) => e.action === 'admin.sign_in');
    expect(entry).toMatchObject({ actor: 'admin:bootstrap', after: { method: 'token', breakGlass: true } });
    expect(JSON.stringify(await h.audit.list({ limit: 50 }))).not.toContain(TOKEN);
  });
});

describe('the single-sign-on callback, before any provider is asked', () => {
  it('sends a browser with no sign-in in progress back to the sign-in page as state_mismatch, on record without letting the log be flooded', async () => {
    const h = await startAdmin({ approvals: 'off', oidc: true });
    expect((await h.api.get('/ui/session')).body.signIn).toEqual({ sso: true, token: true });
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const res = await h.api.get('/ui/sso/callback?code=stolen&state=guessed');
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/?sso=state_mismatch');
      expect(String(res.headers['set-cookie'])).toMatch(/^cbg_admin_sso=; Path=\/ui\/sso; HttpOnly; SameSite=Lax; Max-Age=0/);
    }
    const refusals = (await h.audit.list({ limit: 50 })).filter((e) => e.action === 'admin.sign_in_refused');
    expect(refusals).toHaveLength(10);
    expect(refusals[0]).toMatchObject({ actor: 'oidc:unverified', after: { reason: 'state_mismatch', method: 'oidc', issuer: ISSUER } });
    expect(JSON.stringify(refusals)).not.toContain('stolen');
  });

  it('starts no session without a verified sign-in to finish, nor from another site', async () => {
    const h = await startAdmin({ approvals: 'off', oidc: true });
    expect((await h.api.post('/ui/sso/session').set(UI)).status).toBe(401);
    expect((await h.api.post('/ui/sso/session').set('Cookie', 'cbg_admin_sso=forged.value').set(UI)).status).toBe(401);
    expect((await h.api.post('/ui/sso/session')).status).toBe(403);
  });
});
