/**
 * The vendor portal's isolation, tried as an attacker would, on two gateway instances sharing one
 * real Redis: vendor A's portal session, on either instance, never reads or changes vendor B's keys
 * (their ids copied from B's own listing, or guessed) nor finds or lists B's requests (B's
 * X-Request-Id values, every filter, a cursor taken from B's page); its usage and API access are
 * A's alone. What one instance does ends access on the other within 1 s: a key revoked, a portal
 * user removed, a session signed out, a token re-issued, a vendor suspended.
 *
 * Vendor A is the sandbox's demo-vendor, B its readonly-partner. Loopback only; both gateways stop
 * when the tests end.
 */
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { adminCall, invitePortalUser, issueVendorKey, PortalSession, vendorCall, type InvitedPortalUser, type PortalInstance } from '../support/portal-client';
import { within } from '../support/within';

jest.setTimeout(60_000);

const REDIS_URL = process.env.TEST_REDIS_URL as string;
const A = 'demo-vendor';
const B = 'readonly-partner';

interface KeyRow {
  id: string;
  prefix: string;
  status: string;
  expiresAt?: string;
}
interface LogEntry {
  requestId: string;
  apiId: string;
  status: number;
  keyPrefix: string;
}
interface LogPage {
  items: LogEntry[];
  next: string | null;
}

let one: TestGateway;
let two: TestGateway;
let instances: Array<[string, PortalInstance]>;
let userA: InvitedPortalUser;
let userB: InvitedPortalUser;
let sessionA: PortalSession;
let sessionB: PortalSession;

beforeAll(async () => {
  // A test's own prefix: the instances share it, and nothing else does.
  const config = {
    redis: { url: REDIS_URL, keyPrefix: `portaliso${process.pid}:`, seedAccessFile: 'always' as const },
    portal: { rotationsPerHour: 1000, requestLog: { flushIntervalMs: 50 } },
  };
  one = await startTestGateway(config);
  two = await startTestGateway(config);
  instances = [
    ['instance 1', one],
    ['instance 2', two],
  ];
  userA = await invitePortalUser(one, A);
  userB = await invitePortalUser(two, B);
  sessionA = await PortalSession.signIn(one, userA.token);
  sessionB = await PortalSession.signIn(two, userB.token);
});
afterAll(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
});

describe("vendor B's keys, from vendor A's session", () => {
  let keysOfB: KeyRow[];
  let secretsOfB: string[];

  beforeAll(async () => {
    secretsOfB = [SANDBOX_KEYS.readonlyPartner, (await issueVendorKey(two, B, 'partner.reader')).secret];
    keysOfB = await sessionB.json<KeyRow[]>(one, '/portal/api/keys');
  });

  it('are never listed, on either instance', async () => {
    expect(keysOfB.map((key) => key.id)).toContain('key-partner-sandbox');
    for (const [, instance] of instances) {
      const keysOfA = await sessionA.json<KeyRow[]>(instance, '/portal/api/keys');
      expect(keysOfA.map((key) => key.id)).toContain('key-demo-sandbox');
      const idsOfB = new Set(keysOfB.map((key) => key.id));
      expect(keysOfA.filter((key) => idsOfB.has(key.id))).toEqual([]);
      expect(keysOfA.every((key) => key.prefix !== 'cbk_VOrQKC24')).toBe(true);
    }
  });

  it('cannot be rotated or revoked by id, copied or guessed: 404 on both instances, and they keep working', async () => {
    const copied = keysOfB.map((key) => key.id);
    const guessed = [
      'key-partner-sandbox',
      'KEY-PARTNER-SANDBOX',
      'key-partner-sandbox ',
      `${copied[1] as string}`.replace(/.$/, '0'),
      'key-partner-%73andbox',
    ];
    for (const [where, instance] of instances) {
      for (const keyId of [...copied, ...guessed]) {
        const path = `/portal/api/keys/${keyId.includes('%') ? keyId : encodeURIComponent(keyId)}`;
        const rotate = await sessionA.call(instance, 'POST', `${path}/rotate`, { overlapHours: 0 });
        expect([where, keyId, 'rotate', rotate.status]).toEqual([where, keyId, 'rotate', 404]);
        const revoke = await sessionA.call(instance, 'DELETE', path);
        expect([where, keyId, 'revoke', revoke.status]).toEqual([where, keyId, 'revoke', 404]);
        // The same answer as for a key that never was: nothing tells A that B's key exists.
        expect(((await revoke.json()) as { detail: string }).detail).toBe(`No key "${decodeURIComponent(keyId)}".`);
      }
    }
    for (const [where, instance] of instances) {
      for (const secret of secretsOfB) expect([where, (await vendorCall(instance, secret)).status]).toEqual([where, 200]);
    }
    const after = await sessionB.json<KeyRow[]>(two, '/portal/api/keys');
    const standing = (keys: KeyRow[]) => keys.map(({ id, status, expiresAt }) => ({ id, status, expiresAt }));
    expect(standing(after)).toEqual(standing(keysOfB));
    expect(after.every((key) => key.status === 'active' && key.expiresAt === undefined)).toBe(true);
  });
});

describe("vendor B's requests, from vendor A's session", () => {
  const requestsOfA: string[] = [];
  const requestsOfB: string[] = [];
  let cursorOfB: string;
  let startedAt: string;

  async function call(instance: PortalInstance, key: string, path: string, method = 'GET'): Promise<string> {
    const answer = await fetch(`http://127.0.0.1:${instance.vendorPort}${path}`, {
      method,
      headers: { 'x-vendor-token': key, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    await answer.arrayBuffer();
    return answer.headers.get('x-request-id') as string;
  }

  async function found(session: PortalSession, instance: PortalInstance, requestId: string): Promise<LogEntry[]> {
    return (await session.json<LogPage>(instance, `/portal/api/requests?requestId=${encodeURIComponent(requestId)}`)).items;
  }

  beforeAll(async () => {
    startedAt = new Date(Date.now() - 1000).toISOString();
    for (const [, instance] of instances) {
      requestsOfB.push(await call(instance, SANDBOX_KEYS.readonlyPartner, '/genders'));
      requestsOfB.push(await call(instance, SANDBOX_KEYS.readonlyPartner, '/genders'));
      // Refused by B's licence (GET only): a 4xx in B's log.
      requestsOfB.push(await call(instance, SANDBOX_KEYS.readonlyPartner, '/api/transaction/savings/deposit', 'POST'));
      requestsOfA.push(await call(instance, SANDBOX_KEYS.demo, '/accounts/'));
    }
    // Both logs hold them (from any instance) before A looks for B's.
    await within(5000, async () => {
      for (const id of requestsOfB) if ((await found(sessionB, one, id)).length !== 1) return false;
      for (const id of requestsOfA) if ((await found(sessionA, two, id)).length !== 1) return false;
      return true;
    });
    const firstPage = await sessionB.json<LogPage>(two, '/portal/api/requests?limit=1');
    expect(firstPage.items).toHaveLength(1);
    cursorOfB = firstPage.next as string;
    expect(cursorOfB).toEqual(expect.any(String));
  });

  it("finds none of B's request ids, on either instance", async () => {
    for (const [where, instance] of instances) {
      for (const requestId of requestsOfB) expect([where, requestId, await found(sessionA, instance, requestId)]).toEqual([where, requestId, []]);
      // Nothing a store might read as a pattern finds anything either.
      for (const guess of ['*', '%', '.*', `${(requestsOfB[0] as string).slice(0, 8)}*`]) {
        expect([where, guess, await found(sessionA, instance, guess)]).toEqual([where, guess, []]);
      }
    }
  });

  it("lists none of B's entries under any filter, nor after a cursor taken from B's page", async () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    const queries = [
      '',
      'limit=200',
      'status=2xx',
      'status=4xx',
      'apiId=GETgenders',
      'apiId=POSTapi/transaction/savings/deposit',
      `from=${startedAt}&to=${to}`,
      `after=${encodeURIComponent(cursorOfB)}`,
      `after=${encodeURIComponent(cursorOfB)}&status=4xx&limit=200`,
    ];
    const prefixesOfA = new Set((await sessionA.json<KeyRow[]>(one, '/portal/api/keys')).map((key) => key.prefix));
    const ofB = new Set(requestsOfB);
    for (const [where, instance] of instances) {
      const seen: LogEntry[] = [];
      for (const query of queries) seen.push(...(await sessionA.json<LogPage>(instance, `/portal/api/requests?${query}`)).items);
      // Paged to the end, one entry at a time.
      let after: string | null = null;
      for (let page = 0; page < 50; page++) {
        const next: LogPage = await sessionA.json<LogPage>(instance, `/portal/api/requests?limit=1${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        seen.push(...next.items);
        after = next.next;
        if (!after) break;
      }
      expect(seen.map((entry) => entry.requestId)).toEqual(expect.arrayContaining(requestsOfA));
      expect([where, seen.filter((entry) => ofB.has(entry.requestId) || !prefixesOfA.has(entry.keyPrefix))]).toEqual([where, []]);
    }
  });

  it("a request A sends under B's request id lands in A's log only: B's entry stays B's, A finds its own", async () => {
    const taken = requestsOfB[0] as string;
    const before = await found(sessionB, one, taken);
    const answer = await fetch(`${one.url}/accounts/`, { headers: { 'x-vendor-token': SANDBOX_KEYS.demo, 'x-request-id': taken } });
    await answer.arrayBuffer();
    expect(answer.headers.get('x-request-id')).toBe(taken);
    const prefixOfA = SANDBOX_KEYS.demo.slice(0, 12);
    await within(5000, async () => (await found(sessionA, two, taken)).length === 1);
    for (const [where, instance] of instances) {
      expect([where, await found(sessionA, instance, taken)]).toEqual([
        where,
        [expect.objectContaining({ requestId: taken, apiId: 'GETaccounts', keyPrefix: prefixOfA })],
      ]);
      expect([where, await found(sessionB, instance, taken)]).toEqual([where, before]);
    }
    expect(before[0]?.keyPrefix).toBe('cbk_VOrQKC24');
  });
});

describe("vendor A's usage and API access", () => {
  beforeAll(async () => {
    for (const [, instance] of instances) await vendorCall(instance, SANDBOX_KEYS.readonlyPartner, '/genders');
  });

  it("shows A's usage and API access only, on either instance", async () => {
    // B's own usage counts its GETgenders calls (the instance that took them shows them at once).
    const usageOfB = await sessionB.json<{ rows: Array<{ apiId: string }> }>(two, '/portal/api/usage?range=24h');
    expect(usageOfB.rows.map((row) => row.apiId)).toContain('GETgenders');
    for (const [where, instance] of instances) {
      for (const range of ['24h', '7d']) {
        const usage = await sessionA.json<{
          rows: Array<{ apiId: string }>;
          series: Array<{ apiId: string }>;
          rateLimit: { points: number; keys: Array<{ keyId: string; prefix: string }> };
        }>(instance, `/portal/api/usage?range=${range}`);
        expect([where, range, [...usage.rows, ...usage.series].filter((row) => row.apiId === 'GETgenders' || row.apiId.startsWith('POST'))]).toEqual([
          where,
          range,
          [],
        ]);
        expect(usage.rateLimit.points).toBe(6000);
        expect(usage.rateLimit.keys.map((key) => key.keyId)).toContain('key-demo-sandbox');
        expect(usage.rateLimit.keys.filter((key) => key.keyId.startsWith('key-partner') || key.prefix === 'cbk_VOrQKC24')).toEqual([]);
      }
      const access = await sessionA.json<{ vendor: { id: string }; licences: Array<{ id: string }> }>(instance, '/portal/api/access');
      expect(access.vendor.id).toBe(A);
      expect(access.licences.map((licence) => licence.id).sort()).toEqual([
        'lic-demo-bankaccount-add',
        'lic-demo-bankaccount-update',
        'lic-demo-read',
        'lic-demo-receipts',
      ]);
      const session = await sessionA.json<{ portalUser: { vendorId: string; id: string } }>(instance, '/portal/api/session');
      expect(session.portalUser).toEqual(expect.objectContaining({ vendorId: A, id: userA.id }));
    }
  });
});

describe('what one instance does ends access on the other within 1 s', () => {
  it('a key revoked in the portal on instance 1: the vendor API answers 401 for it on instance 2', async () => {
    const key = await issueVendorKey(one, A, 'demo.teller');
    expect((await vendorCall(two, key.secret)).status).toBe(200);
    expect((await sessionA.call(one, 'DELETE', `/portal/api/keys/${key.id}`)).status).toBe(200);
    await within(1000, async () => (await vendorCall(two, key.secret)).status === 401);
  });

  it("a portal user's request-log listings and usage reads are counted across instances (60 a minute)", async () => {
    const looping = await PortalSession.signIn(one, (await invitePortalUser(one, A)).token);
    for (let i = 0; i < 60; i++) expect((await looping.call(i % 2 === 0 ? one : two, 'GET', '/portal/api/requests?limit=1')).status).toBe(200);
    for (const [where, instance] of instances) {
      expect([where, (await looping.call(instance, 'GET', '/portal/api/usage?range=24h')).status]).toEqual([where, 429]);
    }
  });

  it('a portal user removed on instance 1: its session is refused on instance 2', async () => {
    const user = await invitePortalUser(one, A);
    const session = await PortalSession.signIn(two, user.token);
    expect((await session.call(two, 'GET', '/portal/api/keys')).status).toBe(200);
    expect((await adminCall(one, 'DELETE', `/v1/vendors/${A}/portal-users/${user.id}`)).status).toBe(204);
    await within(1000, async () => (await session.call(two, 'GET', '/portal/api/keys')).status === 401);
    expect((await session.call(one, 'GET', '/portal/api/keys')).status).toBe(401);
    expect((await new PortalSession().call(two, 'POST', '/portal/api/session', { token: user.token })).status).toBe(401);
  });

  it('signing out on instance 1: the same cookie is refused on instance 2', async () => {
    const user = await invitePortalUser(one, A);
    const session = await PortalSession.signIn(one, user.token);
    expect((await session.call(two, 'GET', '/portal/api/keys')).status).toBe(200);
    const cookie = session.cookie;
    expect((await session.call(one, 'DELETE', '/portal/api/session')).status).toBe(204);
    session.cookie = cookie;
    await within(1000, async () => (await session.call(two, 'GET', '/portal/api/keys')).status === 401);
    expect((await session.call(one, 'GET', '/portal/api/keys')).status).toBe(401);
  });

  it('a token re-issued on instance 1: sessions signed in with the old one are refused everywhere, the new one signs in', async () => {
    const user = await invitePortalUser(one, A);
    const onOne = await PortalSession.signIn(one, user.token);
    const onTwo = await PortalSession.signIn(two, user.token);
    const answer = await adminCall(one, 'POST', `/v1/vendors/${A}/portal-users/${user.id}/token`);
    expect(answer.status).toBe(200);
    const { token } = (await answer.json()) as { token: string };
    await within(1000, async () => {
      const statuses = [];
      for (const session of [onOne, onTwo])
        for (const [, instance] of instances) statuses.push((await session.call(instance, 'GET', '/portal/api/keys')).status);
      return statuses.every((status) => status === 401);
    });
    for (const [, instance] of instances) {
      expect((await new PortalSession().call(instance, 'POST', '/portal/api/session', { token: user.token })).status).toBe(401);
      const fresh = await PortalSession.signIn(instance, token);
      expect((await fresh.call(instance, 'GET', '/portal/api/keys')).status).toBe(200);
    }
  });

  it.each([
    ['small enough to be written as operations', 'dropped', 0],
    // More than the 1,000 operations past which a whole-document write is staged and swapped in whole.
    ['big enough to be staged and swapped in whole', 'dropped-bulk', 1001],
  ])(
    'a vendor dropped by a whole-document write (%s) on instance 1 and made again under its id: the old portal user is gone everywhere',
    async (_size, name, extraUsers) => {
      const vendorId = `${name}-${process.pid}`;
      expect((await adminCall(one, 'POST', '/v1/vendors', { id: vendorId, name: 'First organisation' })).status).toBe(201);
      const user = await invitePortalUser(one, vendorId);
      const session = await PortalSession.signIn(two, user.token);
      const document = (await (await adminCall(one, 'GET', '/v1/access')).json()) as { vendors: Array<{ id: string }>; users: Array<{ id: string }> };
      document.vendors = document.vendors.filter((vendor) => vendor.id !== vendorId);
      for (let i = 0; i < extraUsers; i++) document.users.push({ id: `bulk-user-${i}`, permissions: [] } as { id: string });
      expect((await adminCall(one, 'PUT', '/v1/access', document)).status).toBe(200);
      expect((await adminCall(one, 'POST', '/v1/vendors', { id: vendorId, name: 'Another organisation' })).status).toBe(201);
      await within(1000, async () => {
        for (const [, instance] of instances) {
          if ((await session.call(instance, 'GET', '/portal/api/keys')).status !== 401) return false;
          if ((await new PortalSession().call(instance, 'POST', '/portal/api/session', { token: user.token })).status !== 401) return false;
          if (JSON.stringify(await (await adminCall(instance, 'GET', `/v1/vendors/${vendorId}/portal-users`)).json()) !== '[]') return false;
        }
        return true;
      });
    },
  );

  it('a vendor suspended on instance 1: 403 on every instance, for the session and for signing in', async () => {
    const vendorId = `suspended-${process.pid}`;
    expect((await adminCall(one, 'POST', '/v1/vendors', { id: vendorId, name: 'Soon suspended' })).status).toBe(201);
    const user = await invitePortalUser(one, vendorId);
    const session = await PortalSession.signIn(two, user.token);
    expect((await session.call(one, 'GET', '/portal/api/keys')).status).toBe(200);
    expect((await adminCall(one, 'PATCH', `/v1/vendors/${vendorId}`, { status: 'suspended' })).status).toBe(200);
    await within(1000, async () => {
      for (const [, instance] of instances) if ((await session.call(instance, 'GET', '/portal/api/keys')).status !== 403) return false;
      return true;
    });
    for (const [, instance] of instances) {
      for (const [method, path] of [
        ['GET', '/portal/api/access'],
        ['GET', '/portal/api/requests'],
        ['DELETE', '/portal/api/keys/any-key'],
      ] as const) {
        const refused = await session.call(instance, method, path);
        expect([method, path, refused.status]).toEqual([method, path, 403]);
        expect(((await refused.json()) as { code: string }).code).toBe('vendor_suspended');
      }
      expect((await new PortalSession().call(instance, 'POST', '/portal/api/session', { token: user.token })).status).toBe(403);
    }
  });
});
