/**
 * `GET /v1/traffic?vendor=&api=&range=1h|24h|7d&step=<seconds>&at=<time>`: requests per vendor,
 * API id and status class over time, from the source the gateway was started with (Prometheus
 * at `admin.prometheusUrl`, else the gateway's own counts; the answer's `source` and `note` say
 * which). Any role may read it. `by=class` sums the series per status class (vendorId and apiId
 * `*`), so a chart of every vendor is a handful of series, not vendors x API ids x classes.
 *
 * Reads the query; sets nothing. A bad parameter is a 400 naming it.
 */
import type { Request, Router } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import type { TrafficQuery, TrafficSeries, TrafficSource } from '../../metrics/traffic';
import { windowOf } from '../../metrics/traffic';
import { methodNotAllowed } from './route-kit';

const RANGES: Readonly<Record<string, number>> = { '1h': 3600, '24h': 86_400, '7d': 7 * 86_400 };
const DEFAULT_STEPS: Readonly<Record<string, number>> = { '1h': 60, '24h': 300, '7d': 3600 };
const MAX_POINTS = 1440;
const VENDOR_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const API_ID = /^[\x21-\x7e]{1,200}$/;
/** The last second a date can show (9999-12-31T23:59:59Z): past it, `at` is no time the answer can name. */
const LATEST_AT = 253_402_300_799;

function refuse(field: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `The query parameter ${field} is not valid.`, { errors: [{ field, message }] });
}

function text(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw refuse(name, 'given once');
  return value;
}

/**
 * A step the stored minutes and hours add up to exactly: a multiple of 60 that divides an hour,
 * or whole hours that divide the range; 7 days in steps of an hour or more (168 hours to read,
 * not 10,080 minutes).
 */
function stepOf(req: Request, range: string, rangeSeconds: number): number {
  const given = text(req, 'step');
  if (given === undefined) return DEFAULT_STEPS[range] as number;
  const step = Number(given);
  const fits = Number.isInteger(step) && step >= 60 && (step < 3600 ? 3600 % step === 0 && step % 60 === 0 : step % 3600 === 0 && rangeSeconds % step === 0);
  if (!fits || rangeSeconds / step > MAX_POINTS || (range === '7d' && step < 3600)) {
    throw refuse('step', `seconds: a multiple of 60 dividing 3600, or of 3600 dividing the range; at most ${MAX_POINTS} points; at least 3600 for 7d`);
  }
  return step;
}

function atOf(req: Request): number {
  const given = text(req, 'at');
  if (given === undefined) return Date.now() / 1000;
  const seconds = /^\d+(\.\d+)?$/.test(given) ? Number(given) : Date.parse(given) / 1000;
  // Bounded: a huge `at` would be a time no date shows (and one where adding a step no longer moves it).
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > LATEST_AT) throw refuse('at', 'a date-time (ISO 8601) or unix seconds, from 1970 to 9999');
  return seconds;
}

function trafficQuery(req: Request): { range: string; query: TrafficQuery } {
  const range = text(req, 'range') ?? '1h';
  const rangeSeconds = RANGES[range];
  if (rangeSeconds === undefined) throw refuse('range', 'one of 1h, 24h, 7d');
  const vendorId = text(req, 'vendor') || undefined;
  if (vendorId !== undefined && !VENDOR_ID.test(vendorId)) throw refuse('vendor', 'a vendor id');
  const apiId = text(req, 'api') || undefined;
  if (apiId !== undefined && !API_ID.test(apiId)) throw refuse('api', 'an API id');
  const stepSeconds = stepOf(req, range, rangeSeconds);
  const query: TrafficQuery = { rangeSeconds, stepSeconds, atSeconds: atOf(req), ...(vendorId ? { vendorId } : {}), ...(apiId ? { apiId } : {}) };
  return { range, query };
}

/** One series per status class, each point the sum of every series of that class at that time. */
function sumByClass(series: readonly TrafficSeries[]): TrafficSeries[] {
  const byClass = new Map<TrafficSeries['statusClass'], TrafficSeries>();
  for (const one of series) {
    const sum = byClass.get(one.statusClass);
    if (!sum) byClass.set(one.statusClass, { vendorId: '*', apiId: '*', statusClass: one.statusClass, points: one.points.map(([t, n]) => [t, n]) });
    else one.points.forEach(([, n], i) => ((sum.points[i] as [number, number])[1] += n));
  }
  return [...byClass.values()].sort((a, b) => a.statusClass.localeCompare(b.statusClass));
}

export function registerTraffic(router: Router, source: TrafficSource | undefined): void {
  router
    .route('/traffic')
    .get(async function readTraffic(req, res) {
      const { range, query } = trafficQuery(req);
      const by = text(req, 'by');
      if (by !== undefined && by !== 'class') throw refuse('by', 'class (sum the series per status class)');
      if (!source) throw new GatewayError('not_found', 'This admin app counts no traffic.');
      const { fromSeconds, toSeconds } = windowOf(query);
      const answer = await source.read(query);
      res.json({
        source: answer.source,
        note: answer.note,
        range,
        stepSeconds: query.stepSeconds,
        from: new Date(fromSeconds * 1000).toISOString(),
        to: new Date(toSeconds * 1000).toISOString(),
        ...(query.vendorId ? { vendor: query.vendorId } : {}),
        ...(query.apiId ? { api: query.apiId } : {}),
        series: by === 'class' ? sumByClass(answer.series) : answer.series,
      });
    })
    .all(methodNotAllowed('GET'));
}
