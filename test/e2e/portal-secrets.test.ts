/**
 * The vendor portal's secrets under a guesser: wrong portal tokens from one address back off
 * (429 with a growing Retry-After, whatever X-Forwarded-For claims) while the right token still
 * signs in; and after a run of every portal action, no portal token (issued, re-issued, wrong or
 * nearly right), session cookie or rotated key's secret is anywhere in the log output, the audit
 * log, the metrics or an error body.
 *
 * One gateway with a capturing logger at debug. Loopback only.
 */
import { hashApiKey } from '../../src/access/api-key';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { TEST_ADMIN_TOKEN, testConfig } from '../support/config';
import { checkedAgainstOpenApi, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { adminCall, invitePortalUser, issueVendorKey, PortalSession, PORTAL_UI_HEADERS, vendorCall } from '../support/portal-client';

const A = 'demo-vendor';
const FREE_FAILURES = 3;

const output: string[] = [];
const errorBodies: string[] = [];
const secrets: Record<string, string> = {};
let gateway: TestGateway;

/** A sign-in from a fresh browser; its answer's body is kept when it is an error. */
async function signIn(token: string, headers: Record<string, string> = {}): Promise<Response> {
  const answer = await new PortalSession().call(gateway, 'POST', '/portal/api/session', { token }, { ...PORTAL_UI_HEADERS, ...headers });
  if (answer.status >= 400) errorBodies.push(await answer.clone().text());
  return answer;
}

/** The same token with its first secret character changed: well-formed apart from its checksum. */
const nearMiss = (token: string): string => `${token.slice(0, 4)}${token[4] === 'A' ? 'B' : 'A'}${token.slice(5)}`;

beforeAll(async () => {
  const config = testConfig({ log: { level: 'debug' }, admin: { authFailuresBeforeBackoff: FREE_FAILURES } });
  const logger = createLogger('debug', { write: (chunk: string) => output.push(...chunk.split('\n').filter(Boolean)) });
  gateway = await checkedAgainstOpenApi(await startGateway(config, logger), config);
});
afterAll(() => gateway.stop());

describe('sign-in throttle', () => {
  it('backs off wrong tokens from one address (429, Retry-After growing) while the right token still signs in', async () => {
    const user = await invitePortalUser(gateway, A);
    secrets.throttledUserToken = user.token;
    secrets.nearMiss = nearMiss(user.token);
    secrets.wrongToken = 'cbp_WrongWrongWrongWrongWrongWrong12_AAAAAA';
    const statuses: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < FREE_FAILURES + 3; i++) {
      // Another address claimed each time: with no trusted proxy, the header names nothing.
      const answer = await signIn(i % 2 === 0 ? secrets.wrongToken : secrets.nearMiss, { 'x-forwarded-for': `203.0.113.${i}` });
      statuses.push(answer.status);
      if (answer.status === 429) waits.push(Number(answer.headers.get('retry-after')));
    }
    expect(statuses).toEqual([...Array<number>(FREE_FAILURES).fill(401), 429, 429, 429]);
    expect(waits.every((seconds) => Number.isInteger(seconds) && seconds >= 1)).toBe(true);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(waits.at(-1)).toBeGreaterThan(waits[0] as number);
    const right = await signIn(user.token);
    expect(right.status).toBe(200);
    secrets.throttledUserCookie = /^cbg_portal_session=([^;]+)/.exec(right.headers.get('set-cookie') ?? '')?.[1] as string;
    // A right token clears nothing: the next wrong one still waits.
    expect((await signIn(secrets.wrongToken)).status).toBe(429);
    const throttled = errorBodies.at(-1) as string;
    expect(JSON.parse(throttled)).toMatchObject({ status: 429, code: 'rate_limited' });
  });
});

describe('no portal secret in logs, audit, metrics or error bodies', () => {
  beforeAll(async () => {
    // Every portal action, with every kind of secret it handles.
    const user = await invitePortalUser(gateway, A);
    secrets.invitedToken = user.token;
    const session = await PortalSession.signIn(gateway, user.token);
    secrets.sessionCookie = session.value;
    const key = await issueVendorKey(gateway, A, 'demo.teller');
    secrets.issuedKey = key.secret;
    await vendorCall(gateway, key.secret);
    await vendorCall(gateway, SANDBOX_KEYS.demo);
    for (const path of [
      '/portal/api/session',
      '/portal/api/keys',
      '/portal/api/usage?range=7d',
      '/portal/api/requests?limit=5',
      '/portal/api/access',
      '/portal/api/openapi.json',
    ]) {
      await session.call(gateway, 'GET', path);
    }
    const rotated = await session.call(gateway, 'POST', `/portal/api/keys/${key.id}/rotate`, { overlapHours: 1 });
    expect(rotated.status).toBe(201);
    const { key: fresh } = (await rotated.json()) as { key: { id: string; secret: string } };
    secrets.rotatedKey = fresh.secret;
    expect((await session.call(gateway, 'DELETE', `/portal/api/keys/${fresh.id}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `/portal/api/keys/${key.id}/rotate`, { overlapHours: 500 }],
      ['POST', `/portal/api/keys/${fresh.id}/rotate`, { overlapHours: 1 }],
      ['GET', '/portal/api/usage?range=forever', undefined],
      ['GET', `/portal/api/requests?status=${encodeURIComponent(secrets.invitedToken)}`, undefined],
    ] as const) {
      const answer = await session.call(gateway, method, path, body);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      errorBodies.push(await answer.text());
    }
    // A token pasted into the Find field.
    await session.call(gateway, 'GET', `/portal/api/requests?requestId=${encodeURIComponent(secrets.invitedToken)}`);
    // A sign-in with the token where the cookie goes, in the query, and as a bearer token.
    for (const headers of [{ cookie: `cbg_portal_session=${user.token}` }, { authorization: `Bearer ${user.token}` }, { 'x-vendor-token': user.token }]) {
      const answer = await fetch(`${gateway.url}/portal/api/keys?token=${user.token}`, { headers });
      errorBodies.push(await answer.text());
    }
    const reissued = await adminCall(gateway, 'POST', `/v1/vendors/${A}/portal-users/${user.id}/token`);
    secrets.reissuedToken = ((await reissued.json()) as { token: string }).token;
    const stale = await session.call(gateway, 'GET', '/portal/api/keys');
    expect(stale.status).toBe(401);
    errorBodies.push(await stale.text());
    const again = await PortalSession.signIn(gateway, secrets.reissuedToken);
    expect((await again.call(gateway, 'DELETE', '/portal/api/session')).status).toBe(204);
    expect((await signIn(secrets.invitedToken)).status).toBe(429);
  });

  /** Each secret, and for tokens the hash the store keeps (a lookup key, no credential, yet never shown). */
  function leaks(text: string): string[] {
    const found: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      if (text.includes(secret)) found.push(name);
      // The token's secret part alone (a log line might cut off its cbp_ prefix).
      if (secret.startsWith('cbp_') && text.includes(secret.slice(4, 36))) found.push(`${name} (secret part)`);
    }
    for (const name of ['invitedToken', 'reissuedToken', 'throttledUserToken'] as const) {
      if (text.includes(hashApiKey(secrets[name] as string).slice('sha256:'.length))) found.push(`${name} hash`);
    }
    return found;
  }

  it('the log output holds none, though it logged every portal request', () => {
    expect(Object.keys(secrets)).toHaveLength(9);
    expect(output.some((line) => line.includes('/portal/api/session'))).toBe(true);
    expect(output.some((line) => line.includes('/portal/api/keys/'))).toBe(true);
    expect(output.flatMap((line, i) => leaks(line).map((name) => `${name} on line ${i}: ${line.slice(0, 300)}`))).toEqual([]);
  });

  it('the audit log holds none, though it records the sign-ins, rotation, revocation and re-issue', async () => {
    const answer = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/audit?limit=1000`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    const text = await answer.text();
    const actions = new Set((JSON.parse(text) as Array<{ action: string }>).map((entry) => entry.action));
    expect([...actions]).toEqual(
      expect.arrayContaining(['portal_user.invite', 'portal_user.token', 'portal.sign_in', 'portal.sign_out', 'key.rotate', 'key.revoke']),
    );
    expect(leaks(text)).toEqual([]);
  });

  it('the metrics hold none, and count the sign-ins by outcome', async () => {
    const text = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(text).toMatch(/gateway_portal_sign_ins_total\{outcome="throttled"\} [1-9]/);
    expect(text).toMatch(/gateway_portal_sign_ins_total\{outcome="signed_in"\} [1-9]/);
    expect(leaks(text)).toEqual([]);
  });

  it('no error body holds one', () => {
    expect(errorBodies.length).toBeGreaterThan(15);
    expect(errorBodies.flatMap((body) => leaks(body).map((name) => `${name}: ${body}`))).toEqual([]);
  });
});
