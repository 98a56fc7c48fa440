/**
 * The Audit log screen's **Verify audit chain** in a real browser (Debian's Chromium, driven by
 * playwright-core) against a real gateway on a real redis-server: an intact chain is said so in
 * a status line; an entry deleted from the stream in Redis is named in an alert. axe-core finds
 * no serious or critical violation with either outcome on screen, and no console error shows.
 */
import { createRequire } from 'node:module';
import Redis from 'ioredis';
import type { Page } from 'playwright-core';
import { chromiumForTests, signInAdmin } from '../support/browser';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';

const AXE_SCRIPT = createRequire(__filename).resolve('axe-core/axe.min.js');
const SCREENS_DIR = process.env.CBG_SCREENS_DIR;

describe('the admin web UI, Verify audit chain', () => {
  const keyPrefix = `uiverify${process.pid}:`;
  const stream = `${keyPrefix}{access}:audit`;
  const { watched, newPage } = chromiumForTests();
  let gateway: TestGateway;
  let redis: Redis;

  beforeAll(async () => {
    gateway = await startTestGateway({ redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix, seedAccessFile: 'never' } });
    redis = new Redis(process.env.TEST_REDIS_URL as string);
    for (let i = 1; i <= 3; i++) {
      const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/users/auditor/permissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: `p${i}`, api: 'GETgenders' }),
      });
      expect(res.status).toBe(201);
    }
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
    await redis?.quit();
  });

  async function axeFindings(page: Page, label: string): Promise<string[]> {
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate<Array<{ id: string; impact: string }>>('axe.run().then((result) => result.violations)');
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${label}: ${v.id}`);
  }

  it('says an intact chain is intact in a status line, and names an entry deleted in Redis in an alert', async () => {
    // axe is injected as a script of its own, which the page's CSP would refuse: this context bypasses the CSP for the check only.
    const page = await newPage({ bypassCSP: true });
    await signInAdmin(page, gateway.adminPort, TEST_ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();

    await page.getByRole('button', { name: 'Verify audit chain' }).click();
    const status = page.getByRole('status').filter({ hasText: 'Audit chain intact' });
    await status.waitFor();
    expect(await status.textContent()).toMatch(/^Audit chain intact: \d+ entries checked, \d+ signed checkpoints; head [0-9a-f]{16}…$/);
    const found = await axeFindings(page, 'intact');
    if (SCREENS_DIR) await page.screenshot({ path: `${SCREENS_DIR}/audit-verify-intact.png`, fullPage: true });

    const [, second] = (await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>;
    const [, third] = (await redis.xrange(stream, '-', '+')).slice(1) as Array<[string, string[]]>;
    await redis.xdel(stream, second![0]);
    await page.getByRole('button', { name: 'Verify audit chain' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Audit chain broken' });
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      `Audit chain broken at entry ${third![0]}: its prevHash is not the hash of the entry before it: an entry before it was removed, inserted or moved`,
    );
    expect(await page.getByRole('status').filter({ hasText: 'intact' }).count()).toBe(0);
    found.push(...(await axeFindings(page, 'broken')));
    if (SCREENS_DIR) await page.screenshot({ path: `${SCREENS_DIR}/audit-verify-broken.png`, fullPage: true });
    expect(found).toEqual([]);
    expect(watched.problems).toEqual([]);
  }, 60_000);
});
