/**
 * `GET /v1/traffic` against a real Prometheus: one gateway counts for itself and is scraped every
 * second by Prometheus; a second gateway has `admin.prometheusUrl` set and answers from it. After
 * known vendor requests, the test waits until Prometheus has scraped past the last of them, then
 * asks both gateways and Prometheus itself at one fixed time: the totals agree exactly, and every
 * point agrees but for requests answered within one scrape interval of its edge.
 *
 * Loopback only; Prometheus and both gateways stop when the tests end.
 */
import http from 'node:http';
import { startTestGateway, SANDBOX_KEYS, type TestGateway } from '../support/gateway';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { freePort } from '../support/free-port';
import { SCRAPE_INTERVAL_SECONDS, startPrometheus, type PrometheusHandle } from '../support/prometheus-server';
import { within } from '../support/within';
import { PrometheusTraffic } from '../../src/metrics/prometheus-traffic';
import { GatewayError } from '../../src/errors/error-catalogue';

jest.setTimeout(120_000);

interface Series {
  vendorId: string;
  apiId: string;
  statusClass: string;
  points: Array<[number, number]>;
}
interface TrafficBody {
  source: string;
  note: string;
  range: string;
  stepSeconds: number;
  from: string;
  to: string;
  series: Series[];
}

async function traffic(gateway: TestGateway, query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/traffic?${query}`, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const keyOf = (s: { vendorId: string; apiId: string; statusClass: string }): string => `${s.vendorId} ${s.apiId} ${s.statusClass}`;
const total = (s: Series): number => s.points.reduce((sum, [, n]) => sum + n, 0);

describe('GET /v1/traffic from a real Prometheus', () => {
  let counting: TestGateway;
  let asking: TestGateway;
  let prometheus: PrometheusHandle;
  /** When each request's answer arrived (unix seconds), by series key. */
  const answered = new Map<string, number[]>();

  async function send(key: string | null, times: number): Promise<void> {
    for (let i = 0; i < times; i += 1) {
      const res = await fetch(`${counting.url}/genders`, { headers: key ? { 'X-Vendor-Token': key } : {} });
      await res.arrayBuffer();
      const vendor = key === SANDBOX_KEYS.demo ? 'demo-vendor' : key ? 'readonly-partner' : 'anonymous';
      const name = `${vendor} GETgenders ${String(res.status)[0]}xx`;
      answered.set(name, [...(answered.get(name) ?? []), Date.now() / 1000]);
    }
  }

  beforeAll(async () => {
    counting = await startTestGateway();
    prometheus = await startPrometheus([`127.0.0.1:${counting.statusPort}`]);
    asking = await startTestGateway({ admin: { prometheusUrl: prometheus.url } });
  });
  afterAll(async () => {
    await Promise.all([asking?.stop(), counting?.stop()]);
    await prometheus?.stop();
  });

  it('agrees with the gateway’s own counts and with Prometheus at one fixed time, within one scrape interval', async () => {
    await send(SANDBOX_KEYS.demo, 5);
    await send(SANDBOX_KEYS.readonlyPartner, 3);
    await new Promise((r) => setTimeout(r, 1500));
    await send(null, 2);
    await send(SANDBOX_KEYS.demo, 4);

    // Prometheus has scraped past the last request once its sum is the gateway's own.
    const exposition = await (await fetch(`${counting.statusUrl}/metrics`)).text();
    const expected = [...exposition.matchAll(/^gateway_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(expected).toBe(14);
    await within(30_000, async () => (await prometheus.query('sum(gateway_requests_total)', Date.now() / 1000))[0]?.value === expected);
    const at = Date.now() / 1000;

    const fromPrometheus = (await traffic(asking, `range=1h&at=${at}`)).body as unknown as TrafficBody;
    const fromGateway = (await traffic(counting, `range=1h&at=${at}`)).body as unknown as TrafficBody;
    expect(fromPrometheus.source).toBe('prometheus');
    expect(fromGateway.source).toBe('gateway');
    expect(fromPrometheus).toMatchObject({ range: '1h', stepSeconds: 60, from: fromGateway.from, to: fromGateway.to });
    expect(fromPrometheus.series.map(keyOf)).toEqual(fromGateway.series.map(keyOf));

    // Prometheus's own numbers at that time, classed: every request, once.
    const instant = await prometheus.query('sum by (vendor, api, status) (gateway_requests_total)', at);
    const classed = new Map<string, number>();
    for (const { metric, value } of instant) {
      const name = `${metric.vendor} ${metric.api} ${String(metric.status)[0]}xx`;
      classed.set(name, (classed.get(name) ?? 0) + value);
    }
    const totals = (body: TrafficBody): Map<string, number> => new Map(body.series.map((s) => [keyOf(s), total(s)]));
    expect(totals(fromPrometheus)).toEqual(classed);
    expect(totals(fromGateway)).toEqual(classed);
    expect(classed.get('demo-vendor GETgenders 2xx')).toBe(9);
    expect(classed.get('anonymous GETgenders 4xx')).toBe(2);

    // Point by point: a request lands in another step only when answered within one scrape of its edge.
    for (const series of fromGateway.series) {
      const other = fromPrometheus.series.find((s) => keyOf(s) === keyOf(series)) as Series;
      let cumGateway = 0;
      let cumPrometheus = 0;
      series.points.forEach(([end, n], i) => {
        cumGateway += n;
        cumPrometheus += other.points[i]?.[1] ?? 0;
        const nearEdge = (answered.get(keyOf(series)) ?? []).filter((t) => t > end - SCRAPE_INTERVAL_SECONDS - 0.5 && t < end + 0.5).length;
        expect(Math.abs(cumGateway - cumPrometheus)).toBeLessThanOrEqual(nearEdge);
      });
    }
  });

  it('answers for one vendor and API id only, in hour steps over 7 days', async () => {
    const { status, body } = await traffic(asking, 'vendor=demo-vendor&api=GETgenders&range=7d');
    expect(status).toBe(200);
    const answer = body as unknown as TrafficBody;
    expect(answer.stepSeconds).toBe(3600);
    expect(answer.series.map(keyOf)).toEqual(['demo-vendor GETgenders 2xx']);
    expect(answer.series[0]?.points).toHaveLength(168);
    expect(total(answer.series[0] as Series)).toBe(9);
  });

  it('refuses a bad range, step, vendor or time with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['range=2h', 'range'],
      ['range=1h&step=7', 'step'],
      ['range=7d&step=60', 'step'],
      ['range=24h&step=5400', 'step'],
      ['vendor=no%20such', 'vendor'],
      ['at=yesterday', 'at'],
    ] as const) {
      const { status, body } = await traffic(asking, query);
      expect([query, status, (body.errors as Array<{ field: string }>)?.[0]?.field]).toEqual([query, 400, field]);
    }
  });

  it('answers 502 naming Prometheus when it cannot be reached', async () => {
    const nowhere = await startTestGateway({ admin: { prometheusUrl: `http://127.0.0.1:${await freePort()}` } });
    try {
      const { status, body } = await traffic(nowhere, 'range=1h');
      expect(status).toBe(502);
      expect(body).toMatchObject({ code: 'bad_gateway' });
      expect(String(body.detail)).toMatch(/Prometheus \(http:\/\/127\.0\.0\.1:\d+\/\) could not be reached/);
    } finally {
      await nowhere.stop();
    }
  });

  it('gives up on a Prometheus that never answers after its timeout, as a 502', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const failure = await new PrometheusTraffic(`http://user:secret@127.0.0.1:${port}`, 300)
        .read({ rangeSeconds: 3600, stepSeconds: 60, atSeconds: Date.now() / 1000 })
        .catch((err: unknown) => err);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(failure).toBeInstanceOf(GatewayError);
      expect((failure as GatewayError).code).toBe('bad_gateway');
      expect((failure as GatewayError).message).toContain('did not answer within 0.3 s');
      expect((failure as GatewayError).message).not.toContain('secret');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
