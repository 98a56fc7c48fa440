/**
 * Traffic over time from the SREs' Prometheus (`admin.prometheusUrl`): the source of
 * `GET /v1/traffic` when it is set (`source: 'prometheus'`).
 *
 * One `query_range` over `gateway_requests_total{api,status,vendor}` at the edges of the
 * window's steps (its start is the baseline), and one instant query at the asked time for the
 * step in progress; each series' step-to-step difference is the requests scraped in that step
 * (a counter that went down restarted: its new value is the step's count), so the numbers are
 * whole requests, as the gateway counts them, placed by scrape time: at most one scrape interval
 * late. The status label is classed here (2xx…5xx), and the instances' series add up.
 *
 * Reads Prometheus's HTTP API (10 s at most: a Prometheus that hangs is a 502, never a hang);
 * sets nothing. Its errors are `bad_gateway` problems naming Prometheus, never its address's
 * credentials.
 */
import { GatewayError } from '../errors/error-catalogue';
import { SeriesBuilder, statusClassOf, windowOf, type TrafficAnswer, type TrafficQuery, type TrafficSource } from './traffic';

const DEFAULT_TIMEOUT_MS = 10_000;
const METRIC = 'gateway_requests_total';

interface RangeSeries {
  readonly metric: Record<string, string>;
  readonly values: Array<[number, string]>;
  /** An instant query's one sample instead. */
  readonly value?: [number, string];
}

/** A PromQL string literal: JSON's escapes are PromQL's. */
function literal(value: string): string {
  return JSON.stringify(value);
}

function trafficSelector(query: Pick<TrafficQuery, 'vendorId' | 'apiId'>): string {
  const matchers: string[] = [];
  if (query.vendorId !== undefined) matchers.push(`vendor=${literal(query.vendorId)}`);
  if (query.apiId !== undefined) matchers.push(`api=${literal(query.apiId)}`);
  return `${METRIC}{${matchers.join(',')}}`;
}

export class PrometheusTraffic implements TrafficSource {
  private readonly base: URL;
  /** The address without credentials, for messages. */
  private readonly shown: string;

  constructor(
    url: string,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    this.base = new URL(url.endsWith('/') ? url : `${url}/`);
    this.shown = `${this.base.origin}${this.base.pathname}`;
  }

  async read(query: TrafficQuery): Promise<TrafficAnswer> {
    const { fromSeconds, toSeconds, ends } = windowOf(query);
    const { stepSeconds } = query;
    const selector = trafficSelector(query);
    // The steps' edges up to the last one's start, then the last (in progress) at the asked time:
    // Prometheus answers a time in the future only within its 5-minute look-back.
    const [past, now] = await Promise.all([
      this.ask('query_range', { query: selector, start: String(fromSeconds), end: String(toSeconds - stepSeconds), step: String(stepSeconds) }),
      this.ask('query', { query: selector, time: String(Math.min(query.atSeconds, toSeconds)) }),
    ]);
    const bySeries = new Map<string, RangeSeries>();
    for (const series of past) bySeries.set(JSON.stringify(series.metric), { metric: series.metric, values: [...(series.values ?? [])] });
    for (const sample of now) {
      const name = JSON.stringify(sample.metric);
      const series = bySeries.get(name) ?? { metric: sample.metric, values: [] };
      if (sample.value) series.values.push([toSeconds, sample.value[1]]);
      bySeries.set(name, series);
    }
    const builder = new SeriesBuilder(fromSeconds, stepSeconds, ends);
    for (const series of bySeries.values()) {
      const { vendor = 'anonymous', api = 'unmatched', status = '0' } = series.metric;
      const field = `${vendor} ${api} ${statusClassOf(Number(status))}`;
      let previous: number | null = null;
      for (const [at, text] of series.values) {
        const value = Number(text);
        // The first sample at the window's start is only the baseline; a series first seen later
        // was created then (its counter started at 0).
        if (previous !== null || at > fromSeconds) {
          const delta = previous === null || value < previous ? value : value - previous;
          builder.add(field, at - stepSeconds, delta);
        }
        previous = value;
      }
    }
    return {
      source: 'prometheus',
      note: `${METRIC} at ${this.shown}, every instance it scrapes; a request counts in the step of the scrape that saw it.`,
      series: builder.series(query),
    };
  }

  private async ask(endpoint: 'query' | 'query_range', params: Record<string, string>): Promise<RangeSeries[]> {
    const url = new URL(`api/v1/${endpoint}`, this.base);
    url.username = '';
    url.password = '';
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let res: Response;
    let body: { status?: string; error?: string; data?: { resultType?: string; result?: RangeSeries[] } };
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), headers: this.headers() });
      body = (await res.json()) as typeof body;
    } catch (err) {
      // A DOMException, which is not an Error of every realm: its name says it.
      const timedOut = (err as { name?: unknown } | null)?.name === 'TimeoutError';
      throw new GatewayError(
        'bad_gateway',
        timedOut
          ? `Prometheus (${this.shown}) did not answer within ${this.timeoutMs / 1000} s.`
          : `Prometheus (${this.shown}) could not be reached or did not answer JSON.`,
        { cause: err },
      );
    }
    const expected = endpoint === 'query' ? 'vector' : 'matrix';
    if (!res.ok || body.status !== 'success' || body.data?.resultType !== expected) {
      throw new GatewayError(
        'bad_gateway',
        `Prometheus (${this.shown}) refused the query (HTTP ${res.status}): ${String(body.error ?? `no ${expected} in the answer`)}.`,
      );
    }
    return body.data.result ?? [];
  }

  /** Credentials in the configured address (`https://user:pass@host/`) go as Basic auth, as a browser would. */
  private headers(): Record<string, string> {
    if (this.base.username === '') return {};
    const pair = `${decodeURIComponent(this.base.username)}:${decodeURIComponent(this.base.password)}`;
    return { Authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
  }
}
