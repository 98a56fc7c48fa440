/**
 * The traffic charts of the admin web UI in a real browser (Debian's Chromium through
 * playwright-core) against a real gateway: after known vendor requests the Overview's chart is
 * drawn by uPlot served from the gateway itself (strict CSP, no CDN), its legend and table give the
 * numbers, switching the range asks the server again, the vendor page offers its API ids, axe-core
 * finds nothing serious or critical, and no console error (a CSP violation is one) appears.
 * Leaves a screenshot at 1280 px in /work/screens/traffic-chart.png when that folder exists.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { chromiumForTests, signInAdmin } from '../support/browser';

jest.setTimeout(90_000);

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const SCREENS_DIR = '/work/screens';

const { watched, newPage } = chromiumForTests();
let gateway: TestGateway;

async function send(key: string | null, times: number): Promise<void> {
  for (let i = 0; i < times; i += 1) {
    const res = await fetch(`${gateway.url}/genders`, { headers: key ? { 'X-Vendor-Token': key } : {} });
    await res.arrayBuffer();
  }
}

async function signedIn(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const page = await newPage({ viewport: { width: 1280, height: 1000 }, ...options });
  await signInAdmin(page, gateway.adminPort, TEST_ADMIN_TOKEN);
  return page;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  await send(SANDBOX_KEYS.demo, 6);
  await send(SANDBOX_KEYS.readonlyPartner, 3);
  await send(null, 2);
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
});

describe('the traffic charts of the admin web UI', () => {
  it('serves uPlot from the gateway with the right types', async () => {
    const script = await fetch(`http://127.0.0.1:${gateway.adminPort}/ui-vendor/uplot.esm.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('export { uPlot as default }');
    const style = await fetch(`http://127.0.0.1:${gateway.adminPort}/ui-vendor/uplot.min.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('draws requests over time on the Overview, says who counted them, and asks the server again for another range', async () => {
    const page = await signedIn();
    const chart = page.locator('section.traffic');
    await chart.locator('canvas[role="img"]').waitFor();
    await expect(chart.getByRole('heading', { name: 'Requests per minute, last hour' }).isVisible()).resolves.toBe(true);
    await expect(chart.locator('.traffic-source').textContent()).resolves.toMatch(/^Counted by the gateway: .*this instance only/);
    const legend = await chart.locator('.traffic-legend').innerText();
    expect(legend).toContain('2xx success (solid line, filled dots): 9 requests');
    expect(legend).toContain('4xx client error (dashed line, hollow dots): 2 requests');
    await expect(chart.locator('canvas[role="img"]').getAttribute('aria-label')).resolves.toBe('Requests per minute, last hour: 2xx 9, 4xx 2.');
    await chart.getByText('Table of these numbers').click();
    const cells = await chart.getByRole('table').locator('tbody td').allInnerTexts();
    expect(
      cells
        .slice(1)
        .map(Number)
        .reduce((a, b) => a + b, 0),
    ).toBe(11);
    if (existsSync(SCREENS_DIR)) await chart.screenshot({ path: `${SCREENS_DIR}/traffic-chart.png` });

    const asked = page.waitForRequest((req) => req.url().includes('/v1/traffic?range=24h'));
    await chart.getByLabel('Time range').selectOption({ label: 'Last 24 hours' });
    await asked;
    await chart.getByRole('heading', { name: 'Requests per 5 minutes, last 24 hours' }).waitFor();
    const week = page.waitForRequest((req) => req.url().includes('/v1/traffic?range=7d'));
    await chart.getByLabel('Time range').selectOption({ label: 'Last 7 days' });
    await week;
    await chart.getByRole('heading', { name: 'Requests per hour, last 7 days' }).waitFor();
    await expect(chart.locator('.traffic-legend').innerText()).resolves.toContain('2xx success (solid line, filled dots): 9 requests');
    expect(watched.problems).toEqual([]);
  });

  it('shows a vendor’s own traffic on its page, per API id', async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Vendors', exact: true }).click();
    await page.getByRole('link', { name: 'demo-vendor' }).click();
    const chart = page.locator('section.traffic');
    await chart.locator('canvas[role="img"]').waitFor();
    await expect(chart.locator('.traffic-legend').innerText()).resolves.toContain('2xx success (solid line, filled dots): 6 requests');
    const asked = page.waitForRequest((req) => req.url().includes('vendor=demo-vendor') && req.url().includes('api=GETgenders'));
    await chart.getByLabel('API id').selectOption('GETgenders');
    await asked;
    await expect(chart.locator('.traffic-legend').innerText()).resolves.toContain('6 requests');
    if (existsSync(SCREENS_DIR)) await page.screenshot({ path: `${SCREENS_DIR}/traffic-chart-vendor.png`, fullPage: true });
    expect(watched.problems).toEqual([]);
  });

  it('has no serious or critical accessibility violations with the charts shown (axe-core)', async () => {
    // axe is injected as a script of its own, which the page's CSP would refuse: this context
    // bypasses the CSP for the check only.
    const page = await signedIn({ bypassCSP: true });
    const check = async (screen: string): Promise<string[]> => {
      await page.locator('section.traffic canvas[role="img"]').waitFor();
      await page.getByText('Table of these numbers').click();
      await page.addScriptTag({ path: AXE_SCRIPT });
      const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
      return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${screen}: ${v.id}`);
    };
    const found = await check('Overview');
    await page.getByRole('link', { name: 'Vendors', exact: true }).click();
    await page.getByRole('link', { name: 'demo-vendor' }).click();
    found.push(...(await check('Vendor')));
    expect(found).toEqual([]);
  });
});
