/**
 * Pipeline step: the request context. Keeps a sane client `X-Request-Id` (so a vendor can
 * trace a call end to end) and generates one otherwise, starts the timer, and echoes the id
 * on every response, errors included.
 *
 * Reads the X-Request-Id header; sets the RequestContext and the X-Request-Id response header,
 * counts the body bytes written out (ctx.bytesOut, counted beneath every wrapper of write and
 * end, so what a compressing step writes is counted as it goes on the wire; the factory installs
 * the count on Node's ServerResponse prototype once), and hands the finished exchange to the
 * observer (access log, metrics).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { context, getContext, newContext, setContext, type RequestContext } from '../../request/context';
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

/** Marks the prototype itself, which every copy of this module shares (a test runner loads one per file). */
const COUNTING = Symbol.for('core-banking-gateway.bytesOut');

/**
 * Counts into ctx.bytesOut what goes through `write` and `end` of every server response that
 * carries a request context, whoever wraps them on the response later (compression does, so
 * its compressed bytes are what is counted) or earlier (a diagnostics-channel subscriber that
 * wraps them before Express sets the app's prototype). Installed once on Node's
 * ServerResponse prototype rather than per response: no closures and no own `write`/`end` per
 * request. A response without a context (the status and metrics servers) only pays the lookup.
 */
function countBytesOut(): void {
  const proto = http.ServerResponse.prototype as http.ServerResponse & { [COUNTING]?: true };
  if (proto[COUNTING]) return;
  proto[COUNTING] = true;
  const write = proto.write;
  const end = proto.end;
  proto.write = function writeCounted(this: Response, chunk: unknown, encoding?: unknown) {
    const ctx = getContext(this);
    if (ctx) ctx.bytesOut += byteLength(chunk, encoding);
    // eslint-disable-next-line prefer-rest-params -- write takes several shapes; pass them on as they came.
    return write.apply(this, arguments as unknown as Parameters<typeof write>);
  } as typeof proto.write;
  proto.end = function endCounted(this: Response, chunk?: unknown, encoding?: unknown) {
    const ctx = getContext(this);
    if (ctx && typeof chunk !== 'function') ctx.bytesOut += byteLength(chunk, encoding);
    // eslint-disable-next-line prefer-rest-params -- as above.
    return end.apply(this, arguments as unknown as Parameters<typeof end>);
  } as typeof proto.end;
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
  countBytesOut();
  return function requestContextStep(req, res, next) {
    const sent = req.headers['x-request-id'];
    const requestId = typeof sent === 'string' && trusted.test(sent) ? sent : randomUUID();
    const ctx = newContext(requestId);
    setContext(res, ctx);
    // 'close' fires for every exchange, also when the client goes away before the end.
    if (exchangeClosed) res.on('close', exchangeClosed);
    res.setHeader('X-Request-Id', requestId);
    if (deps.cacheControl) res.setHeader('Cache-Control', deps.cacheControl);
    next();
  };
}
