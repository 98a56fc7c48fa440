/**
 * What happens when a vendor response finishes: one access-log line and the request metrics.
 *
 * Reads the request context (request id, route, principal, start time, the core's time that
 * the core client noted there, and the body bytes written out), and the request size;
 * sets metrics, the overview's and `GET /v1/traffic`'s own counts (one map update each), and writes the line. Metric children are cached per label set
 * so the hot path does not rebuild label keys on every request. The line never holds a header
 * or a body: secrets cannot reach it.
 */
import type { VendorTraffic } from '../metrics/vendor-traffic';
import type { TrafficCounter } from '../metrics/traffic-counts';
import type { Counter, Histogram } from 'prom-client';
import { infoLineWriter, type Logger } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/metrics';
import type { RequestObserver } from '../policies/request-context/request-context';

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

export function createRequestObserver(metrics: GatewayMetrics, logger: Logger, traffic?: VendorTraffic, counts?: TrafficCounter): RequestObserver {
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
