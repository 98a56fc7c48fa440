/**
 * Audit retention end to end (Redis mode, a real redis-server): the count guard's early trims
 * show on /metrics, trims stop at a signed checkpoint so the kept chain still verifies, and
 * `gatewayctl audit export --since` prints every kept entry as JSON lines, oldest first, ending
 * with a signed checkpoint (the export endpoint is tested in src/access/audit-log.test.ts).
 */
import { runGatewayctl } from '../../src/cli/gatewayctl';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';

describe('audit retention', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix: `audit${process.pid}:`, seedAccessFile: 'never' },
      audit: { maxEntries: 20 },
    });
  });
  afterAll(() => gateway.stop());

  const grant = (i: number) =>
    fetch(`http://127.0.0.1:${gateway.adminPort}/v1/users/auditor/permissions?allowEmpty=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `p${i}`, api: `GETaccounts/${i}` }),
    });

  it('counts entries trimmed before their retention, keeps the chain verifiable, and exports the kept ones as JSON lines, oldest first', async () => {
    const started = new Date().toISOString();
    for (let i = 1; i <= 30; i++) expect((await grant(i)).status).toBe(201);
    // A checkpoint is due every maxEntries/10 entries; let the last one land.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    const trimmed = Number(/^gateway_audit_trimmed_before_retention_total (\d+)$/m.exec(metrics)?.[1]);
    expect(trimmed).toBeGreaterThan(0);
    const verified = (await (
      await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/audit/verify`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })
    ).json()) as { ok: boolean; checked: number };
    expect(verified).toMatchObject({ ok: true });
    expect(verified.checked).toBeLessThanOrEqual(22);

    let stdout = '';
    const code = await runGatewayctl(['audit', 'export', '--since', started], {
      env: { GATEWAY_ADMIN_URL: `http://127.0.0.1:${gateway.adminPort}`, ADMIN_TOKEN: TEST_ADMIN_TOKEN },
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: () => undefined },
    });
    expect(code).toBe(0);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { target: string; action: string });
    // Kept: from a checkpoint on, the newest grants in order, and the checkpoint this export signed.
    expect(lines[0]!.action).toBe('audit.checkpoint');
    expect(lines.at(-1)!.action).toBe('audit.checkpoint');
    const grants = lines.filter((e) => e.action === 'permission.grant').map((e) => e.target);
    const first = 30 - grants.length + 1;
    expect(grants).toEqual(Array.from({ length: grants.length }, (_, i) => `users/auditor/permissions/p${first + i}`));
    expect(grants.length).toBeGreaterThanOrEqual(9);
    expect(new Set(lines.map((e) => e.action))).toEqual(new Set(['permission.grant', 'audit.checkpoint']));
  });
});
