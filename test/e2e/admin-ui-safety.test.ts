/**
 * The admin web UI is safe to click, in a real browser (Debian's Chromium via playwright-core)
 * against a real gateway: the Overview renders once after every sign-in; every action that takes
 * access away (Suspend, Delete vendor, Revoke of a key, a licence or a permission, an Apply that
 * removes, deleting an admin or revoking their token) asks first in a dialog that names what is
 * lost, where Cancel (or Escape) leaves the access working and Confirm takes it away; every
 * success is said in role="status"; a revoked key's secret leaves the page; a vendor without a
 * rate limit of its own shows the gateway default in force; and each screen holds at 420 px
 * without the page scrolling sideways. axe-core finds nothing serious or critical with a
 * confirmation open. Screenshots of a confirmation and of a vendor at 420 px go to SCREENS_DIR
 * when it is set.
 */
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { chromiumForTests, signInAdmin } from '../support/browser';
import { within } from '../support/within';

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const SCREENS = ['Overview', 'Vendors', 'Users', 'Access document', 'Audit log', 'Approvals', 'Admins'];

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
});
afterEach(() => {
  expect(watched.problems).toEqual([]);
  watched.problems.splice(0);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read several answer shapes
type Json = any;

async function adminCall(method: string, route: string, body?: unknown): Promise<{ status: number; data: Json }> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text) : null };
}

/** A vendor with a GET* licence and one key for a user allowed GET*: its key's secret. */
async function liveVendor(id: string, userId = `${id}.teller`): Promise<string> {
  expect((await adminCall('POST', '/vendors', { id, name: `${id} Ltd`, licences: [{ id: `lic-${id}`, api: 'GET*' }] })).status).toBe(201);
  expect((await adminCall('POST', `/users/${userId}/permissions`, { id: `perm-${id}`, api: 'GET*' })).status).toBe(201);
  const key = await adminCall('POST', `/vendors/${id}/keys`, { userId });
  expect(key.status).toBe(201);
  expect(await vendorStatus(key.data.secret)).toBe(200);
  return key.data.secret as string;
}

async function vendorStatus(secret: string): Promise<number> {
  const res = await fetch(`${gateway.url}/genders`, { headers: { 'X-Vendor-Token': secret } });
  await res.arrayBuffer();
  return res.status;
}

/** A named admin, enrolled: their token. */
async function enrolledAdmin(id: string, role: string): Promise<string> {
  const { data } = await adminCall('POST', '/admins', { id, name: `${id} Admin`, role });
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/admins/enrol`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enrolmentCode: data.enrolmentCode }),
  });
  return ((await res.json()) as { token: string }).token;
}

async function tokenAccepted(token: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

async function signedIn(options: { width?: number; bypassCSP?: boolean; at?: string; token?: string } = {}): Promise<Page> {
  const page = await newPage({ viewport: { width: options.width ?? 1280, height: 800 }, bypassCSP: options.bypassCSP });
  await signInAdmin(page, gateway.adminPort, options.token ?? TEST_ADMIN_TOKEN, options.at);
  return page;
}

async function openVendor(page: Page, id: string): Promise<void> {
  await page.getByRole('link', { name: 'Vendors', exact: true }).click();
  await page.getByRole('link', { name: id, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: new RegExp(`\\(${id}\\)`) }).waitFor();
}

const dialog = (page: Page) => page.getByRole('alertdialog');
const status = (page: Page) => page.getByRole('status');

/** Whether the element with focus is inside the open confirmation. */
const focusInDialog = (page: Page): Promise<boolean> => page.evaluate<boolean>("document.activeElement?.closest('dialog[open]') != null");

async function axeProblems(page: Page, where: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${where}: ${v.id}`);
}

function screenshotPath(name: string): string | undefined {
  const dir = process.env.SCREENS_DIR;
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

describe('the admin web UI, safe to click', () => {
  it('renders the Overview once after each of several sign-ins, and the screen asked for once when signing in on it', async () => {
    const page = await signedIn();
    for (let round = 0; round < 4; round += 1) {
      await page.getByRole('heading', { level: 2, name: 'Circuit breakers' }).waitFor();
      await page.waitForLoadState('networkidle');
      // A string: the page's DOM, not the test's types (the tests compile without the DOM library).
      const counts = await page.evaluate<Record<string, number>>(`({
        overview: [...document.querySelectorAll('h1')].filter((e) => e.textContent === 'Overview').length,
        h1: document.querySelectorAll('h1').length,
        facts: document.querySelectorAll('dl.facts').length,
        breakers: [...document.querySelectorAll('h2')].filter((e) => e.textContent === 'Circuit breakers').length,
        traffic: [...document.querySelectorAll('h2')].filter((e) => e.textContent.startsWith('Vendor traffic')).length,
      })`);
      expect([round, counts]).toEqual([round, { overview: 1, h1: 1, facts: 1, breakers: 1, traffic: 1 }]);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }

    const onVendors = await signedIn({ at: '#/vendors' });
    await onVendors.getByRole('link', { name: 'demo-vendor' }).waitFor();
    await onVendors.waitForLoadState('networkidle');
    expect(await onVendors.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Vendors']);
    expect(await onVendors.locator('table').count()).toBe(1);
  });

  it('asks before Suspend, naming the active keys and the calls of the last hour the gateway counted; Cancel and Escape leave the key working, Confirm stops it', async () => {
    const secret = await liveVendor('susp');
    const page = await signedIn();
    await openVendor(page, 'susp');

    await page.getByRole('button', { name: 'Suspend' }).click();
    const question = dialog(page);
    await question.waitFor();
    expect(await question.getAttribute('aria-labelledby')).toBeTruthy();
    await page.getByRole('alertdialog', { name: 'Suspend vendor susp?' }).waitFor();
    const text = (await question.textContent()) ?? '';
    expect(text).toMatch(/1 active key stops working at once: cbk_\w+ \(susp\.teller\)/);
    // liveVendor's one request, counted by the gateway (GET /v1/traffic).
    expect(text).toContain('1 call in the last hour.');
    expect(await focusInDialog(page)).toBe(true);
    const shot = screenshotPath('confirm-suspend.png');
    if (shot) await page.screenshot({ path: shot });

    await question.getByRole('button', { name: 'Cancel' }).click();
    await question.waitFor({ state: 'detached' });
    expect(await vendorStatus(secret)).toBe(200);
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Suspend');

    await page.keyboard.press('Enter');
    await question.waitFor();
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect(await vendorStatus(secret)).toBe(200);

    await page.getByRole('button', { name: 'Suspend' }).click();
    await question.getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Suspended vendor susp' }).waitFor();
    expect(await within(1000, async () => (await vendorStatus(secret)) === 403)).toBeLessThan(1000);

    await page.getByRole('button', { name: 'Activate' }).click();
    await status(page).filter({ hasText: 'Activated vendor susp' }).waitFor();
    expect(await within(1000, async () => (await vendorStatus(secret)) === 200)).toBeLessThan(1000);
  });

  it('names the calls of the last hour, summed over every point of every series of GET /v1/traffic, and says they are not known when it fails', async () => {
    await liveVendor('counted');
    const page = await signedIn();
    const answer = {
      source: 'gateway',
      range: '1h',
      stepSeconds: 60,
      from: 0,
      to: 3600,
      series: [
        {
          vendorId: 'counted',
          apiId: 'GETgenders',
          statusClass: '2xx',
          points: [
            [60, 3],
            [120, 4],
          ],
        },
        { vendorId: 'counted', apiId: 'GETgenders', statusClass: '4xx', points: [[60, 5]] },
      ],
    };
    // An answer of several series and classes, as the endpoint's contract gives it.
    let asked = '';
    await page.route('**/v1/traffic?*', (route) => {
      asked = new URL(route.request().url()).search;
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) });
    });
    await openVendor(page, 'counted');
    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await page.getByRole('alertdialog', { name: 'Delete vendor counted?' }).waitFor();
    expect(await dialog(page).textContent()).toContain('12 calls in the last hour.');
    expect(asked).toBe('?vendor=counted&range=1h');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();

    await page.unroute('**/v1/traffic?*');
    await page.route('**/v1/traffic?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: '{"title":"Store unavailable"}' }),
    );
    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await page.getByRole('alertdialog', { name: 'Delete vendor counted?' }).waitFor();
    expect(await dialog(page).textContent()).toContain('Calls in the last hour: not known');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    // Chromium logs the refused read as a console error: the one this test asked for.
    watched.problems.splice(0, watched.problems.length, ...watched.problems.filter((problem) => !problem.includes('status of 503')));

    // The page's own module, as the browser runs it (a string: the test's compiler would turn import() into require).
    const sums = await page.evaluate<Array<number | null>>(
      `import('/ui-kit/calls.js').then(({ callsIn }) => [callsIn({ series: [] }), callsIn({ series: [{ points: [[1, 2], [2, 40]] }, { points: [[1, 1]] }] }), callsIn({ detail: 'Not found' }), callsIn(null), callsIn({ series: [{ points: [[1, 'x']] }] })])`,
    );
    expect(sums).toEqual([0, 43, null, null, null]);
  });

  it('asks before Delete vendor; Confirm deletes it with its keys (refused within 1 s) and shows the Vendors list with the status', async () => {
    const secret = await liveVendor('doomed');
    const page = await signedIn();
    await openVendor(page, 'doomed');

    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await page.getByRole('alertdialog', { name: 'Delete vendor doomed?' }).waitFor();
    const text = (await dialog(page).textContent()) ?? '';
    expect(text).toMatch(/1 active key stops working at once/);
    expect(text).toContain('Its 1 keys and 1 licences are removed for good');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect(await vendorStatus(secret)).toBe(200);
    expect((await adminCall('GET', '/vendors/doomed')).status).toBe(200);

    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vendors' }).waitFor();
    await status(page).filter({ hasText: 'Deleted vendor doomed with its keys and licences.' }).waitFor();
    expect(page.url()).toMatch(/#\/vendors$/);
    expect(await page.getByRole('link', { name: 'doomed', exact: true }).count()).toBe(0);
    expect(await within(1000, async () => (await vendorStatus(secret)) === 401)).toBeLessThan(1000);
    expect((await adminCall('GET', '/vendors/doomed')).status).toBe(404);
  });

  it('asks before revoking a licence and a permission, naming what goes; Cancel keeps the key working, Confirm refuses it', async () => {
    const secret = await liveVendor('lic', 'lic.user');
    const page = await signedIn();
    await openVendor(page, 'lic');

    await page.getByRole('button', { name: 'Revoke licence lic-lic' }).click();
    await page.getByRole('alertdialog', { name: 'Revoke licence GET* of lic?' }).waitFor();
    expect(await dialog(page).textContent()).toMatch(/lic loses \d+ API ids at once .*GETaccounts, /);
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect(await vendorStatus(secret)).toBe(200);

    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Revoke permission perm-lic of lic.user' }).click();
    await page.getByRole('alertdialog', { name: 'Revoke permission GET* of lic.user?' }).waitFor();
    expect(await dialog(page).textContent()).toContain('User lic.user may no longer call');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect(await vendorStatus(secret)).toBe(200);
    await page.getByRole('button', { name: 'Revoke permission perm-lic of lic.user' }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Revoked permission GET* of lic.user.' }).waitFor();
    expect(await within(1000, async () => (await vendorStatus(secret)) === 403)).toBeLessThan(1000);

    await page.getByLabel('User id').fill('lic.user');
    await page.getByLabel('API pattern').fill('GET*');
    await page.getByRole('button', { name: 'Grant permission' }).click();
    await status(page).filter({ hasText: 'Granted permission GET* to lic.user.' }).waitFor();
    expect(await within(1000, async () => (await vendorStatus(secret)) === 200)).toBeLessThan(1000);

    await openVendor(page, 'lic');
    await page.getByRole('button', { name: 'Revoke licence lic-lic' }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Revoked licence GET* of lic.' }).waitFor();
    expect(await within(1000, async () => (await vendorStatus(secret)) === 403)).toBeLessThan(1000);
  });

  it('says each success in role="status", takes a revoked key’s secret off the page, and shows the default rate limit as such', async () => {
    await adminCall('POST', '/vendors', { id: 'fresh', name: 'Fresh Ltd' });
    const page = await signedIn();
    await page.getByRole('link', { name: 'Vendors', exact: true }).click();
    await page.getByRole('row', { name: /fresh/ }).getByRole('cell', { name: '600 per 60 s (gateway default)' }).waitFor();
    await page.getByRole('button', { name: 'New vendor' }).click();
    await page.getByLabel('Vendor id').fill('made-here');
    await page.getByLabel('Name').fill('Made Here');
    await page.getByRole('button', { name: 'Create' }).click();
    await status(page).filter({ hasText: 'Created vendor made-here.' }).waitFor();

    await openVendor(page, 'fresh');
    await page.getByText('Rate limit: 600 per 60 s (gateway default)').waitFor();
    await page.getByLabel('Points').fill('50');
    await page.getByLabel('Window seconds').fill('10');
    await page.getByRole('button', { name: 'Set rate limit' }).click();
    await status(page).filter({ hasText: 'Rate limit of fresh set to 50 per 10 s.' }).waitFor();
    await page.getByText('Rate limit: 50 per 10 s', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Grant licence' }).click();
    await page.getByLabel('API pattern').fill('GET*');
    await page.getByRole('button', { name: 'Grant', exact: true }).click();
    await status(page).filter({ hasText: 'Granted licence GET* to fresh.' }).waitFor();
    expect(await page.getByRole('row', { name: /GET\*/ }).getByRole('cell', { name: 'never' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Issue key' }).click();
    await page.getByLabel('User id').fill('fresh.teller');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await status(page)
      .filter({ hasText: /^Issued key key-\w+ for user fresh\.teller\.$/ })
      .waitFor();
    const secret = ((await page.locator('.secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^cbk_/);
    await adminCall('POST', '/users/fresh.teller/permissions', { api: 'GET*' });
    expect(await vendorStatus(secret)).toBe(200);

    await page.getByRole('button', { name: /^Revoke key/ }).click();
    await page.getByRole('alertdialog', { name: /^Revoke key cbk_/ }).waitFor();
    expect(await dialog(page).textContent()).toContain('of user fresh.teller stops working at once');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect(await page.content()).toContain(secret);
    await page.getByRole('button', { name: /^Revoke key/ }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page)
      .filter({ hasText: /^Revoked key cbk_\w+ of user fresh\.teller: it no longer works\.$/ })
      .waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('.secret').count()).toBe(0);
    expect(await within(1000, async () => (await vendorStatus(secret)) === 401)).toBeLessThan(1000);
  });

  it('asks before an Apply of the access document that removes a user, listing it; Cancel changes nothing, Confirm applies and says so', async () => {
    await adminCall('POST', '/users/leaving.user/permissions', { api: 'GETgenders' });
    const before = await adminCall('GET', '/access');
    const page = await signedIn();
    await page.getByRole('link', { name: 'Access document' }).click();
    await page.getByText(/^Version \d+\.$/).waitFor();
    const next = { ...before.data, users: before.data.users.filter((u: { id: string }) => u.id !== 'leaving.user') };
    // JSON is YAML: the text area takes the document as JSON too.
    await page.getByLabel('Access document (YAML)').fill(JSON.stringify(next, null, 2));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('alertdialog', { name: 'Apply and take away this grant of access?' }).waitFor();
    expect(await dialog(page).getByRole('listitem').allTextContents()).toEqual(['user leaving.user, with all their permissions']);
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect((await adminCall('GET', '/users/leaving.user/permissions')).data).toHaveLength(1);

    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page)
      .filter({ hasText: /^Applied; now version \d+\.$/ })
      .waitFor();
    expect((await adminCall('GET', '/users')).data.map((u: { id: string }) => u.id)).not.toContain('leaving.user');
  });

  it('asks before deleting an admin, revoking their token and re-enrolling them, and says each done', async () => {
    await adminCall('POST', '/admins', { id: 'ui-gone', name: 'Gone Admin', role: 'operator' });
    await adminCall('POST', '/admins', { id: 'ui-kept', name: 'Kept Admin', role: 'viewer' });
    const page = await signedIn();
    await page.getByRole('link', { name: 'Admins' }).click();
    await page.getByRole('button', { name: 'Revoke token of ui-kept' }).click();
    await page.getByRole('alertdialog', { name: 'Revoke the token of ui-kept?' }).waitFor();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Revoked the token of ui-kept.' }).waitFor();
    await page.getByRole('button', { name: 'Re-enrol ui-kept' }).click();
    await page.getByRole('alertdialog', { name: 'Re-enrol ui-kept?' }).waitFor();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Issued a new enrolment code for ui-kept' }).waitFor();
    expect((await page.locator('p.secret').textContent()) ?? '').toMatch(/^cbe_/);

    await page.getByRole('button', { name: 'Delete admin ui-gone' }).click();
    await page.getByRole('alertdialog', { name: 'Delete admin ui-gone?' }).waitFor();
    expect(await dialog(page).textContent()).toContain('Gone Admin (operator) can no longer sign in');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    expect((await adminCall('GET', '/admins')).data.map((a: { id: string }) => a.id)).toContain('ui-gone');
    await page.getByRole('button', { name: 'Delete admin ui-gone' }).click();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Deleted admin ui-gone.' }).waitFor();
    expect((await adminCall('GET', '/admins')).data.map((a: { id: string }) => a.id)).not.toContain('ui-gone');
  });

  it('offers an owner Replace my token on their own row, not Revoke: the new token is shown once and signs in, the old one is refused', async () => {
    const oldToken = await enrolledAdmin('ui-self', 'owner');
    const page = await signedIn({ token: oldToken });
    await page.getByRole('link', { name: 'Admins' }).click();
    await page.getByRole('button', { name: 'Replace my token' }).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke token of ui-self' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Replace my token' }).click();
    await page.getByRole('alertdialog', { name: 'Replace your own token?' }).waitFor();
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await status(page).filter({ hasText: 'Replaced your token' }).waitFor();
    const newToken = ((await page.locator('p.secret').textContent()) ?? '').trim();
    expect(newToken).not.toBe(oldToken);
    expect(await tokenAccepted(newToken)).toBe(200);
    expect(await tokenAccepted(oldToken)).toBe(401);
  });

  it('holds every screen at 420 px wide without the page scrolling sideways', async () => {
    await liveVendor('narrow');
    const page = await signedIn({ width: 420 });
    const overflow: string[] = [];
    const measure = async (screen: string): Promise<void> => {
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 420) overflow.push(`${screen}: ${width}`);
    };
    for (const screen of SCREENS) {
      await page.getByRole('link', { name: screen, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: screen }).waitFor();
      await measure(screen);
    }
    await openVendor(page, 'narrow');
    await page.getByRole('button', { name: 'Issue key' }).click();
    await page.getByLabel('User id').fill('narrow.second');
    await page.getByRole('button', { name: 'Issue', exact: true }).click();
    await page.locator('.secret').waitFor();
    await measure('Vendor');
    const shot = screenshotPath('vendor-420.png');
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await page.getByRole('button', { name: 'Suspend' }).click();
    await dialog(page).waitFor();
    await measure('Vendor, Suspend asked');
    expect(overflow).toEqual([]);
  });

  it('has no serious or critical accessibility violations with a confirmation open (axe-core)', async () => {
    await liveVendor('axed');
    // axe is injected as a script of its own, which the page's CSP would refuse.
    const page = await signedIn({ bypassCSP: true });
    await openVendor(page, 'axed');
    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await dialog(page).waitFor();
    const found = await axeProblems(page, 'Delete vendor asked');
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: /^Revoke key/ }).click();
    await dialog(page).waitFor();
    found.push(...(await axeProblems(page, 'Revoke key asked')));
    expect(found).toEqual([]);
  }, 30_000);
});
