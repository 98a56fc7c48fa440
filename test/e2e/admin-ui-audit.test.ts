/**
 * The admin web UI's Audit log in a real browser (Debian's Chromium, driven by playwright-core)
 * against a real gateway: the Vendor filter finds a vendor's key revocations and its users'
 * permission grants (resolved to the vendor when they were written) and nothing of a vendor whose
 * id only starts the same; actor, action and dates are asked of the server (the request's query
 * says so); Older entries follows the log past the first page; the before/after is a structural
 * diff, side by side, removed and added fields marked; axe finds nothing serious or critical; no
 * console error or request off loopback.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { chromiumForTests, signInAdmin } from '../support/browser';

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const SCREENS_DIR = process.env.SCREENS_DIR ?? '/work/screens';
const THUMBPRINT = 'A'.repeat(43);

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  await admin('POST', 'vendors', { id: 'acme', name: 'Acme' });
  await admin('POST', 'vendors', { id: 'acme-corp', name: 'Acme Corp' });
  await admin('POST', 'vendors/acme/keys', { id: 'k-acme', userId: 'teller', certificateThumbprints: [THUMBPRINT] });
  await admin('POST', 'vendors/acme-corp/keys', { id: 'k-corp', userId: 'clerk' });
  await admin('POST', 'users/teller/permissions', { id: 'p-teller', api: 'GET*' });
  await admin('POST', 'users/clerk/permissions', { id: 'p-clerk', api: 'GET*' });
  // One field removed (the certificate binding), one added (an expiry): the diff's two sides.
  await admin('PATCH', 'keys/k-acme', { certificateThumbprints: [], expiresAt: '2099-01-01T00:00:00.000Z' });
  await admin('DELETE', 'keys/k-acme');
  await admin('DELETE', 'keys/k-corp');
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
});

async function auditPage(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const page = await newPage({ viewport: { width: 1280, height: 900 }, ...options });
  await signInAdmin(page, gateway.adminPort, TEST_ADMIN_TOKEN);
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
  await page.getByRole('status').filter({ hasText: /shown/ }).waitFor();
  return page;
}

/** Fills a filter field and waits for the server request it makes; the request's query. */
async function filter(page: Page, label: string, value: string): Promise<URLSearchParams> {
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.url().includes('/v1/audit?') && new URL(r.url()).searchParams.has(queryName(label))),
    page.getByLabel(label, { exact: true }).fill(value),
  ]);
  const query = new URL(request.url()).searchParams;
  await page.waitForResponse((r) => r.url() === request.url());
  return query;
}

const queryName = (label: string): string =>
  ({ Actor: 'actor', Vendor: 'vendor', Action: 'action', 'From date': 'since', 'To date': 'until' })[label] as string;

const actionsShown = async (page: Page): Promise<string[]> => page.locator('tbody tr td:nth-child(3)').allTextContents();
const targetsShown = async (page: Page): Promise<string[]> => page.locator('tbody tr td:nth-child(4)').allTextContents();

describe('the audit log screen', () => {
  it('shows a vendor’s key revocations and its users’ permission grants under Vendor, and nothing of a vendor whose id starts the same', async () => {
    const page = await auditPage();
    const query = await filter(page, 'Vendor', 'acme');
    expect(query.get('vendor')).toBe('acme');
    await page.getByRole('cell', { name: 'key.revoke', exact: true }).waitFor();
    const actions = await actionsShown(page);
    expect(actions).toEqual(expect.arrayContaining(['key.revoke', 'permission.grant', 'key.update', 'key.issue', 'vendor.create']));
    const targets = await targetsShown(page);
    expect(targets).toEqual(expect.arrayContaining(['keys/k-acme', 'users/teller/permissions/p-teller']));
    expect(targets.filter((t) => /acme-corp|k-corp|clerk/.test(t))).toEqual([]);
    expect(watched.problems).toEqual([]);
  });

  it('asks the server for actor, action and dates (the request carries them) and shows what it answers', async () => {
    const page = await auditPage();
    expect((await filter(page, 'Actor', 'admin:bootstrap')).get('actor')).toBe('admin:bootstrap');
    const byAction = await filter(page, 'Action', 'key.revoke');
    expect([byAction.get('actor'), byAction.get('action')]).toEqual(['admin:bootstrap', 'key.revoke']);
    await page.locator('tbody tr').first().waitFor();
    expect(new Set(await actionsShown(page))).toEqual(new Set(['key.revoke']));
    const today = new Date().toISOString().slice(0, 10);
    expect((await filter(page, 'From date', today)).get('since')).toBe(today);
    expect((await filter(page, 'To date', today)).get('until')).toBe(today);
    expect(await actionsShown(page)).toHaveLength(2);
    await filter(page, 'From date', '2000-01-01');
    await filter(page, 'To date', '2001-01-01');
    await page.getByRole('status').filter({ hasText: '0 entries shown; no older entries match.' }).waitFor();
    expect(await actionsShown(page)).toEqual([]);
    expect(watched.problems).toEqual([]);
  });

  it('reaches entries beyond the first page with Older entries', async () => {
    await admin('POST', 'vendors', { id: 'pager', name: 'Pager' });
    for (let i = 1; i <= 60; i++) await admin('PUT', 'vendors/pager/rate-limit', { points: 100 + i, durationSeconds: 60 });
    const page = await auditPage();
    await filter(page, 'Vendor', 'pager');
    await page.getByRole('status').filter({ hasText: '50 entries shown; Older entries reads further back.' }).waitFor();
    expect(await actionsShown(page)).not.toContain('vendor.create');
    const [request] = await Promise.all([page.waitForRequest((r) => r.url().includes('before=')), page.getByRole('button', { name: 'Older entries' }).click()]);
    expect(new URL(request.url()).searchParams.get('vendor')).toBe('pager');
    await page.getByRole('status').filter({ hasText: '61 entries shown; no older entries match.' }).waitFor();
    expect((await actionsShown(page)).at(-1)).toBe('vendor.create');
    expect(await page.getByRole('button', { name: 'Older entries' }).isHidden()).toBe(true);
    expect(watched.problems).toEqual([]);
  });

  it('shows before and after side by side with the removed and the added field marked, and lists the changes by path', async () => {
    const page = await auditPage();
    await filter(page, 'Action', 'key.update');
    const entry = page.locator('tbody tr').filter({ hasText: 'keys/k-acme' });
    await entry.getByText('Before → after').click();
    const before = entry.locator('figure').filter({ hasText: 'Before' });
    const after = entry.locator('figure').filter({ hasText: 'After' });
    await before.waitFor();
    expect(await before.locator('.d-removed').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^removed: − +"certificateThumbprints": \[/)]),
    );
    expect(await after.locator('.d-added').allTextContents()).toEqual([expect.stringMatching(/^added: \+ +"expiresAt": "2099-01-01T00:00:00.000Z",?$/)]);
    expect(await after.locator('.d-removed').count()).toBe(0);
    expect(await before.locator('.d-added').count()).toBe(0);
    // Side by side: the two panes share a row.
    const [b, a] = [await before.boundingBox(), await after.boundingBox()];
    expect(b && a && Math.abs(b.y - a.y) < 2 && a.x > b.x + b.width - 1).toBe(true);
    const changes = await entry.locator('.diff-changes li').allTextContents();
    expect(changes).toEqual(expect.arrayContaining(['certificateThumbprints removed: ["' + THUMBPRINT + '"]', 'expiresAt added: "2099-01-01T00:00:00.000Z"']));
    mkdirSync(SCREENS_DIR, { recursive: true });
    await entry.screenshot({ path: `${SCREENS_DIR}/audit-diff.png` });
    expect(watched.problems).toEqual([]);
  });

  it('has no serious or critical accessibility violations, filtered and with a diff open (axe-core)', async () => {
    // axe is injected as a script of its own, which the page's CSP would refuse: this context
    // bypasses the CSP for the check only.
    const page = await auditPage({ bypassCSP: true });
    await filter(page, 'Vendor', 'acme');
    await page.locator('tbody tr').filter({ hasText: 'keys/k-acme' }).filter({ hasText: 'key.update' }).getByText('Before → after').click();
    await page.locator('.structural-diff').waitFor();
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  }, 30_000);
});
