/**
 * Pipeline step: the request's trace. With tracing on, a server span starts here (continuing
 * the caller's `traceparent` when it sent a valid one) and ends when the response closes, with
 * the API id, the vendor, the status and the gateway's own time (the whole minus the core's); a
 * response the client went away from before it was sent whole carries `error.type`
 * `client_closed` and no status it never received. Later steps hang their child spans off
 * ctx.trace. With tracing off the step does nothing.
 *
 * Reads the trace headers; sets ctx.trace.
 */
import type { RequestHandler } from 'express';
import { context } from '../../request/context';
import type { Tracing } from '../../tracing/tracing';

export function traceRequest(tracing: Tracing | null): RequestHandler {
  return function traceStep(req, res, next) {
    if (tracing === null) return next();
    const ctx = context(res);
    const requestTrace = tracing.startRequest(req.headers, `${req.method} gateway`);
    ctx.trace = requestTrace;
    res.once('close', () => {
      const totalMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
      const coreMs = (ctx.upstreamSeconds ?? 0) * 1000;
      // Express's default 200 is not an answer the client got when it left first.
      const answered = res.writableFinished;
      requestTrace.end(
        {
          'http.request.method': req.method,
          ...(res.headersSent ? { 'http.response.status_code': res.statusCode } : {}),
          ...(answered ? {} : { 'error.type': 'client_closed' }),
          'cbg.api_id': ctx.route?.apiId ?? 'unmatched',
          'cbg.vendor': ctx.principal?.vendorId ?? 'anonymous',
          'cbg.request_id': ctx.requestId,
          'cbg.gateway_ms': Math.max(0, Math.round((totalMs - coreMs) * 1000) / 1000),
        },
        res.statusCode >= 500,
      );
    });
    next();
  };
}
