/**
 * Audit retention end to end (Redis mode, a real redis-server): the count guard's early trims
 * show on /metrics, and `gatewayctl audit export --since` prints every kept entry as JSON lines,
 * oldest first (paging through the admin API is tested in src/admin/audit.test.ts).
 */
import { runGatewayctl } from '../../src/cli/gatewayctl';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { startTestGateway, type TestGateway } from '../support/gateway';

describe('audit retention', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      redis: { url: process.env.TEST_REDIS_URL as string, keyPrefix: `audit${process.pid}:`, seedAccessFile: 'never' },
      audit: { maxEntries: 10 },
    });
  });
  afterAll(() => gateway.stop());

  const grant = (i: number) =>
    fetch(`http://127.0.0.1:${gateway.adminPort}/v1/users/auditor/permissions?allowEmpty=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `p${i}`, api: `GETaccounts/${i}` }),
    });

  it('counts entries trimmed before their retention and exports the kept ones as JSON lines, oldest first', async () => {
    const started = new Date().toISOString();
    for (let i = 1; i <= 12; i++) expect((await grant(i)).status).toBe(201);

    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_audit_trimmed_before_retention_total 2$/m);

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
    expect(lines.map((e) => e.target)).toEqual(Array.from({ length: 10 }, (_, i) => `users/auditor/permissions/p${i + 3}`));
    expect(new Set(lines.map((e) => e.action))).toEqual(new Set(['permission.grant']));
  });
});
