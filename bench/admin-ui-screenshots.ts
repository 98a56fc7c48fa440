/**
 * `npm run docs:screenshots`: the pictures of the admin web UI in docs/admin-guide.md, taken by
 * the same real browser the tests use (Debian's Chromium via playwright-core) from a sandbox
 * gateway with some history: a vendor with a licence and a key, a permission, a pending change
 * awaiting approval.
 * Writes docs/admin-ui-<screen>.png; run it after a change to the UI so the pictures stay current.
 *
 * Starts its own gateway on loopback ports and stops it; nothing leaves loopback.
 */
import path from 'node:path';
import { loadConfig } from '../src/config/config';
import { startGateway } from '../src/gateway';
import { createLogger } from '../src/logging/logger';
import { launchChromium } from '../test/support/browser';

const TOKEN = 'screenshots-admin-token-0123456789';
const DOCS = path.join(__dirname, '..', 'docs');

async function main(): Promise<void> {
  const config = loadConfig({
    env: {},
    overrides: { server: { port: 0, adminPort: 0, statusPort: 0 }, sandbox: { port: 0 }, admin: { token: TOKEN, approvals: 'required' } },
  });
  const gateway = await startGateway(config, createLogger('silent'));
  const admin = `http://127.0.0.1:${gateway.adminPort}`;
  const call = async (token: string, method: string, route: string, body?: unknown): Promise<{ id?: string; token?: string }> => {
    const res = await fetch(`${admin}/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 400) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
    return res.status === 204 ? {} : ((await res.json()) as { id?: string; token?: string });
  };
  // An owner gets an enrolment code, never a token: each new admin redeems theirs.
  const enrolled = async (id: string, name: string, role: string): Promise<string> => {
    const { enrolmentCode } = (await call(TOKEN, 'POST', '/admins', { id, name, role })) as { enrolmentCode?: string };
    const res = await fetch(`${admin}/v1/admins/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enrolmentCode }),
    });
    if (!res.ok) throw new Error(`enrolling ${id} answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  const operator = await enrolled('otto', 'Otto Operator', 'operator');
  const approver = await enrolled('anna', 'Anna Approver', 'approver');
  // Approvals are on: the owner's writes wait for Anna too, like everyone's.
  const approved = async (filed: Promise<{ id?: string }>): Promise<void> => {
    await call(approver, 'POST', `/changes/${(await filed).id}/approve`);
  };
  await approved(
    call(TOKEN, 'POST', '/vendors', { id: 'acme', name: 'Acme Payments', rateLimit: { points: 1200, durationSeconds: 60 }, licences: [{ api: 'GET*' }] }),
  );
  await approved(call(operator, 'POST', '/users/acme.teller/permissions', { api: 'GETaccounts*' }));
  await approved(call(operator, 'POST', '/vendors/acme/keys', { userId: 'acme.teller' }));
  // Left waiting, for the Approvals screen.
  await call(operator, 'POST', '/vendors/acme/licences', { api: 'POSTapi/transaction/*' });
  await fetch(`http://127.0.0.1:${gateway.vendorPort}/genders`, { headers: { 'X-Vendor-Token': 'cbk_5fd3cTg5ExVdUlVXmWrKUMJpvMzzJga5_3Ux21d' } });

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(`${admin}/`);
    await page.screenshot({ path: path.join(DOCS, 'admin-ui-sign-in.png') });
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const shots: Array<[string, string, string?]> = [
      ['overview', 'Overview'],
      ['vendors', 'Vendors'],
      ['vendor', 'Vendors', 'acme'],
      ['users', 'Users'],
      ['access-document', 'Access document'],
      ['audit-log', 'Audit log'],
      ['approvals', 'Approvals'],
      ['admins', 'Admins'],
    ];
    for (const [file, link, vendor] of shots) {
      await page.getByRole('link', { name: link, exact: true }).click();
      if (vendor) await page.getByRole('link', { name: vendor, exact: true }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(DOCS, `admin-ui-${file}.png`) });
    }
  } finally {
    await browser.close();
    await gateway.stop();
  }
  console.log(`screenshots written to ${DOCS}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
