/**
 * The portal's Usage and Requests: `GET /portal/api/usage?range=24h|7d` (the vendor's requests per
 * API id and status class, from the admin console's traffic source, with its rate limit and what
 * is left of it per key now) and `GET /portal/api/requests` (the request log: one request by its
 * id, or the newest first, filtered and paged). Both read only the caller's own vendor: the vendor
 * id comes from the session, never from the query.
 *
 * Usage answers from the SREs' Prometheus are kept 30 s per vendor and range, so a browser left
 * open, or a script, cannot turn into a query per request against it (the gateway's own counts
 * show this instance's newest requests at once, so they are read afresh). Listings and usage
 * reads are limited per portal user (SCANNING_READS_PER_MINUTE), as both make the store scan.
 *
 * Reads the query and the caller; sets the portal user's count of reads.
 */
import type { Request, Router } from 'express';
import type { RateLimit } from '../access/model';
import { GatewayError } from '../errors/error-catalogue';
import { windowOf, type TrafficSource } from '../metrics/traffic';
import type { KeyAllowance } from '../policies/rate-limit/rate-limit';
import type { AccessService } from '../admin/operations/access-service';
import { portalCaller } from './portal-auth';
import { portalLimiter, spendPortalLimit, type PortalLimitDeps } from './portal-limits';
import { PORTAL_API } from './portal-session';
import type { RequestLog, RequestLogQuery, StatusClass } from './request-log/request-log';

const RANGES = {
  '24h': { rangeSeconds: 86_400, stepSeconds: 3600 },
  '7d': { rangeSeconds: 7 * 86_400, stepSeconds: 6 * 3600 },
} as const;
type Range = keyof typeof RANGES;
const USAGE_KEPT_MS = 30_000;
const USAGE_ANSWERS_KEPT = 1000;
const API_ID = /^(GET|POST|PUT|DELETE)[\x21-\x7e]{1,200}$/;
/** A request id or a page cursor: printable ASCII, no spaces. */
const PRINTABLE = /^[\x21-\x7e]{1,200}$/;
const MAX_PAGE = 200;
const DEFAULT_PAGE = 50;
/**
 * Request-log listings and usage reads one portal user may make per minute. A listing under a
 * rare filter scans up to 20,000 logged entries in Redis (about 60 ms of its one thread) and a
 * week of usage reads 168 hourly hashes of every vendor's counts: a script looping on either must
 * not take Redis from the money paths. A person paging and filtering stays far below; finding one
 * request by its id is cheap and not counted.
 */
const SCANNING_READS_PER_MINUTE = 60;

export interface PortalInsightDeps extends PortalLimitDeps {
  readonly service: AccessService;
  readonly traffic: TrafficSource;
  readonly requestLog: RequestLog | null;
  /** What is left of a key's window under its vendor's rate limit (the vendor chain's limiters). */
  readonly allowance: (policy: RateLimit | undefined, keyId: string) => Promise<KeyAllowance>;
  readonly now?: () => number;
}

function refuse(field: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `The query parameter ${field} is not valid.`, { errors: [{ field, message }] });
}

function text(req: Request, name: string, pattern: RegExp, message: string): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw refuse(name, message);
  return value;
}

function instant(req: Request, name: string): number | undefined {
  const value = text(req, name, /^[\x21-\x7e]{1,40}$/, 'a date-time (ISO 8601)');
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw refuse(name, 'a date-time (ISO 8601)');
  return ms;
}

/** The request-log question a `GET requests` asks, every parameter checked. */
function requestLogQuery(req: Request): RequestLogQuery {
  const status = text(req, 'status', /^[1-5]xx$/, 'one of 2xx, 4xx, 5xx (or 1xx, 3xx)');
  const apiId = text(req, 'apiId', API_ID, 'an API id such as GETaccounts/{accountId}');
  const limitText = text(req, 'limit', /^\d{1,4}$/, `a whole number from 1 to ${MAX_PAGE}`);
  const limit = limitText === undefined ? DEFAULT_PAGE : Number(limitText);
  if (limit < 1 || limit > MAX_PAGE) throw refuse('limit', `a whole number from 1 to ${MAX_PAGE}`);
  const fromMs = instant(req, 'from');
  const toMs = instant(req, 'to');
  const after = text(req, 'after', PRINTABLE, "the previous page's next");
  return {
    limit,
    ...(status === undefined ? {} : { status: status as StatusClass }),
    ...(apiId === undefined ? {} : { apiId }),
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(after === undefined ? {} : { after }),
  };
}

const NOTES = {
  gateway: 'Counted by the gateway per minute; the last few seconds may not be in yet.',
  prometheus: "From the bank's monitoring, which samples the gateway's counts every few seconds.",
} as const;

export function registerPortalInsight(api: Router, deps: PortalInsightDeps): void {
  const now = deps.now ?? Date.now;
  const kept = new Map<string, { readonly atMs: number; readonly answer: unknown }>();
  const scanningReads = portalLimiter(deps, 'reads', SCANNING_READS_PER_MINUTE, 60);

  async function usageOf(vendorId: string, range: Range): Promise<{ readonly source: string } & Record<string, unknown>> {
    const { rangeSeconds, stepSeconds } = RANGES[range];
    const query = { vendorId, rangeSeconds, stepSeconds, atSeconds: now() / 1000 };
    const { fromSeconds, toSeconds } = windowOf(query);
    const answer = await deps.traffic.read(query);
    const rows = new Map<string, { apiId: string; statusClass: string; requests: number }>();
    const series = answer.series
      .filter((one) => one.vendorId === vendorId)
      .map(({ apiId, statusClass, points }) => {
        const requests = points.reduce((sum, [, n]) => sum + n, 0);
        const row = rows.get(`${apiId} ${statusClass}`) ?? { apiId, statusClass, requests: 0 };
        row.requests += requests;
        rows.set(`${apiId} ${statusClass}`, row);
        return { apiId, statusClass, points };
      });
    return {
      range,
      source: answer.source,
      note: NOTES[answer.source],
      from: new Date(fromSeconds * 1000).toISOString(),
      to: new Date(toSeconds * 1000).toISOString(),
      stepSeconds,
      rows: [...rows.values()].filter((row) => row.requests > 0),
      series,
    };
  }

  api.get(`${PORTAL_API}/usage`, async function readUsage(req, res) {
    const { vendor, user } = portalCaller(res);
    const range = (text(req, 'range', /^(24h|7d)$/, 'one of 24h, 7d') ?? '24h') as Range;
    await spendPortalLimit(scanningReads, user.id, 'usage and request-log reads');
    const cacheKey = `${vendor.id} ${range}`;
    let entry = kept.get(cacheKey);
    if (!entry || now() - entry.atMs > USAGE_KEPT_MS) {
      const fresh = await usageOf(vendor.id, range);
      entry = { atMs: now(), answer: fresh };
      if (fresh.source === 'prometheus') {
        if (kept.size >= USAGE_ANSWERS_KEPT) kept.clear();
        kept.set(cacheKey, entry);
      }
    }
    // What is left is read now, not kept: it is the one number a vendor watches move.
    const keys = (await deps.service.writer.index())
      .keysOf(vendor.id)
      .filter((key) => key.status === 'active' && (key.expiresAt === undefined || Date.parse(key.expiresAt) > now()));
    const allowances = await Promise.all(keys.map(async (key) => ({ keyId: key.id, prefix: key.prefix, ...(await deps.allowance(vendor.rateLimit, key.id)) })));
    res.json({ ...(entry.answer as object), rateLimit: { ...deps.service.effectiveRateLimit(vendor), keys: allowances } });
  });

  api.get(`${PORTAL_API}/requests`, async function readRequests(req, res) {
    const { vendor, user } = portalCaller(res);
    const log = deps.requestLog;
    if (!log) throw new GatewayError('not_found', 'The request log is off on this gateway (portal.requestLog.enabled).');
    const requestId = text(req, 'requestId', PRINTABLE, 'a request id (the X-Request-Id header of the answer)');
    if (requestId !== undefined) {
      const found = await readLog(() => log.find(vendor.id, requestId));
      res.json({ items: found ? [found] : [], next: null });
      return;
    }
    const query = requestLogQuery(req);
    await spendPortalLimit(scanningReads, user.id, 'usage and request-log reads');
    res.json(await readLog(() => log.list(vendor.id, query)));
  });
}

async function readLog<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('store_unavailable', 'The request log is unavailable; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
}
