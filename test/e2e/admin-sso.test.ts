/**
 * Single sign-on to the admin web UI (issue 33) in a real browser (Debian's Chromium) against a
 * real OpenID provider (test/support/oidc-provider.ts: its own login and consent pages, RS256,
 * PKCE, client_secret_basic) and a whole gateway from the build (dist/: openid-client is an ES
 * module jest cannot load in process), approvals required.
 *
 * Sign-in with each role (GET /v1/me from the page gives exactly it; name and email shown), a
 * role by group id; refusals in an alert and on the audit log, never with a token: no mapped
 * group, Entra's groups overage, a tampered or expired ID token, another issuer, a wrong state;
 * sign-in after the provider rotated its keys; a role taken away at the provider ends the session
 * within roleRefreshMinutes and the silent re-sign-in gives the lower role or none; token
 * sign-in off (a named admin's token refused, the bootstrap token counted as break-glass); four
 * eyes between SSO admins and between an SSO admin and a token admin (who under single sign-on
 * neither approves nor files a granting change); a replayed callback refused; an owner blocking an SSO
 * admin ends its session at once and refuses its next sign-in.
 */
import type { Page } from 'playwright-core';
import type { ConfigInput } from '../../src/config/config.schema';
import { deepMerge } from '../../src/config/config';
import { writeAccessFile } from '../support/access-fixture';
import { chromiumForTests, newWatchedPage } from '../support/browser';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startDistGateway, type DistGateway } from '../support/dist-gateway';
import { freePort } from '../support/free-port';
import { startOidcProvider, type OidcProviderHandle, type OidcTestAccount, type TokenFault } from '../support/oidc-provider';
import { within } from '../support/within';

jest.setTimeout(60_000);

const CLIENT_ID = 'core-banking-gateway-admin';
const CLIENT_SECRET = 'sso-client-secret-not-secret-0001';
/** An Entra-style group object id: roles map group names or ids alike. */
const APPROVER_GROUP_ID = '6f1c2b0e-4d5a-4c7e-9b1a-2f3e4d5c6b7a';
const ROLES = {
  owner: ['cbg-owners'],
  approver: ['cbg-approvers', APPROVER_GROUP_ID],
  operator: ['cbg-operators'],
  viewer: ['cbg-viewers'],
};
const UI_HEADER = { 'x-requested-by': 'cbg-admin-ui' };

const person = (sub: string, groups: string[]): OidcTestAccount => ({
  name: `${sub[0]!.toUpperCase()}${sub.slice(1)} Example`,
  email: `${sub}@bank.example`,
  groups,
});

interface Sso {
  readonly provider: OidcProviderHandle;
  readonly gateway: DistGateway;
  stop(): Promise<void>;
}

/** A provider and a gateway signing in through it; `config` adds to the gateway's config. */
async function startSso(config: ConfigInput = {}): Promise<Sso> {
  const adminPort = await freePort();
  const redirectUrl = `http://127.0.0.1:${adminPort}/ui/sso/callback`;
  const provider = await startOidcProvider({ clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUrl] }], accounts: {} });
  const file = writeAccessFile({ vendors: [{ id: 'acme', name: 'Acme', status: 'active', licences: [], keys: [] }], users: [] });
  try {
    const gateway = await startDistGateway(
      () =>
        deepMerge(
          {
            access: { file },
            shutdown: { drainTimeoutMs: 1000 },
            admin: { approvals: 'required', oidc: { issuer: provider.issuer, clientId: CLIENT_ID, redirectUrl, roles: ROLES } },
          },
          config as Record<string, unknown>,
        ) as ConfigInput,
      { adminPort, env: { ADMIN_OIDC_CLIENT_SECRET: CLIENT_SECRET } },
    );
    return {
      provider,
      gateway,
      async stop() {
        await gateway.stop();
        await provider.stop();
      },
    };
  } catch (err) {
    await provider.stop();
    throw err;
  }
}

const { watched, newContext } = chromiumForTests();

afterEach(() => {
  // Refused requests are console errors in Chromium, and expected here; leaving loopback never is.
  expect(watched.problems.filter((problem) => problem.includes('off loopback'))).toEqual([]);
  watched.problems.length = 0;
});

async function newPage(): Promise<Page> {
  const context = await newContext();
  // A missing button fails in seconds, not at the test's timeout.
  context.setDefaultTimeout(10_000);
  const page = await newWatchedPage(context, watched);
  // The refusal codes the page was sent to (`/?sso=<code>`), in order: the UI strips the query once read.
  const codes: string[] = [];
  refusals.set(page, codes);
  page.on('framenavigated', (frame) => {
    const code = frame === page.mainFrame() ? new URL(frame.url()).searchParams.get('sso') : null;
    if (code) codes.push(code);
  });
  return page;
}

const refusals = new WeakMap<Page, string[]>();

/** The provider's own pages: its login (the account id as login name) and its consent. */
async function signInAtProvider(page: Page, sub: string): Promise<void> {
  await page.locator('input[name="login"]').fill(sub);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Where a sign-in ended: the UI signed in ('signed_in'), or the refusal code of `/?sso=<code>` and the alert's text. */
async function outcome(page: Page): Promise<{ code: string; alert: string }> {
  const overview = page.getByRole('link', { name: 'Overview' });
  const alert = page.getByRole('alert').filter({ hasText: /\S/ });
  await overview.or(alert).first().waitFor({ timeout: 20_000 });
  if (await overview.isVisible()) {
    await page.waitForLoadState('networkidle');
    return { code: 'signed_in', alert: '' };
  }
  return { code: refusals.get(page)?.at(-1) ?? '(the page was sent to no /?sso=<code>)', alert: await alert.first().innerText() };
}

/** Signs `sub` in through the UI's single-sign-on button, the provider's login and consent. */
async function ssoSignIn(page: Page, gateway: DistGateway, sub: string): Promise<{ code: string; alert: string }> {
  await page.goto(`${gateway.adminUrl}/`);
  await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
  await signInAtProvider(page, sub);
  return outcome(page);
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** An admin API call from the signed-in page itself (its session cookie, the UI's header). */
async function fromPage(page: Page, method: string, path: string, body?: unknown): Promise<Answer> {
  return page.evaluate(
    async ([method, path, header, body]) => {
      const res = await fetch(path, {
        method,
        headers: { ...header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    [method, path, UI_HEADER, body] as const,
  );
}

/** An admin API call with a bearer token (the bootstrap token by default). */
async function withToken(gateway: DistGateway, method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN): Promise<Answer> {
  const res = await fetch(`${gateway.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

interface AuditEntry {
  readonly actor: string;
  readonly action: string;
  readonly after: Record<string, unknown> | null;
}

/** The audit entries of `action` since `since`, newest first (read with the bootstrap token). */
async function audited(gateway: DistGateway, action: string, since: Date): Promise<AuditEntry[]> {
  const query = new URLSearchParams({ action, since: since.toISOString() });
  const res = await fetch(`${gateway.adminUrl}/v1/audit?${query}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as AuditEntry[];
}

/** Nothing on the audit log that looks like a JWT, the client secret or an authorization code. */
function expectNoSecretIn(entries: readonly AuditEntry[]): void {
  const text = JSON.stringify(entries);
  expect(text).not.toMatch(/eyJ[\w-]{8,}\.[\w-]{8,}\./);
  expect(text).not.toContain(CLIENT_SECRET);
  expect(text).not.toMatch(/"(code|id_token|access_token|code_verifier)"/);
}

async function metric(gateway: DistGateway, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('admin single sign-on, approvals required', () => {
  let sso: Sso;
  beforeAll(async () => {
    sso = await startSso();
  }, 60_000);
  afterAll(async () => {
    await sso?.stop();
  });
  afterEach(async () => {
    await sso.provider.setTokenFault(null);
  });

  it.each([
    ['owner', 'olga', ['cbg-owners', 'cbg-viewers']],
    ['approver', 'april', ['cbg-approvers']],
    ['operator', 'otis', ['staff', 'cbg-operators']],
    ['viewer', 'vicky', ['cbg-viewers']],
    ['approver', 'gideon', [APPROVER_GROUP_ID]],
  ])('signs in as %s (%s, groups %j): /v1/me says exactly that role, the page shows name and email', async (role, sub, groups) => {
    const since = new Date();
    const account = person(sub, groups);
    await sso.provider.setAccount(sub, account);
    const page = await newPage();
    expect(await ssoSignIn(page, sso.gateway, sub)).toEqual({ code: 'signed_in', alert: '' });
    await page.getByText(account.email).first().waitFor();
    await page.getByText(account.name).first().waitFor();

    const me = await fromPage(page, 'GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: `oidc:${sub}`, role, source: 'oidc', email: account.email });
    const session = await fromPage(page, 'GET', '/ui/session');
    expect(session.body.admin).toMatchObject({ id: `oidc:${sub}`, name: account.name, role, email: account.email, source: 'oidc' });
    const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'cbg_admin_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    const signIns = await audited(sso.gateway, 'admin.sign_in', since);
    expect(signIns.find((e) => e.actor === `admin:oidc:${sub}`)?.after).toMatchObject({ method: 'oidc', role, issuer: sso.provider.issuer });
    expectNoSecretIn(signIns);
  });

  it('refuses an account in no mapped group: an alert, and admin.sign_in_refused (no_role) holding no token', async () => {
    const since = new Date();
    await sso.provider.setAccount('nobody', person('nobody', ['staff', 'cbg-everyone']));
    const page = await newPage();
    const { code, alert } = await ssoSignIn(page, sso.gateway, 'nobody');
    expect(code).toBe('no_role');
    expect(alert).not.toBe('');
    expect((await fromPage(page, 'GET', '/v1/me')).status).toBe(401);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('cbg_admin_session');

    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    expect(refused.find((e) => e.after?.reason === 'no_role')).toMatchObject({ actor: 'admin:oidc:nobody', after: { reason: 'no_role' } });
    expectNoSecretIn(refused);
    expect(await metric(sso.gateway, 'gateway_admin_sso_sign_ins_total', 'outcome="no_role"')).toBeGreaterThanOrEqual(1);
  });

  it("refuses Entra ID's groups overage (no groups, _claim_names instead) with an alert that points at app roles", async () => {
    const since = new Date();
    await sso.provider.setAccount('ollie', person('ollie', ['cbg-owners']));
    await sso.provider.setTokenFault('overage');
    const page = await newPage();
    const { code, alert } = await ssoSignIn(page, sso.gateway, 'ollie');
    expect(code).toBe('groups_overage');
    expect(alert).toMatch(/app roles/i);
    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    expect(refused.find((e) => e.after?.reason === 'groups_overage')).toMatchObject({ actor: 'admin:oidc:ollie' });
    expectNoSecretIn(refused);
  });

  it.each([
    ['tamper', 'invalid_token'],
    ['expire', 'invalid_token'],
    ['wrong_issuer', 'wrong_issuer'],
  ] as Array<[TokenFault, string]>)('refuses an ID token broken by %s (%s): an alert, audited as unverified, no session', async (fault, reason) => {
    const since = new Date();
    const sub = `faulty-${fault}`;
    await sso.provider.setAccount(sub, person(sub, ['cbg-owners']));
    await sso.provider.setTokenFault(fault);
    const page = await newPage();
    const { code, alert } = await ssoSignIn(page, sso.gateway, sub);
    expect(code).toBe(reason);
    expect(alert).not.toBe('');
    expect((await fromPage(page, 'GET', '/v1/me')).status).toBe(401);

    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    const entry = refused.find((e) => e.after?.reason === reason);
    // The subject the token claimed is on record, marked as claimed: no one can tell who sent it.
    expect(entry).toMatchObject({ actor: 'oidc:unverified', after: { reason, claimedSub: sub } });
    expectNoSecretIn(refused);
    // The unverified token named an owner: nobody of that name signed in.
    expect((await audited(sso.gateway, 'admin.sign_in', since)).filter((e) => e.actor === `admin:oidc:${sub}`)).toEqual([]);
  });

  it('refuses a callback whose state is not the one in the flow cookie (state_mismatch)', async () => {
    const since = new Date();
    await sso.provider.setAccount('stella', person('stella', ['cbg-owners']));
    const page = await newPage();
    // The state the provider hands back is not the one the flow cookie holds: the start's redirect
    // to the provider is altered on its way (a redirect's later hops cannot be routed).
    await page.route('**/ui/sso/start*', async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = new URL(answer.headers().location!);
      location.searchParams.set('state', `${location.searchParams.get('state') ?? ''}x`);
      await route.fulfill({ response: answer, headers: { ...answer.headers(), location: location.toString() } });
    });
    const { code, alert } = await ssoSignIn(page, sso.gateway, 'stella');
    expect(code).toBe('state_mismatch');
    expect(alert).not.toBe('');
    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    expect(refused.some((e) => e.after?.reason === 'state_mismatch')).toBe(true);
    expectNoSecretIn(refused);
  });

  it('refuses a replayed callback (state_mismatch): each sign-in is answered once', async () => {
    await sso.provider.setAccount('remy', person('remy', ['cbg-viewers']));
    const page = await newPage();
    const callbacks: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/ui/sso/callback') callbacks.push(request.url());
    });
    expect((await ssoSignIn(page, sso.gateway, 'remy')).code).toBe('signed_in');
    expect(callbacks).toHaveLength(1);
    const other = await newPage();
    await other.goto(callbacks[0]!);
    expect((await outcome(other)).code).toBe('state_mismatch');
    expect((await fromPage(other, 'GET', '/v1/me')).status).toBe(401);
  });

  it('signs in after the provider rotated its signing keys (the old kid gone)', async () => {
    await sso.provider.setAccount('rosa', person('rosa', ['cbg-viewers']));
    const before = await newPage();
    // The gateway holds the provider's current key after one sign-in.
    expect((await ssoSignIn(before, sso.gateway, 'rosa')).code).toBe('signed_in');
    await sso.provider.rotateKeys();
    const after = await newPage();
    expect((await ssoSignIn(after, sso.gateway, 'rosa')).code).toBe('signed_in');
    expect((await fromPage(after, 'GET', '/v1/me')).body).toMatchObject({ id: 'oidc:rosa', role: 'viewer' });
  });

  it('four eyes between SSO admins: the maker (an owner) cannot approve its own change, another SSO approver can', async () => {
    await sso.provider.setAccount('maker', person('maker', ['cbg-owners']));
    await sso.provider.setAccount('checker', person('checker', [APPROVER_GROUP_ID]));
    const maker = await newPage();
    const checker = await newPage();
    expect((await ssoSignIn(maker, sso.gateway, 'maker')).code).toBe('signed_in');
    expect((await ssoSignIn(checker, sso.gateway, 'checker')).code).toBe('signed_in');

    const filed = await fromPage(maker, 'POST', '/v1/vendors/acme/licences', { id: 'l-sso-sso', api: 'GET*' });
    expect(filed.status).toBe(202);
    const change = filed.body.id as string;
    const own = await fromPage(maker, 'POST', `/v1/changes/${change}/approve`);
    expect([own.status, own.body.code]).toEqual([403, 'permission_denied']);
    const approved = await fromPage(checker, 'POST', `/v1/changes/${change}/approve`);
    expect(approved.status).toBe(200);
    const licences = await withToken(sso.gateway, 'GET', '/v1/vendors/acme/licences');
    expect(JSON.stringify(licences.body)).toContain('l-sso-sso');
  });

  it('four eyes between an SSO admin and a token admin: a token admin neither approves nor files a granting change, an SSO approver approves', async () => {
    await sso.provider.setAccount('owen', person('owen', ['cbg-owners']));
    await sso.provider.setAccount('ada', person('ada', ['cbg-approvers']));
    const owner = await newPage();
    const approver = await newPage();
    expect((await ssoSignIn(owner, sso.gateway, 'owen')).code).toBe('signed_in');
    expect((await ssoSignIn(approver, sso.gateway, 'ada')).code).toBe('signed_in');

    // A named token admin (an owner: it may write and approve), made by the SSO owner and approved by the SSO approver.
    const created = await fromPage(owner, 'POST', '/v1/admins', { id: 'tess', name: 'Tess Token', role: 'owner' });
    expect(created.status).toBe(202);
    expect((await fromPage(approver, 'POST', `/v1/changes/${created.body.id as string}/approve`)).status).toBe(200);
    const enrolled = await fetch(`${sso.gateway.adminUrl}/v1/admins/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enrolmentCode: created.body.enrolmentCode }),
    });
    expect(enrolled.status).toBe(200);
    const tess = ((await enrolled.json()) as { token: string }).token;

    const bySso = await fromPage(owner, 'POST', '/v1/vendors/acme/licences', { id: 'l-by-sso', api: 'GET*' });
    expect(bySso.status).toBe(202);
    const refused = await withToken(sso.gateway, 'POST', `/v1/changes/${bySso.body.id as string}/approve`, undefined, tess);
    expect([refused.status, refused.body.code]).toEqual([403, 'permission_denied']);
    // Under single sign-on a token says nothing of who holds it: it files no granting change either.
    const byToken = await withToken(sso.gateway, 'POST', '/v1/vendors/acme/licences', { id: 'l-by-token', api: 'GET*' }, tess);
    expect([byToken.status, byToken.body.code]).toEqual([403, 'permission_denied']);
    // The bootstrap token only reads and reduces access with single sign-on on: it approves nothing.
    const bootstrap = await withToken(sso.gateway, 'POST', `/v1/changes/${bySso.body.id as string}/approve`);
    expect(bootstrap.status).toBe(403);
    expect((await fromPage(approver, 'POST', `/v1/changes/${bySso.body.id as string}/approve`)).status).toBe(200);
  });

  it("lets an owner block an SSO admin: its session ends at once, its next sign-in is refused 'blocked'", async () => {
    const since = new Date();
    await sso.provider.setAccount('boris', person('boris', ['cbg-operators']));
    await sso.provider.setAccount('opal', person('opal', ['cbg-owners']));
    const victim = await newPage();
    expect((await ssoSignIn(victim, sso.gateway, 'boris')).code).toBe('signed_in');
    const owner = await newPage();
    expect((await ssoSignIn(owner, sso.gateway, 'opal')).code).toBe('signed_in');

    await owner.getByRole('link', { name: 'Admins' }).click();
    const row = owner.getByRole('row').filter({ hasText: 'boris@bank.example' });
    await row.getByRole('button', { name: 'Block' }).click();
    await owner.getByRole('button', { name: 'Confirm' }).click();
    await row.getByRole('button', { name: 'Unblock' }).waitFor();
    await owner.waitForLoadState('networkidle');

    expect((await fromPage(victim, 'GET', '/v1/me')).status).toBe(401);
    const listed = await withToken(sso.gateway, 'GET', '/v1/admins');
    const rows = listed.body as unknown as Array<Record<string, unknown>>;
    expect(rows.find((a) => a.id === 'oidc:boris')).toMatchObject({ source: 'oidc', status: 'blocked', email: 'boris@bank.example' });
    expect(await audited(sso.gateway, 'admin.block', since)).toEqual([expect.objectContaining({ actor: 'admin:oidc:opal' })]);

    const again = await newPage();
    expect((await ssoSignIn(again, sso.gateway, 'boris')).code).toBe('blocked');
    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    expect(refused.find((e) => e.after?.reason === 'blocked')).toMatchObject({ actor: 'admin:oidc:boris' });
  });
});

describe('admin single sign-on, a role changed at the provider (roleRefreshMinutes 0.1)', () => {
  let sso: Sso;
  beforeAll(async () => {
    sso = await startSso({ admin: { oidc: { roleRefreshMinutes: 0.1 } } });
  }, 60_000);
  afterAll(async () => {
    await sso?.stop();
  });

  /** /v1/me from the page as it is now: its status and role, or 'navigating' while the page changes. */
  async function me(page: Page): Promise<string> {
    const answer = await fromPage(page, 'GET', '/v1/me').catch(() => null);
    return answer === null ? 'navigating' : `${answer.status} ${(answer.body.role as string | undefined) ?? ''}`.trim();
  }

  /**
   * Signs `sub` in as an operator, changes its groups at the provider, waits out roleRefreshMinutes
   * (6 s), and opens another screen: the UI's next read meets the ended session. Returns what
   * /v1/me said then.
   */
  async function signedInThenChanged(page: Page, sub: string, to: string[]): Promise<string[]> {
    await sso.provider.setAccount(sub, person(sub, ['cbg-operators']));
    expect((await ssoSignIn(page, sso.gateway, sub)).code).toBe('signed_in');
    expect(await me(page)).toBe('200 operator');
    await sso.provider.setAccount(sub, person(sub, to));
    await new Promise((r) => setTimeout(r, 7000));
    const seen = [await me(page)];
    await page.getByRole('link', { name: 'Vendors' }).click();
    return seen;
  }

  it('ends the session within the refresh time; the UI signs in again silently with the lower role', async () => {
    const since = new Date();
    const page = await newPage();
    const seen = await signedInThenChanged(page, 'lowe', ['cbg-viewers']);
    // Ended (401), unless the UI had already signed in again by itself (viewer).
    expect(['401', '200 viewer']).toContain(seen[0]);
    await within(20_000, async () => {
      seen.push(await me(page));
      return seen.at(-1) === '200 viewer';
    }).catch(() => {
      throw new Error(`never signed in again as a viewer; /v1/me said ${seen.join(', ')}; refusals ${refusals.get(page)?.join(', ')}`);
    });
    await page.waitForLoadState('networkidle');
    const signIns = (await audited(sso.gateway, 'admin.sign_in', since)).filter((e) => e.actor === 'admin:oidc:lowe');
    expect(signIns.map((e) => e.after?.role)).toEqual(['viewer', 'operator']);
  });

  it('ends the session within the refresh time; the silent re-sign-in of an account in no mapped group is refused', async () => {
    const since = new Date();
    const page = await newPage();
    const seen = await signedInThenChanged(page, 'gone', ['staff']);
    expect(seen[0]).toMatch(/^(401|navigating)$/);
    await within(20_000, () => refusals.get(page)?.includes('no_role') === true).catch(() => {
      throw new Error(`no no_role refusal; /v1/me said ${seen.join(', ')}; refusals ${refusals.get(page)?.join(', ')}; at ${page.url()}`);
    });
    await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
    expect(await me(page)).toBe('401');
    const refused = await audited(sso.gateway, 'admin.sign_in_refused', since);
    expect(refused.find((e) => e.after?.reason === 'no_role')).toMatchObject({ actor: 'admin:oidc:gone' });
  });
});

describe('admin single sign-on with token sign-in off', () => {
  let sso: Sso;
  beforeAll(async () => {
    sso = await startSso({ admin: { tokenSignIn: false, approvals: 'off' } });
  }, 60_000);
  afterAll(async () => {
    await sso?.stop();
  });

  async function signInWithToken(page: Page, token: string): Promise<{ code: string; alert: string }> {
    await page.goto(`${sso.gateway.adminUrl}/`);
    await page.getByLabel('Admin token').fill(token);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    return outcome(page);
  }

  it("refuses a named admin's token in the UI with an alert, while its bearer token still works on /v1", async () => {
    await sso.provider.setAccount('olaf', person('olaf', ['cbg-owners']));
    const owner = await newPage();
    expect((await ssoSignIn(owner, sso.gateway, 'olaf')).code).toBe('signed_in');
    const created = await fromPage(owner, 'POST', '/v1/admins', { id: 'ned', name: 'Ned Named', role: 'operator' });
    expect(created.status).toBe(201);
    const enrolled = await fetch(`${sso.gateway.adminUrl}/v1/admins/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enrolmentCode: created.body.enrolmentCode }),
    });
    const ned = ((await enrolled.json()) as { token: string }).token;

    const page = await newPage();
    const { code, alert } = await signInWithToken(page, ned);
    expect(code).not.toBe('signed_in');
    expect(alert).toMatch(/single sign-on/i);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('cbg_admin_session');

    const direct = await fetch(`${sso.gateway.adminUrl}/ui/session`, {
      method: 'POST',
      headers: { ...UI_HEADER, 'content-type': 'application/json' },
      body: JSON.stringify({ token: ned }),
    });
    expect(direct.status).toBe(401);
    expect(await direct.text()).toContain('sign in with single sign-on');
    expect((await withToken(sso.gateway, 'GET', '/v1/me', undefined, ned)).body).toMatchObject({ id: 'ned', source: 'token' });
  });

  it('lets the bootstrap token sign in (break-glass), counted in gateway_admin_break_glass_total', async () => {
    const before = await metric(sso.gateway, 'gateway_admin_break_glass_total', 'via="sign_in"');
    const page = await newPage();
    expect((await signInWithToken(page, TEST_ADMIN_TOKEN)).code).toBe('signed_in');
    expect(await metric(sso.gateway, 'gateway_admin_break_glass_total', 'via="sign_in"')).toBe(before + 1);
  });
});
