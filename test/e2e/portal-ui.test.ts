/**
 * The vendor portal in a real browser (Debian's Chromium, driven by playwright-core) against a
 * real gateway (issue 34, "Done when"): an admin invites a portal user through the admin API; the
 * vendor's developer signs in with the portal token, sees only their vendor's keys, rotates one
 * with Overlap hours 2 (the new secret shown once; old and new keys both answer 200; the old key's
 * expiry, shown and answered, is the end of the overlap), revokes one (Confirm; 401 within 1 s, on
 * every instance sharing Redis), finds a vendor call on Requests by its X-Request-Id with its API
 * id and status, sees it counted in Usage, reads API access, and signs out (the cookie then works
 * nowhere); a portal user an admin removes meets the sign-in page at the next screen. A wrong
 * token shows next to Portal token in role="alert"; signing in works by keyboard alone; every
 * screen passes axe-core (nothing serious or critical) and holds at 420 px without scrolling
 * sideways, under a strict CSP, with no console error and no request off loopback. Screenshots of
 * each page go to SCREENS_DIR when it is set.
 */
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { chromiumForTests } from '../support/browser';
import { within } from '../support/within';

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const COOKIE = 'cbg_portal_session';
const HOUR_MS = 3_600_000;
/** The sandbox access file's keys: demo-vendor's, and another vendor's the portal must never show. */
const DEMO_KEY_PREFIX = 'cbk_5fd3cTg5';
const PARTNER_KEY_PREFIX = 'cbk_VOrQKC24';

const { watched, newPage } = chromiumForTests();

interface Issued {
  readonly id: string;
  readonly secret: string;
  readonly prefix: string;
}

async function adminCall(gateway: TestGateway, method: string, route: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, data: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The admin invites a portal user of `vendorId`: its portal token, shown this once. */
async function invite(gateway: TestGateway, vendorId: string, name: string): Promise<string> {
  return (await invited(gateway, vendorId, name)).token;
}

async function invited(gateway: TestGateway, vendorId: string, name: string): Promise<{ id: string; token: string }> {
  const res = await adminCall(gateway, 'POST', `/vendors/${vendorId}/portal-users`, { email: `${name.toLowerCase()}@${vendorId}.example`, name });
  expect(res.status).toBe(201);
  expect(res.data.token).toMatch(/^cbp_/);
  return { id: res.data.id as string, token: res.data.token as string };
}

async function issueKey(gateway: TestGateway, vendorId: string, userId: string): Promise<Issued> {
  const res = await adminCall(gateway, 'POST', `/vendors/${vendorId}/keys`, { userId });
  expect(res.status).toBe(201);
  const secret = res.data.secret as string;
  return { id: res.data.id as string, secret, prefix: secret.slice(0, 12) };
}

/** A vendor API call (`GET /genders`): its status and the X-Request-Id it was answered with. */
async function vendorCall(gateway: TestGateway, secret: string): Promise<{ status: number; requestId: string }> {
  const res = await fetch(`${gateway.url}/genders`, { headers: { 'X-Vendor-Token': secret } });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get('x-request-id') ?? '' };
}

async function portalPage(gateway: TestGateway, options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const page = await newPage(options);
  await page.goto(`${gateway.url}/portal/`);
  return page;
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Portal token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
}

/** The portal API with a session cookie, as a script outside the page would replay it. */
async function portalApi(gateway: TestGateway, cookie: string, route: string): Promise<{ status: number; data: unknown }> {
  const res = await fetch(`${gateway.url}/portal/api${route}`, { headers: { cookie: `${COOKIE}=${cookie}` } });
  const text = await res.text();
  return { status: res.status, data: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

async function sessionCookie(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === COOKIE);
  if (!cookie) throw new Error(`no ${COOKIE} cookie after sign-in`);
  return cookie.value;
}

/** The text of each cell of the table row that names `text`. */
async function cellsOf(page: Page, text: string): Promise<string[]> {
  return (await page.getByRole('row').filter({ hasText: text }).getByRole('cell').allTextContents()).map((t) => t.trim());
}

/** Clicks `button` until `target` shows (the request log writes in batches; usage counts settle). */
async function clickUntil(page: Page, button: string, target: () => ReturnType<Page['getByRole']>, withinMs = 5000): Promise<void> {
  await within(withinMs, async () => {
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.waitForLoadState('networkidle');
    return (await target().count()) > 0;
  });
}

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `portal-${name}.png`), fullPage: true });
}

describe('the vendor portal in a browser, memory store', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('serves the page under a strict CSP, and shows a wrong token in an alert next to Portal token without setting a cookie', async () => {
    const res = await fetch(`${gateway.url}/portal/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|style=/);

    const page = await portalPage(gateway);
    await page.getByLabel('Portal token').fill('cbp_notAToken');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert').filter({ hasText: /\S/ });
    await alert.waitFor();
    await screenshot(page, 'sign-in-refused');
    // The field's own alert: right after its label, and named by the field's description.
    const placed = await page.evaluate<Record<string, unknown>>(`(() => {
      const input = document.querySelector('input[type=password]');
      const problem = document.getElementById(input.getAttribute('aria-describedby') ?? '');
      return {
        label: input.labels[0]?.textContent,
        role: problem?.getAttribute('role'),
        text: problem?.textContent ?? '',
        nextToField: problem?.previousElementSibling?.contains(input) ?? false,
        invalid: input.getAttribute('aria-invalid'),
      };
    })()`);
    expect(placed).toEqual({ label: 'Portal token', role: 'alert', text: expect.stringMatching(/\S/), nextToField: true, invalid: 'true' });
    expect(await alert.count()).toBe(1);
    expect(await page.context().cookies()).toEqual([]);
    // The refusal itself is the point (Chromium logs the 401 as a console error); nothing else.
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([]);
    watched.problems.splice(0);
  });

  it('signs in and reaches another screen by keyboard alone', async () => {
    const token = await invite(gateway, 'demo-vendor', 'Kim');
    const page = await portalPage(gateway);
    await page.getByLabel('Portal token').waitFor();
    // The field has the focus when the page opens: type, Tab to Sign in, Enter.
    await page.keyboard.type(token);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Keys' }).waitFor();
    await within(5000, async () => {
      await page.keyboard.press('Tab');
      return (await page.evaluate<string | undefined>('document.activeElement?.textContent')) === 'Requests';
    });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    expect(watched.problems).toEqual([]);
  });

  it('lets a vendor developer see only their keys, rotate one with an overlap, revoke one, find a call by its request id, see it in Usage, and sign out', async () => {
    const token = await invite(gateway, 'demo-vendor', 'Nina');
    const rotated = await issueKey(gateway, 'demo-vendor', 'demo.teller');
    const revoked = await issueKey(gateway, 'demo-vendor', 'demo.teller');
    let calls = 0;
    const counted = async (secret: string): Promise<number> => {
      const { status } = await vendorCall(gateway, secret);
      if (status === 200) calls++;
      return status;
    };

    const page = await portalPage(gateway);
    await screenshot(page, 'sign-in');
    await signIn(page, token);
    const cookie = await page.context().cookies();
    expect(cookie).toEqual([expect.objectContaining({ name: COOKIE, httpOnly: true, sameSite: 'Strict', path: '/portal' })]);
    expect(await page.evaluate<string>('JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie')).not.toContain(token);
    await page.getByText('Demo Vendor Ltd').first().waitFor();

    // Keys: the vendor's own, never another vendor's.
    for (const prefix of [DEMO_KEY_PREFIX, rotated.prefix, revoked.prefix]) await page.getByRole('row').filter({ hasText: prefix }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: PARTNER_KEY_PREFIX }).count()).toBe(0);
    expect(await page.content()).not.toContain('readonly-partner');

    // Rotate with Overlap hours 2: the new secret once; both keys work; the old one until now + 2 h.
    await page.getByRole('row').filter({ hasText: rotated.prefix }).getByRole('button', { name: 'Rotate', exact: true }).click();
    await page.getByLabel('Overlap hours').fill('2');
    const rotatedAt = Date.now();
    await page.getByRole('button', { name: 'Rotate key', exact: true }).click();
    const secret = ((await page.locator('.secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^cbk_/);
    expect(secret).not.toBe(rotated.secret);
    await page.getByText(/shown this once/).waitFor();
    await screenshot(page, 'keys-rotated');
    expect([await counted(rotated.secret), await counted(secret)]).toEqual([200, 200]);
    const expiry = await page.getByRole('row').filter({ hasText: rotated.prefix }).getByRole('cell').nth(4).locator('time').getAttribute('datetime');
    expect(Math.abs(Date.parse(expiry ?? '') - (rotatedAt + 2 * HOUR_MS))).toBeLessThan(60_000);
    const session = await sessionCookie(page);
    const listed = (await portalApi(gateway, session, '/keys')).data as Array<{ prefix: string; expiresAt?: string; status: string }>;
    const old = listed.find((k) => k.prefix === rotated.prefix);
    expect(Math.abs(Date.parse(old?.expiresAt ?? '') - (rotatedAt + 2 * HOUR_MS))).toBeLessThan(60_000);
    expect(listed.filter((k) => k.prefix === secret.slice(0, 12))).toHaveLength(1);
    expect(listed.some((k) => k.prefix === PARTNER_KEY_PREFIX)).toBe(false);

    // Revoke asks first; after Confirm the key is refused within 1 s.
    expect(await counted(revoked.secret)).toBe(200);
    await page.getByRole('row').filter({ hasText: revoked.prefix }).getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('alertdialog').waitFor();
    await screenshot(page, 'keys-revoke');
    await page.getByRole('button', { name: 'Confirm' }).click();
    const revokedMs = await within(1000, async () => (await vendorCall(gateway, revoked.secret)).status === 401);
    expect(revokedMs).toBeLessThan(1000);
    await page
      .getByRole('status')
      .filter({ hasText: `Revoked key ${revoked.prefix}` })
      .waitFor();
    expect((await cellsOf(page, revoked.prefix))[6]).toBe('revoked');
    await screenshot(page, 'keys');

    // Requests: the call found by the X-Request-Id it was answered with.
    const call = await vendorCall(gateway, secret);
    expect(call.status).toBe(200);
    calls++;
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByLabel('Request id').fill(call.requestId);
    await clickUntil(page, 'Find', () => page.getByRole('cell', { name: call.requestId }));
    const [, requestId, apiId, status, duration, , keyPrefix] = await cellsOf(page, call.requestId);
    expect({ requestId, apiId, status, keyPrefix }).toEqual({ requestId: call.requestId, apiId: 'GETgenders', status: '200', keyPrefix: secret.slice(0, 12) });
    expect(duration).toMatch(/^\d[\d,.\s]* ms$/);
    await screenshot(page, 'requests-found');
    await page.getByLabel('Request id').fill('');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /requests? shown, newest first/ })
      .waitFor();
    await screenshot(page, 'requests');

    // Usage: the calls counted per API id and status class.
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    await clickUntil(page, 'Refresh', () => page.getByRole('row').filter({ hasText: 'GETgenders' }));
    await within(5000, async () => {
      const [, ok] = await cellsOf(page, 'GETgenders');
      if (Number((ok ?? '').replace(/\D/g, '')) >= calls) return true;
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.waitForLoadState('networkidle');
      return false;
    });
    await page.getByRole('heading', { name: 'Rate limit' }).waitFor();
    await screenshot(page, 'usage');
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('button', { name: '7 days', pressed: true }).waitFor();
    await page.getByRole('row').filter({ hasText: 'GETgenders' }).waitFor();

    // API access: the licences, what they grant, and the filtered OpenAPI document.
    await page.getByRole('link', { name: 'API access' }).click();
    await page.getByRole('cell', { name: 'lic-demo-read' }).waitFor();
    expect(await page.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href')).toBe('/portal/api/openapi.json');
    expect(await page.getByRole('link', { name: 'API documentation' }).getAttribute('href')).toBe('/docs');
    const openapi = await portalApi(gateway, session, '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(Object.keys((openapi.data as { paths: object }).paths)).toContain('/genders');
    await screenshot(page, 'access');

    // Signing out ends the session: the cookie no longer works.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Portal token').waitFor();
    expect((await portalApi(gateway, session, '/keys')).status).toBe(401);
    expect(await page.content()).not.toContain(secret);
    expect(watched.problems).toEqual([]);
  }, 60_000);

  it('shows the sign-in page, saying the session ended, at the next screen after an admin removes the portal user', async () => {
    const nora = await invited(gateway, 'demo-vendor', 'Nora');
    const page = await portalPage(gateway);
    await signIn(page, nora.token);
    await page.waitForLoadState('networkidle');
    expect((await adminCall(gateway, 'DELETE', `/vendors/demo-vendor/portal-users/${nora.id}`)).status).toBe(204);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('status').filter({ hasText: 'Your session has ended; sign in again.' }).waitFor();
    await page.getByLabel('Portal token').waitFor();
    expect(await page.locator('nav#nav').isHidden()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    // The refused request is this test's point (Chromium logs it as a console error); nothing else.
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([]);
    watched.problems.splice(0);
  });

  it('has no serious or critical accessibility violations on any screen (axe-core)', async () => {
    const token = await invite(gateway, 'demo-vendor', 'Axel');
    // axe is injected as a script of its own, which the page's CSP would refuse: this context
    // bypasses the CSP for the check only.
    const page = await portalPage(gateway, { bypassCSP: true });
    const check = async (screen: string): Promise<string[]> => {
      await page.addScriptTag({ path: AXE_SCRIPT });
      const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${screen}: ${v.id}`);
    };
    await page.getByLabel('Portal token').waitFor();
    const found = await check('Sign in');
    await signIn(page, token);
    for (const screen of ['Keys', 'Usage', 'Requests', 'API access']) {
      await page.getByRole('link', { name: screen, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: screen }).waitFor();
      await page.waitForLoadState('networkidle');
      found.push(...(await check(screen)));
    }
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByRole('row').filter({ hasText: DEMO_KEY_PREFIX }).getByRole('button', { name: 'Rotate', exact: true }).click();
    found.push(...(await check('Rotate form')));
    expect(found).toEqual([]);
    // A phone's width: tables scroll inside their own boxes, the page never sideways.
    await page.setViewportSize({ width: 420, height: 800 });
    const wide: string[] = [];
    for (const screen of ['Keys', 'Usage', 'Requests', 'API access']) {
      await page.getByRole('link', { name: screen, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: screen }).waitFor();
      await page.waitForLoadState('networkidle');
      if (await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth')) wide.push(screen);
    }
    expect(wide).toEqual([]);
    expect(watched.problems).toEqual([]);
  }, 60_000);
});

describe('the vendor portal in a browser, two instances on one Redis', () => {
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    // The UI's flow is the point here, not Redis's speed: with the suite and Chromium sharing two
    // cores, a Redis reply can miss the 100 ms default.
    const redis = {
      url: process.env.TEST_REDIS_URL as string,
      keyPrefix: `portal-ui${process.pid}:`,
      seedAccessFile: 'always' as const,
      commandTimeoutMs: 2000,
    };
    first = await startTestGateway({ redis });
    second = await startTestGateway({ redis });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('refuses a key revoked in the portal within 1 s on both instances, and finds a call the other instance answered', async () => {
    const token = await invite(first, 'demo-vendor', 'Rita');
    const key = await issueKey(first, 'demo-vendor', 'demo.teller');
    const call = await within(2000, async () => (await vendorCall(second, key.secret)).status === 200);
    expect(call).toBeLessThan(2000);
    const answered = await vendorCall(second, key.secret);
    expect(answered.status).toBe(200);

    const page = await portalPage(first);
    await signIn(page, token);
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByLabel('Request id').fill(answered.requestId);
    await clickUntil(page, 'Find', () => page.getByRole('cell', { name: answered.requestId }));
    expect((await cellsOf(page, answered.requestId)).slice(1, 4)).toEqual([answered.requestId, 'GETgenders', '200']);

    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('row').filter({ hasText: key.prefix }).getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    const refusedMs = await within(
      1000,
      async () => (await vendorCall(first, key.secret)).status === 401 && (await vendorCall(second, key.secret)).status === 401,
    );
    expect(refusedMs).toBeLessThan(1000);
    expect(watched.problems).toEqual([]);
  }, 40_000);
});
