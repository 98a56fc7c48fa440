/**
 * What happens when a vendor response finishes: one access-log line, the request metrics and,
 * for an authenticated request, one entry of the portal's request log.
 *
 * Reads the request context (request id, route, principal, start time, the core's time and
 * status that the core client noted there, the error handler's code, and the body bytes written
 * out), and the request size; sets metrics, the overview's and `GET /v1/traffic`'s own counts
 * (one map update each), hands the request log its entry (metadata only: never a path, query,
 * header value or body; the key by its prefix), and writes the line. Metric children are cached per label set
 * so the hot path does not rebuild label keys on every request. The line never holds a header
 * or a body: secrets cannot reach it.
 */
import type { VendorTraffic } from '../metrics/vendor-traffic';
import type { TrafficCounter } from '../metrics/traffic-counts';
import type { Counter, Histogram } from 'prom-client';
import { infoLineWriter, type Logger } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/metrics';
import type { RequestObserver } from '../policies/request-context/request-context';
import type { RequestContext } from '../request/context';
import type { RequestLog, RequestLogEntry } from '../portal/request-log/request-log';

/** The portal's request log and where a key's prefix is found (the access index). */
interface RequestLogHook {
  readonly log: RequestLog;
  readonly keyPrefix: (keyId: string) => string | undefined;
}

const UNMATCHED = 'unmatched';
const ANONYMOUS = 'anonymous';

function milliseconds(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e3;
}

/** Bytes as a Content-Length header states them; undefined without one. */
function declaredLength(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bytes = Number(value);
  return Number.isFinite(bytes) ? bytes : undefined;
}

/** The request log's entry of a finished request; only an authenticated one has a vendor to file it under. */
function recordRequest(hook: RequestLogHook, ctx: RequestContext, apiId: string, status: number, seconds: number, nowMs: number): void {
  const principal = ctx.principal;
  if (!principal) return;
  const entry: { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } = {
    at: new Date(nowMs).toISOString(),
    requestId: ctx.requestId,
    apiId,
    status,
    durationMs: Math.round(seconds * 1e4) / 10,
    keyPrefix: hook.keyPrefix(principal.keyId) ?? '',
  };
  if (ctx.upstreamStatus !== null) entry.upstreamStatus = ctx.upstreamStatus;
  if (ctx.upstreamSeconds !== null) entry.upstreamMs = Math.round(ctx.upstreamSeconds * 1e4) / 10;
  if (ctx.errorCode !== null) entry.code = ctx.errorCode;
  hook.log.record(principal.vendorId, entry);
}

export function createRequestObserver(
  metrics: GatewayMetrics,
  logger: Logger,
  traffic?: VendorTraffic,
  counts?: TrafficCounter,
  requestLog?: RequestLogHook,
): RequestObserver {
  const durationChildren = new Map<string, Histogram.Internal<'api'>>();
  const countChildren = new Map<string, Counter.Internal>();
  const writeLine = infoLineWriter(logger);
  return function observeRequest(req, res, ctx) {
    const seconds = Number(process.hrtime.bigint() - ctx.startedAt) / 1e9;
    const api = ctx.route?.apiId ?? UNMATCHED;
    const vendor = ctx.principal?.vendorId ?? ANONYMOUS;
    const status = res.statusCode;

    let duration = durationChildren.get(api);
    if (!duration) durationChildren.set(api, (duration = metrics.requestDuration.labels(api)));
    duration.observe(seconds);
    const countKey = `${api} ${status} ${vendor}`;
    let count = countChildren.get(countKey);
    if (!count) countChildren.set(countKey, (count = metrics.requestsTotal.labels(api, String(status), vendor)));
    count.inc();
    const nowMs = Date.now();
    traffic?.record(vendor, status, nowMs);
    counts?.record(countKey, vendor, api, status, nowMs);
    if (requestLog) recordRequest(requestLog, ctx, api, status, seconds, nowMs);

    // The line from a template (logging/logger.ts infoLineWriter): no object for pino to walk.
    let line = `,"requestId":${JSON.stringify(ctx.requestId)},"method":${JSON.stringify(req.method)},"path":${JSON.stringify(req.path)},"api":${JSON.stringify(api)},"vendor":${JSON.stringify(vendor)},"status":${status},"durationMs":${milliseconds(seconds)}`;
    const upstreamSeconds = ctx.upstreamSeconds;
    if (upstreamSeconds !== null) line += `,"upstreamMs":${milliseconds(upstreamSeconds)}`;
    const bytesIn = declaredLength(req.headers['content-length']);
    if (bytesIn !== undefined) line += `,"bytesIn":${bytesIn}`;
    // Buffered or streamed, compressed or not: what went on the wire, with or without a Content-Length.
    line += `,"bytesOut":${ctx.bytesOut}`;
    if (!res.writableFinished) line += ',"aborted":true';
    const traceId = ctx.trace?.traceId;
    if (traceId !== undefined) line += `,"traceId":${JSON.stringify(traceId)}`;
    writeLine(line, 'request');
  };
}
