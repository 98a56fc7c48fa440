/**
 * Signing in to the admin port, over real HTTP: the throttle counts only presented wrong tokens
 * per client address (as server.trustedProxies gives it) and never refuses a right one; sign-in,
 * sign-out and failed logins are on the audit log (failures once per address and minute, never
 * the token).
 */
import path from 'node:path';
import request from 'supertest';
import { MemoryAccessStore, readAccessFile } from '../access/access-store';
import { createClientAddressResolver } from '../core-client/forwarded';
import { createLogger } from '../logging/logger';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback, type Listening } from '../../test/support/listen';
import { createAdminApp, type AdminAppDeps } from './admin-app';
import { AuthThrottle } from './auth-throttle';
import { MemoryAuditLog } from '../access/memory-audit-log';
import { FailedLoginAudit } from './failed-logins';

const TOKEN = 'admin-token-for-tests-0123456789';
const WRONG = 'a-wrong-admin-token-000000000';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');
const UI = { 'x-requested-by': 'cbg-admin-ui' };

const open: Listening[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function start(overrides: Partial<AdminAppDeps> = {}): Promise<{ api: ReturnType<typeof request>; audit: MemoryAuditLog }> {
  const audit = new MemoryAuditLog();
  const service = accessServiceFor(new MemoryAccessStore(readAccessFile(SANDBOX_ACCESS), { audit }));
  const app = createAdminApp({
    service,
    audit,
    adminToken: TOKEN,
    logger: createLogger('silent'),
    throttle: new AuthThrottle({ freeFailures: 3, maxBackoffMs: 60_000 }),
    ...overrides,
  });
  const server = await listenOnLoopback(app);
  open.push(server);
  return { api: request(server.url), audit };
}

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('the admin throttle', () => {
  it('lets the right token through from an address its wrong tokens throttled, on the API and at sign-in', async () => {
    const { api } = await start();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.get('/v1/vendors').set(bearer(WRONG))).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect((await api.get('/v1/vendors').set(bearer(TOKEN))).status).toBe(200);
    expect((await api.post('/ui/session').set(UI).send({ token: WRONG })).status).toBe(429);
    expect((await api.post('/ui/session').set(UI).send({ token: TOKEN })).status).toBe(200);
  });

  it('never counts a request that presents no credential: any number of them, then a wrong token is still only 401', async () => {
    const { api } = await start();
    for (let i = 0; i < 20; i++) expect((await api.get('/v1/vendors')).status).toBe(401);
    expect((await api.get('/v1/vendors').set('Cookie', 'cbg_admin_session=expired.or-forged')).status).toBe(401);
    expect((await api.get('/v1/vendors').set(bearer(WRONG))).status).toBe(401);
    expect((await api.get('/v1/vendors').set(bearer(TOKEN))).status).toBe(200);
  });

  it('keys on the client address server.trustedProxies gives, so one client behind the proxy does not throttle another', async () => {
    const { api } = await start({ clientAddress: createClientAddressResolver(['127.0.0.1']) });
    const from = (address: string): Record<string, string> => ({ ...bearer(WRONG), 'X-Forwarded-For': address });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get('/v1/vendors').set(from('203.0.113.7'))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await api.get('/v1/vendors').set(from('203.0.113.8'))).status).toBe(401);
  });
});

describe('sign-in, sign-out and failed logins on the audit log', () => {
  it('audits a sign-in and a sign-out with the admin and the address, never the token', async () => {
    const { api, audit } = await start();
    const signedIn = await api.post('/ui/session').set(UI).send({ token: TOKEN });
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0] as string;
    expect((await api.delete('/ui/session').set(UI).set('Cookie', cookie)).status).toBe(204);
    const entries = await audit.list({ limit: 10 });
    expect(entries.map((e) => [e.action, e.actor, e.target])).toEqual([
      ['admin.sign_out', 'admin:bootstrap', 'ui/session'],
      ['admin.sign_in', 'admin:bootstrap', 'ui/session'],
    ]);
    expect(entries[1]?.after).toEqual({ address: '127.0.0.1', method: 'token' });
    expect(JSON.stringify(entries)).not.toContain(TOKEN);
  });

  it('writes one entry per address and minute for failed logins, with their count and none of the tokens', async () => {
    const audit = new MemoryAuditLog();
    const failedLogins = new FailedLoginAudit({ audit, logger: createLogger('silent'), windowMs: 60_000 });
    const { api } = await start({ audit, failedLogins, clientAddress: createClientAddressResolver(['127.0.0.1']) });
    for (let i = 0; i < 5; i++) await api.get('/v1/vendors').set({ ...bearer(`${WRONG}-${i}`), 'X-Forwarded-For': '203.0.113.7' });
    await api
      .post('/ui/session')
      .set(UI)
      .set('X-Forwarded-For', '203.0.113.7')
      .send({ token: `${WRONG}-ui` });
    await api.get('/v1/vendors').set({ ...bearer(WRONG), 'X-Forwarded-For': '203.0.113.9' });
    await api.get('/v1/vendors');
    expect(await audit.list({ limit: 10 })).toEqual([]);
    await failedLogins.flush();
    const entries = await audit.list({ limit: 10 });
    expect(
      entries.map((e) => [
        e.action,
        e.actor,
        (e.after as { address: string }).address,
        (e.after as { failures: number }).failures,
        (e.after as { throttled: number }).throttled,
      ]),
    ).toEqual([
      ['admin.login_failed', 'anonymous', '203.0.113.9', 1, 0],
      ['admin.login_failed', 'anonymous', '203.0.113.7', 6, 3],
    ]);
    expect(JSON.stringify(entries)).not.toContain(WRONG);
  });
});
