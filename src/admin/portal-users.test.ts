/**
 * Vendor portal users through the admin API, on a real HTTP server over a real Redis: an
 * invitation answers its portal token once and the store keeps only its hash, a re-issue makes
 * the old token's hash disappear, removal, another vendor's portal user is not found, bad input is
 * a 400 naming the field, a viewer may only read, four eyes files an invitation like a key issue
 * (the approver sees the token, once), and deleting a vendor deletes its portal users.
 */
import path from 'node:path';
import request from 'supertest';
import { Redis } from 'ioredis';
import { readAccessFile } from '../access/access-store';
import { RedisAccessStore } from '../access/redis-access-store';
import { RedisAuditLog } from '../access/audit-log';
import { hashApiKey } from '../access/api-key';
import { createRedisClient } from '../redis/redis-client';
import { redisSchema } from '../redis/redis.schema';
import { AdminDirectory } from './operations/admin-directory';
import { PortalUsers } from './operations/portal-users';
import { Proposals } from './operations/proposals';
import { createLogger } from '../logging/logger';
import { accessServiceFor } from '../../test/support/access-service';
import { listenOnLoopback } from '../../test/support/listen';
import { createAdminApp } from './admin-app';

const URL = process.env.TEST_REDIS_URL as string;
const TOKEN = 'admin-token-for-tests-0123456789';
const SANDBOX_ACCESS = path.join(__dirname, '../../config/sandbox-access.yaml');
const TTL_DAYS = 30;
const DAY_MS = 86_400_000;
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const USERS = '/v1/vendors/demo-vendor/portal-users';
const logger = createLogger('silent');

interface Harness {
  readonly api: ReturnType<typeof request>;
  readonly audit: RedisAuditLog;
  /** The portal user records as Redis holds them (id -> JSON). */
  stored(): Promise<Record<string, string>>;
}

const cleanups: Array<() => Promise<unknown>> = [];
let raw: Redis;
let prefixCounter = 0;

beforeAll(() => {
  raw = new Redis(URL);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(() => raw.disconnect());

async function startAdmin(approvals: 'off' | 'required'): Promise<Harness> {
  prefixCounter += 1;
  const keyPrefix = `portal-admin:${process.pid}:${prefixCounter}:`;
  const config = redisSchema.parse({ url: URL, keyPrefix });
  const client = createRedisClient(config, { name: 'portal-admin-test', commandTimeoutMs: config.bulkCommandTimeoutMs });
  const subscriber = createRedisClient(config, { name: 'portal-admin-test' });
  const audit = new RedisAuditLog(client, { keyPrefix });
  const store = new RedisAccessStore({ client, subscriber, keyPrefix, pollIntervalMs: 60_000, logger, audit, seed: readAccessFile(SANDBOX_ACCESS) });
  await store.init();
  cleanups.push(() => store.close());
  const service = accessServiceFor(store);
  const admins = new AdminDirectory(service.writer);
  const portalUsers = new PortalUsers(service.writer, { tokenTtlDays: TTL_DAYS });
  const app = createAdminApp({
    service,
    admins,
    portalUsers,
    proposals: new Proposals(service, { approvals, changeTtlHours: 72 }, admins, portalUsers),
    audit,
    adminToken: TOKEN,
    logger,
  });
  const server = await listenOnLoopback(app);
  cleanups.push(() => server.close());
  return { api: request(server.url), audit, stored: () => raw.hgetall(`${keyPrefix}{access}:portalusers`) };
}

/** Creates a named admin as the bootstrap owner and enrols it; answers its token. */
async function adminWith(h: Harness, id: string, role: string): Promise<string> {
  const res = await h.api
    .post('/v1/admins')
    .set(bearer(TOKEN))
    .send({ id, name: `${id} (${role})`, role });
  expect(res.status).toBe(201);
  const enrolled = await h.api.post('/v1/admins/enrol').send({ enrolmentCode: res.body.enrolmentCode });
  return enrolled.body.token as string;
}

const fields = (res: request.Response): string[] => (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();

describe('portal users through the admin API', () => {
  it('answers the portal token of an invitation once, keeping only its hash: never in a read or the audit log', async () => {
    const h = await startAdmin('off');
    const before = Date.now();
    const invited = await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: '  Dana Dev ' });

    expect(invited.status).toBe(201);
    const { id, token } = invited.body as { id: string; token: string };
    expect(id).toMatch(/^pu-[0-9a-f]{12}$/);
    expect(invited.headers.location).toBe(`${USERS}/${id}`);
    expect(invited.body).toMatchObject({
      vendorId: 'demo-vendor',
      email: 'dev@demo.example',
      name: 'Dana Dev',
      tokenPrefix: token.slice(0, 12),
      createdBy: 'bootstrap',
      token: expect.stringMatching(/^cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/),
    });
    expect(invited.body.tokenHash).toBeUndefined();
    const lifetime = Date.parse(invited.body.tokenExpiresAt) - Date.parse(invited.body.tokenIssuedAt);
    expect(lifetime).toBe(TTL_DAYS * DAY_MS);
    expect(Date.parse(invited.body.tokenIssuedAt)).toBeGreaterThanOrEqual(before - 1000);

    const stored = JSON.parse((await h.stored())[id] as string);
    expect(stored.tokenHash).toBe(hashApiKey(token));
    expect(JSON.stringify(await h.stored())).not.toContain(token);

    const listed = await h.api.get(USERS).set(bearer(TOKEN));
    const one = await h.api.get(`${USERS}/${id}`).set(bearer(TOKEN));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([one.body]);
    const { token: _token, ...view } = invited.body;
    expect(one.body).toEqual(view);
    const audited = await h.audit.list({ limit: 5 });
    expect(audited[0]).toMatchObject({ action: 'portal_user.invite', target: `vendors/demo-vendor/portal-users/${id}`, vendorIds: ['demo-vendor'] });
    for (const text of [listed.text, one.text, JSON.stringify(audited)]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain('sha256:');
    }
  });

  it('re-issues a token (the old hash disappears) and removes a portal user', async () => {
    const h = await startAdmin('off');
    const invited = await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: 'Dana' });
    const { id, token: first } = invited.body as { id: string; token: string };

    const reissued = await h.api.post(`${USERS}/${id}/token`).set(bearer(TOKEN));
    expect(reissued.status).toBe(200);
    expect(reissued.body).toMatchObject({ id, email: 'dev@demo.example', token: expect.stringMatching(/^cbp_/) });
    expect(reissued.body.token).not.toBe(first);
    const stored = JSON.stringify(await h.stored());
    expect(stored).not.toContain(hashApiKey(first));
    expect(stored).toContain(hashApiKey(reissued.body.token));
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'portal_user.token', before: { tokenPrefix: first.slice(0, 12) } });
    expect(JSON.stringify(await h.audit.list({ limit: 5 }))).not.toContain(reissued.body.token);

    expect((await h.api.delete(`${USERS}/${id}`).set(bearer(TOKEN))).status).toBe(204);
    expect(await h.stored()).toEqual({});
    expect((await h.api.get(`${USERS}/${id}`).set(bearer(TOKEN))).status).toBe(404);
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'portal_user.remove', after: null });
  });

  it('answers 404 for another vendor’s portal user id, and for a vendor that does not exist', async () => {
    const h = await startAdmin('off');
    const { id } = (await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: 'Dana' })).body as { id: string };
    const other = `/v1/vendors/readonly-partner/portal-users/${id}`;

    expect((await h.api.get(other).set(bearer(TOKEN))).status).toBe(404);
    expect((await h.api.post(`${other}/token`).set(bearer(TOKEN))).status).toBe(404);
    expect((await h.api.delete(other).set(bearer(TOKEN))).status).toBe(404);
    expect((await h.api.get('/v1/vendors/readonly-partner/portal-users').set(bearer(TOKEN))).body).toEqual([]);
    expect((await h.api.get('/v1/vendors/no-such-vendor/portal-users').set(bearer(TOKEN))).status).toBe(404);
    expect((await h.api.post('/v1/vendors/no-such-vendor/portal-users').set(bearer(TOKEN)).send({ email: 'a@b.example', name: 'A' })).status).toBe(404);
    expect(Object.keys(await h.stored())).toEqual([id]);
  });

  it('answers 400 naming email and name when they are missing or bad, and 409 for an email the vendor already has', async () => {
    const h = await startAdmin('off');
    const empty = await h.api.post(USERS).set(bearer(TOKEN)).send({});
    expect(empty.status).toBe(400);
    expect(fields(empty)).toEqual(['email', 'name']);
    const bad = await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'not-an-email', name: ' ', role: 'owner' });
    expect(fields(bad)).toEqual(['email', 'name', 'role']);
    const long = await h.api
      .post(USERS)
      .set(bearer(TOKEN))
      .send({ email: `${'a'.repeat(320)}@b.example`, name: 'n'.repeat(201) });
    expect(fields(long)).toEqual(['email', 'name']);

    expect((await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: 'Dana' })).status).toBe(201);
    expect((await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'DEV@demo.example', name: 'Dana again' })).status).toBe(409);
    expect(Object.keys(await h.stored())).toHaveLength(1);
  });

  it('lets a viewer read portal users and refuses its writes with 403', async () => {
    const h = await startAdmin('off');
    const viewer = await adminWith(h, 'vera', 'viewer');
    const { id } = (await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: 'Dana' })).body as { id: string };

    expect((await h.api.get(USERS).set(bearer(viewer))).status).toBe(200);
    expect((await h.api.get(`${USERS}/${id}`).set(bearer(viewer))).status).toBe(200);
    expect((await h.api.post(USERS).set(bearer(viewer)).send({ email: 'x@demo.example', name: 'X' })).status).toBe(403);
    expect((await h.api.post(`${USERS}/${id}/token`).set(bearer(viewer))).status).toBe(403);
    expect((await h.api.delete(`${USERS}/${id}`).set(bearer(viewer))).status).toBe(403);
    expect(Object.keys(await h.stored())).toEqual([id]);
  });

  it('pages the list with limit and a Link to the next page', async () => {
    const h = await startAdmin('off');
    for (const name of ['a', 'b', 'c'])
      await h.api
        .post(USERS)
        .set(bearer(TOKEN))
        .send({ email: `${name}@demo.example`, name });
    const first = await h.api.get(`${USERS}?limit=2`).set(bearer(TOKEN));
    expect(first.body).toHaveLength(2);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link as string)?.[1] as string;
    const second = await h.api.get(next).set(bearer(TOKEN));
    expect(second.body).toHaveLength(1);
    expect(second.headers.link).toBeUndefined();
    const ids = [...first.body, ...second.body].map((p: { id: string }) => p.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('deletes a vendor’s portal users with the vendor, in the same write', async () => {
    const h = await startAdmin('off');
    await h.api.post(USERS).set(bearer(TOKEN)).send({ email: 'dev@demo.example', name: 'Dana' });
    const kept = await h.api.post('/v1/vendors/readonly-partner/portal-users').set(bearer(TOKEN)).send({ email: 'p@partner.example', name: 'Pat' });

    expect((await h.api.delete('/v1/vendors/demo-vendor').set(bearer(TOKEN))).status).toBe(204);
    expect(Object.keys(await h.stored())).toEqual([kept.body.id]);
    expect((await h.api.get(USERS).set(bearer(TOKEN))).status).toBe(404);
    const [entry] = await h.audit.list({ limit: 1 });
    expect(entry).toMatchObject({ action: 'vendor.delete', before: { portalUsers: [expect.objectContaining({ email: 'dev@demo.example' })] } });
    expect(JSON.stringify(entry)).not.toContain('sha256:');
  });
});

describe('portal users under four eyes', () => {
  async function twoAdmins(): Promise<{ h: Harness; operator: string; approver: string }> {
    const h = await startAdmin('required');
    return { h, operator: await adminWith(h, 'otto', 'operator'), approver: await adminWith(h, 'anna', 'approver') };
  }

  it('files an invitation for approval, and shows the token to the approver once', async () => {
    const { h, operator, approver } = await twoAdmins();
    const filed = await h.api.post(USERS).set(bearer(operator)).send({ email: 'dev@demo.example', name: 'Dana' });

    expect(filed.status).toBe(202);
    expect(filed.headers.location).toBe(`/v1/changes/${filed.body.id}`);
    expect(filed.body).toMatchObject({ status: 'pending', action: 'portal_user.invite', preview: { after: { email: 'dev@demo.example', name: 'Dana' } } });
    // No token exists yet: it is made when the change is approved.
    expect(filed.text).not.toMatch(/cbp_/);
    expect(await h.stored()).toEqual({});

    const approved = await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver));
    expect(approved.status).toBe(200);
    const previewed = filed.body.preview.after.id as string;
    expect(approved.body).toMatchObject({ id: previewed, createdBy: 'otto', token: expect.stringMatching(/^cbp_/) });
    expect(JSON.parse((await h.stored())[previewed] as string).tokenHash).toBe(hashApiKey(approved.body.token));
    const audited = await h.audit.list({ limit: 5 });
    expect(audited[0]).toMatchObject({ action: 'portal_user.invite', approval: { maker: 'admin:otto', checker: 'admin:anna' } });
    expect(JSON.stringify(audited)).not.toContain(approved.body.token);
    expect((await h.api.get(`${USERS}/${previewed}`).set(bearer(approver))).text).not.toContain(approved.body.token);
  });

  it('files a re-issue for approval and applies a removal at once', async () => {
    const { h, operator, approver } = await twoAdmins();
    const filed = await h.api.post(USERS).set(bearer(operator)).send({ email: 'dev@demo.example', name: 'Dana' });
    const { id, token } = (await h.api.post(`/v1/changes/${filed.body.id}/approve`).set(bearer(approver))).body as { id: string; token: string };

    const reissue = await h.api.post(`${USERS}/${id}/token`).set(bearer(operator));
    expect(reissue.status).toBe(202);
    expect(reissue.body).toMatchObject({ action: 'portal_user.token' });
    expect(reissue.text).not.toMatch(/cbp_[0-9A-Za-z]{32}/);
    expect(JSON.parse((await h.stored())[id] as string).tokenHash).toBe(hashApiKey(token));

    expect((await h.api.delete(`${USERS}/${id}`).set(bearer(operator))).status).toBe(204);
    expect(await h.stored()).toEqual({});
    expect((await h.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'portal_user.remove', approval: { required: false, reason: 'only reduces access' } });
    // The filed re-issue no longer finds its portal user.
    expect((await h.api.post(`/v1/changes/${reissue.body.id}/approve`).set(bearer(approver))).status).toBe(404);
  });
});
