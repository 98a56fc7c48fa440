/**
 * The ops/ artefacts against the real tools and the real exposition: the alert rules pass
 * `promtool check rules` and their unit tests (`promtool test rules`); every dashboard query is
 * valid PromQL (checked by promtool as a recording rule); every metric the dashboard and the
 * alerts name is one a running gateway exposes; the dashboard covers what an SRE needs.
 *
 * promtool comes from Debian's `prometheus` package (.ci/run installs it when missing).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { startTestGateway } from '../support/gateway';
import { testTempDir } from '../support/temp-dir';

const OPS = path.resolve(__dirname, '../../ops');
const ALERTS = path.join(OPS, 'prometheus/alerts.yaml');
const ALERT_TESTS = path.join(OPS, 'prometheus/alerts.test.yaml');
const DASHBOARD = path.join(OPS, 'grafana/core-banking-gateway.json');

interface Panel {
  readonly type: string;
  readonly title: string;
  readonly targets?: ReadonlyArray<{ readonly expr: string }>;
}

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { encoding: 'utf8' });
  if (result.error) throw new Error(`promtool is not installed (apt-get install prometheus): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Panel[] };
const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
const alertRules = (parse(readFileSync(ALERTS, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((g) => g.rules);

/** Metric names a PromQL expression reads (histogram series mapped to their metric). */
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(?:gateway|nodejs|process)_[a-z0-9_]+\b/g) ?? [];
  return names.map((name) => name.replace(/_(bucket|count|sum)$/, ''));
}

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', ALERTS);
    expect(output).toContain('SUCCESS: 13 rules found');
    expect(status).toBe(0);
  });

  it('pass their unit tests (promtool test rules)', () => {
    const { status, output } = promtool('test', 'rules', ALERT_TESTS);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('cover an instance down, error ratio, p99 latency, breaker open, Redis down, Redis data loss, an evicting Redis, certificate expiry, config stale, an inconsistent access store, rate-limit spikes, audit entries trimmed early and a break-glass use of the bootstrap token', () => {
    expect(alertRules.map((rule) => rule.alert)).toEqual([
      'GatewayInstanceDown',
      'GatewayHighErrorRatio',
      'GatewayHighLatencyP99',
      'GatewayCircuitOpen',
      'GatewayRedisDown',
      'GatewayRedisDataLost',
      'GatewayRedisEvicting',
      'GatewayCertificateExpiresSoon',
      'GatewayAccessConfigStale',
      'GatewayAccessConfigInconsistent',
      'GatewayRateLimitSpike',
      'GatewayAuditTrimmedEarly',
      'GatewayAdminBreakGlassUsed',
    ]);
  });
});

describe('Grafana dashboard', () => {
  it('has only valid PromQL (with Grafana variables filled in)', () => {
    const rules = queries.map((query, i) => ({
      record: `dashboard:query_${i}`,
      expr: query.expr.replaceAll('$__rate_interval', '5m').replaceAll('$job', '.+'),
    }));
    const dir = testTempDir('cbg-dashboard-');
    const file = path.join(dir, 'queries.yaml');
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
    const { status, output } = promtool('check', 'rules', file);
    expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(status).toBe(0);
  });

  it('shows traffic, error ratio and p50/p99 per API id, upstream latency per group, breakers, 429s, auth failures, Redis and config age', () => {
    const panelReading = (metric: string, ...parts: string[]): string[] =>
      queries.filter((q) => q.expr.includes(metric) && parts.every((p) => q.expr.includes(p))).map((q) => q.panel);
    expect(panelReading('gateway_requests_total', 'by (api)', 'rate(')).toEqual(
      expect.arrayContaining(['Request rate by API id', 'Error ratio (5xx) by API id']),
    );
    expect(panelReading('gateway_request_duration_seconds_bucket', 'histogram_quantile(0.5,', 'by (api, le)')).toHaveLength(1);
    expect(panelReading('gateway_request_duration_seconds_bucket', 'histogram_quantile(0.99,', 'by (api, le)')).toHaveLength(1);
    expect(panelReading('gateway_upstream_duration_seconds_bucket', 'by (group, le)')).toHaveLength(2);
    expect(panelReading('gateway_circuit_state', 'by (group)')).toHaveLength(1);
    expect(panelReading('gateway_rate_limited_total', 'by (vendor)')).toHaveLength(1);
    expect(panelReading('gateway_auth_failures_total', 'by (reason)')).toHaveLength(1);
    expect(panelReading('gateway_redis_up')).toHaveLength(1);
    expect(panelReading('gateway_access_config_age_seconds')).toHaveLength(1);
  });

  it('shows 0, not "No data", in its 5xx panels when the gateway answered no 5xx', () => {
    const healthy = (api: string): { series: string; values: string } => ({
      series: `gateway_requests_total{job="gw",instance="a",api="${api}",status="200",vendor="acme"}`,
      values: '0+60x10',
    });
    const zeros = (label: string, ...values: string[]) => values.map((value) => ({ labels: `{${label}="${value}"}`, value: 0 }));
    const expected: Record<string, ReturnType<typeof zeros>> = {
      'Error ratio (5xx) by API id': zeros('api', 'GETbanks', 'GETgenders'),
      'Core failures seen by vendors': zeros('status', '502', '503', '504'),
    };
    const fiveXx = queries.filter((q) => /status=~"(5\.\.|502)/.test(q.expr));
    expect(fiveXx.map((q) => q.panel).sort()).toEqual(Object.keys(expected).sort());
    const dir = testTempDir('cbg-dashboard-zero-');
    const file = path.join(dir, 'zero.test.yaml');
    writeFileSync(
      file,
      stringify({
        rule_files: [],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: [healthy('GETbanks'), healthy('GETgenders')],
            promql_expr_test: fiveXx.map((q) => ({
              expr: q.expr.replaceAll('$__rate_interval', '5m').replaceAll('$job', '.+'),
              eval_time: '10m',
              exp_samples: expected[q.panel],
            })),
          },
        ],
      }),
    );
    const { status, output } = promtool('test', 'rules', file);
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
  });

  it('asks for its Prometheus data source on import', () => {
    expect(readFileSync(DASHBOARD, 'utf8')).toContain('"name": "DS_PROMETHEUS"');
    expect(dashboard.uid).toBe('core-banking-gateway');
  });
});

describe('metric names in ops/', () => {
  it('are all exposed by a running gateway', async () => {
    const gateway = await startTestGateway();
    try {
      const exposition = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
      const exposed = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const named = new Set([...queries.map((q) => q.expr), ...alertRules.map((r) => r.expr)].flatMap(metricNames));
      expect([...named].filter((name) => !exposed.has(name))).toEqual([]);
    } finally {
      await gateway.stop();
    }
  });
});
