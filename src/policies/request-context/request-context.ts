/**
 * Pipeline step: the request context. Keeps a sane client `X-Request-Id` (so a vendor can
 * trace a call end to end) and generates one otherwise, starts the timer, and echoes the id
 * on every response, errors included.
 *
 * Reads the X-Request-Id header; sets the RequestContext and the X-Request-Id response header,
 * counts the body bytes written out (ctx.bytesOut: first in the chain, so it counts what a
 * compressing step below it writes, as it goes on the wire), and hands the finished exchange to
 * the observer (access log, metrics).
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { context, newContext, setContext, type RequestContext } from '../../request/context';
import type { RequestContextConfig } from './request-context.schema';

/** Called once when the exchange ends, finished or cut off (access log, metrics). */
export type RequestObserver = (req: Request, res: Response, ctx: RequestContext) => void;

interface RequestContextDeps {
  /** Cache-Control for every answer (the vendor API: no-store, its answers carry customer data). */
  readonly cacheControl?: string;
  readonly onFinish?: RequestObserver;
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return chunk instanceof Uint8Array ? chunk.byteLength : 0;
}

/** Counts into ctx.bytesOut what goes through `res.write` and `res.end`, whoever wrapped them before. */
function countBytesOut(res: Response, ctx: RequestContext): void {
  const write = res.write;
  const end = res.end;
  res.write = function writeCounted(this: Response, chunk: unknown, encoding?: unknown) {
    ctx.bytesOut += byteLength(chunk, encoding);
    // eslint-disable-next-line prefer-rest-params -- write takes several shapes; pass them on as they came.
    return write.apply(this, arguments as unknown as Parameters<typeof write>);
  } as Response['write'];
  res.end = function endCounted(this: Response, chunk?: unknown, encoding?: unknown) {
    if (typeof chunk !== 'function') ctx.bytesOut += byteLength(chunk, encoding);
    // eslint-disable-next-line prefer-rest-params -- as above.
    return end.apply(this, arguments as unknown as Parameters<typeof end>);
  } as Response['end'];
}

export function requestContext(config: RequestContextConfig, deps: RequestContextDeps = {}): RequestHandler {
  const trusted = new RegExp(config.trustedRequestIdPattern);
  const onFinish = deps.onFinish;
  // One listener for every response, built once: 'close' fires once per exchange, so no
  // per-request closure or once-wrapper is needed to tell the observer.
  const exchangeClosed = onFinish
    ? function exchangeClosed(this: Response): void {
        onFinish(this.req, this, context(this));
      }
    : null;
  return function requestContextStep(req, res, next) {
    const sent = req.headers['x-request-id'];
    const requestId = typeof sent === 'string' && trusted.test(sent) ? sent : randomUUID();
    const ctx = newContext(requestId);
    setContext(res, ctx);
    countBytesOut(res, ctx);
    // 'close' fires for every exchange, also when the client goes away before the end.
    if (exchangeClosed) res.on('close', exchangeClosed);
    res.setHeader('X-Request-Id', requestId);
    if (deps.cacheControl) res.setHeader('Cache-Control', deps.cacheControl);
    next();
  };
}
