/**
 * The vendor page's Portal users in a real browser (Debian's Chromium, driven by playwright-core)
 * against a real gateway: an admin invites a vendor's developer, sees the `cbp_` token once with
 * where the portal is, and it signs in to the portal; after a reload the token is gone from the
 * page; **New token** (asking first) shows a new one and the old one no longer signs in;
 * **Remove** (asking first) takes the user and the token off. With approvals required (on Redis),
 * an invitation is filed for approval and the approver is shown the token. axe-core finds no
 * serious or critical violation with the token on screen, and no console error shows.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { chromiumForTests, signInAdmin } from '../support/browser';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const SCREENS_DIR = process.env.CBG_SCREENS_DIR;
const PORTAL_TOKEN = /^cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/;

const { watched, newPage } = chromiumForTests();

async function signedIn(gateway: TestGateway, token: string, options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const page = await newPage(options);
  await signInAdmin(page, gateway.adminPort, token);
  return page;
}

async function openVendor(page: Page, vendorId: string): Promise<void> {
  await page.getByRole('link', { name: 'Vendors', exact: true }).click();
  await page.getByRole('link', { name: vendorId }).click();
  await page.getByRole('heading', { level: 2, name: 'Portal users' }).waitFor();
}

async function invite(page: Page, email: string, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Invite portal user' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
}

const shownToken = async (page: Page): Promise<string> => ((await page.locator('p.secret').textContent()) ?? '').trim();

/** The status of signing in to the vendor portal's API with a portal token. */
async function portalSignIn(gateway: TestGateway, token: string): Promise<number> {
  const res = await fetch(`${gateway.url}/portal/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-requested-by': 'cbg-portal-ui' },
    body: JSON.stringify({ token }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function axeFindings(page: Page, label: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${label}: ${v.id}`);
}

describe('the admin web UI, Portal users', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('invites a portal user and shows the token once, gone after a reload; New token replaces it; Remove takes the user off', async () => {
    // axe is injected as a script of its own, which the page's CSP would refuse: this context bypasses the CSP for the check only.
    const page = await signedIn(gateway, TEST_ADMIN_TOKEN, { bypassCSP: true });
    await openVendor(page, 'demo-vendor');
    await invite(page, 'dana@demo.example', 'Dana Dev');
    await page.getByRole('status').filter({ hasText: 'Invited Dana Dev <dana@demo.example> to the vendor portal of demo-vendor.' }).waitFor();
    const token = await shownToken(page);
    expect(token).toMatch(PORTAL_TOKEN);
    await page.getByText(/The portal token of Dana Dev <dana@demo\.example>, shown this once/).waitFor();
    await page
      .getByText(/at the vendor port’s \/portal\//)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Copy portal token' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'dana@demo.example' });
    await row.getByRole('cell', { name: token.slice(0, 12), exact: true }).waitFor();
    expect(await portalSignIn(gateway, token)).toBe(200);
    const found = await axeFindings(page, 'token shown');
    if (SCREENS_DIR) await page.screenshot({ path: `${SCREENS_DIR}/admin-ui-portal-users.png`, fullPage: true });

    // Suspending or deleting the vendor names its portal users among what it loses.
    await page.getByRole('button', { name: 'Delete vendor' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete vendor demo-vendor?' })
      .getByText(/licences and 1 portal users are removed for good/)
      .waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Shown once: after a reload only the prefix is on the page.
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Portal users' }).waitFor();
    await row.getByRole('cell', { name: token.slice(0, 12), exact: true }).waitFor();
    expect(await page.locator('p.secret').count()).toBe(0);
    expect(await page.content()).not.toContain(token);

    await page.getByRole('button', { name: 'New token for dana@demo.example' }).click();
    const question = page.getByRole('alertdialog', { name: 'Issue a new portal token for Dana Dev?' });
    await question.getByText(`The token ${token.slice(0, 12)}… of Dana Dev <dana@demo.example> stops signing in`).waitFor();
    await question.getByRole('button', { name: 'Confirm' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Issued a new portal token for Dana Dev/ })
      .waitFor();
    const next = await shownToken(page);
    expect(next).toMatch(PORTAL_TOKEN);
    expect(next).not.toBe(token);
    await row.getByRole('cell', { name: next.slice(0, 12), exact: true }).waitFor();
    expect(await portalSignIn(gateway, token)).toBe(401);
    expect(await portalSignIn(gateway, next)).toBe(200);

    await page.getByRole('button', { name: 'Remove portal user dana@demo.example' }).click();
    // Cancel leaves everything as it was.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.count()).toBe(1);
    await page.getByRole('button', { name: 'Remove portal user dana@demo.example' }).click();
    await page.getByRole('alertdialog', { name: 'Remove portal user Dana Dev?' }).getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed portal user Dana Dev <dana@demo.example>' }).waitFor();
    expect(await row.count()).toBe(0);
    // The removed user's token has no business on the page any more.
    expect(await page.locator('p.secret').count()).toBe(0);
    expect(await portalSignIn(gateway, next)).toBe(401);

    await page.getByRole('link', { name: 'Audit log' }).click();
    for (const action of ['portal_user.invite', 'portal_user.token', 'portal_user.remove']) {
      await page.getByRole('cell', { name: action, exact: true }).first().waitFor();
    }
    expect(await page.content()).not.toContain(next);
    expect(found).toEqual([]);
    expect(watched.problems).toEqual([]);
  }, 60_000);

  it('names the refused field in an alert, and lists nothing', async () => {
    const page = await signedIn(gateway, TEST_ADMIN_TOKEN);
    await openVendor(page, 'readonly-partner');
    // The browser's own check would stop a malformed address before the API sees it; a name of 201 characters it lets through.
    await invite(page, 'long@partner.example', 'n'.repeat(201));
    await page.getByRole('alert').filter({ hasText: /name/ }).waitFor();
    expect(await page.locator('p.secret').count()).toBe(0);
    expect(await page.getByRole('row').filter({ hasText: 'long@partner.example' }).count()).toBe(0);
    expect(watched.problems.filter((problem) => !problem.includes('400'))).toEqual([]);
    watched.problems.splice(0);
  });
});

describe('the admin web UI, Portal users under four eyes on Redis', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      // As in admin-ui.test.ts: the UI's flow is the point, not Redis's speed on two shared cores.
      redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix: `uipu${process.pid}:`, seedAccessFile: 'always', commandTimeoutMs: 2000 },
      admin: { approvals: 'required' },
    });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  async function enrolledAdmin(id: string, role: string): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/admins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id, name: id, role }),
    });
    const { enrolmentCode } = (await res.json()) as { enrolmentCode: string };
    const enrolled = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/admins/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enrolmentCode }),
    });
    return ((await enrolled.json()) as { token: string }).token;
  }

  it('files an operator’s invitation for approval, and shows the approver the token once', async () => {
    const operator = await signedIn(gateway, await enrolledAdmin('pu-otto', 'operator'));
    await openVendor(operator, 'demo-vendor');
    await invite(operator, 'filed@demo.example', 'Filed Dev');
    await operator
      .getByRole('status')
      .filter({ hasText: /^Filed for approval as change chg-/ })
      .waitFor();
    expect(await operator.locator('p.secret').count()).toBe(0);
    expect(await operator.getByRole('row').filter({ hasText: 'filed@demo.example' }).count()).toBe(0);

    const approver = await signedIn(gateway, await enrolledAdmin('pu-anna', 'approver'));
    await approver.getByRole('link', { name: 'Approvals' }).click();
    await approver.getByRole('button', { name: /^Approve chg-/ }).click();
    const approved = approver.getByRole('status').filter({ hasText: /The portal token, shown this once: cbp_/ });
    await approved.waitFor();
    const token = /(cbp_\S+?) /.exec((await approved.textContent()) ?? '')?.[1] as string;
    expect(token).toMatch(PORTAL_TOKEN);
    expect(await portalSignIn(gateway, token)).toBe(200);

    await openVendor(operator, 'demo-vendor');
    await operator
      .getByRole('row')
      .filter({ hasText: 'filed@demo.example' })
      .getByRole('cell', { name: token.slice(0, 12), exact: true })
      .waitFor();
    // Removing takes access away: it applies at once, under four eyes too.
    await operator.getByRole('button', { name: 'Remove portal user filed@demo.example' }).click();
    await operator.getByRole('button', { name: 'Confirm' }).click();
    await operator.getByRole('status').filter({ hasText: 'Removed portal user Filed Dev' }).waitFor();
    expect(await portalSignIn(gateway, token)).toBe(401);
    expect(watched.problems).toEqual([]);
  }, 60_000);
});
