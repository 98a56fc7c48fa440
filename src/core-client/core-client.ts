/**
 * The one road to the core: every request the core receives is built and sent here, and every
 * answer from it is classified here. The pipeline's two final steps only call it: exchange
 * (receipts, bank-account writes: buffered both ways) and forward (everything else: the answer
 * streams back).
 *
 * What the core receives is built from what the pipeline authorised, never copied from the
 * vendor: the target from the request-target step (core-target.ts), headers from an allow-list
 * (core-headers.ts), and framing of our own, since a body is always read whole before the core
 * is called (Content-Length; no framing header without a body). What the vendor receives:
 * - a success or redirect, streamed: its status, `core.passResponseHeaders` and its body;
 * - a refusal (4xx) on a streamed route: read (up to 16 KiB) and told as a problem of the
 *   gateway's catalogue (core-problem.ts), so every error a vendor sees has `code` and `requestId`;
 * - an answer below 500, buffered: the whole answer, up to `core.maxBufferedResponseBytes`
 *   (502 `bad_gateway` past it, the core's connection cut);
 * - an answer of 500 or more: never the core's body or headers; 502 `bad_gateway`, the body
 *   logged at debug level with the request id.
 *
 * The gateway also reads from the core on its own account (`read`: the customer behind a second
 * factor, the bank account a PUT would change), by GET through the route's breaker group.
 *
 * Every call goes through its group's breaker, whose timer starts when the request, body
 * included, is handed to the core: a vendor's slow upload happened before and is bounded by
 * the server's request timeout (408). Only a GET is tried twice, and only after a connection
 * error. A streamed call is abandoned when its vendor goes away; a buffered one (money) runs to
 * its end so its outcome is known. Failures reject with CoreCallError (503 core_unavailable,
 * 504 core_timeout, 502 bad_gateway), saying whether the core may have received the request.
 *
 * Reads the request context (route, coreTarget, principal, rawBody); sets ctx.upstreamSeconds, ctx.upstreamStatus
 * and `gateway_upstream_duration_seconds{group}`.
 */
import http from 'node:http';
import https from 'node:https';
import type { Request, Response } from 'express';
import type { Logger } from '../logging/logger';
import type { BreakerGroup } from '../catalogue/api-catalogue';
import type { RequestContext } from '../request/context';
import { BreakerTimeoutError, type CoreBreaker, type CoreBreakers } from './breakers';
import { CoreCallError, toCoreCallError } from './core-call-error';
import { problemFromCoreAnswer } from './core-problem';
import type { CoreClientConfig } from './core-client.schema';
import { coreRequestHeaders, vendorLocation, vendorResponseHeaders, type CoreBodyFraming, type CoreHeaderRules } from './core-headers';
import type { ForwardedResolver } from './forwarded';
import type { CoreAgents } from './agent';
import type { TraceSpan } from '../tracing/tracing';

interface CoreClientDeps {
  readonly coreUrl: string;
  /** The agent of each new request (a new one after a certificate rotation). */
  readonly agents: CoreAgents;
  readonly breakers: CoreBreakers;
  readonly config: Pick<CoreClientConfig, 'passHeaders' | 'passResponseHeaders' | 'maxBufferedResponseBytes'>;
  readonly forwarded: ForwardedResolver;
  readonly logger: Logger;
}

/** A whole answer of the core, below 500. */
export interface BufferedAnswer {
  readonly status: number;
  /** The core's Content-Type, empty when it sent none. */
  readonly contentType: string;
  readonly body: Buffer;
  /** The core's Location as a gateway path (core-headers.ts vendorLocation); absent when it sent none or one outside the core. */
  readonly location?: string;
  /** The core's Retry-After, for the problem of its 429; absent when it sent none. */
  readonly retryAfter?: string;
}

export interface CoreClient {
  /** Sends the authorised request and streams the answer to the vendor; rejects only before anything was written. */
  stream(req: Request, res: Response, ctx: RequestContext): Promise<void>;
  /** Sends `json` to the core and returns its whole answer; never retried, never abandoned. */
  exchange(req: Request, ctx: RequestContext, json: string): Promise<BufferedAnswer>;
  /** A GET of `path` (built by the gateway) on the gateway's own account, through `group`'s breaker; the whole answer. */
  read(req: Request, ctx: RequestContext, group: BreakerGroup, path: string): Promise<BufferedAnswer>;
}

/** No answer from the core: refused, reset, unreachable, or cut in the middle of a buffered answer. */
class ConnectionFailure extends Error {}

/** The core answered 500 or more: a failure for the breaker, and never shown to the vendor. */
class ServerErrorAnswer extends Error {
  constructor(
    readonly status: number,
    /** What the core said, for the debug log: the start of its body. */
    readonly excerpt: Promise<string>,
  ) {
    super(`core answered ${status}`);
  }
}

/** A buffered answer over `core.maxBufferedResponseBytes`. */
class AnswerTooLarge extends Error {}

/** The vendor went away before the core answered; nothing is left to answer. */
const ABANDONED = Symbol('abandoned');

/** How much of a 5xx body the debug log keeps. */
const EXCERPT_BYTES = 4096;
/** How much of a 4xx body the gateway reads to tell the vendor what the core refused. */
const REFUSAL_BYTES = 16_384;

interface OutgoingRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.OutgoingHttpHeaders;
  readonly body: Buffer | null;
}

/** The first `maxBytes` of an answer's body; the rest is not read (the connection is dropped). */
function readStart(incoming: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const done = (complete: boolean): void => {
      if (finished) return;
      finished = true;
      if (!complete) incoming.destroy();
      resolve(Buffer.concat(chunks).subarray(0, Math.min(size, maxBytes)));
    };
    incoming.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) done(false);
    });
    incoming.once('end', () => done(true));
    incoming.once('error', () => done(false));
  });
}

/** One try at the core: the request on the wire and what became of it. */
class CoreAttempt<T> {
  /** The request had a connection to the core: it may have been received. */
  connected = false;
  readonly settledWith: Promise<T | typeof ABANDONED>;
  private request: http.ClientRequest | null = null;
  private settled = false;
  private readonly startedAt = process.hrtime.bigint();
  private resolve!: (value: T | typeof ABANDONED) => void;
  private reject!: (err: Error) => void;

  constructor(
    private readonly breaker: CoreBreaker,
    private readonly ctx: RequestContext,
  ) {
    this.settledWith = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Sends `outgoing`; `onAnswer` settles the try from the core's answer (below 500). */
  start(
    open: (outgoing: OutgoingRequest) => http.ClientRequest,
    outgoing: OutgoingRequest,
    onAnswer: (incoming: http.IncomingMessage, attempt: this) => void,
  ): Promise<T | typeof ABANDONED> {
    const request = open(outgoing);
    this.request = request;
    request.once('socket', (socket) => {
      // A pooled socket is already connected: from here the core may receive the request.
      if (socket.connecting) socket.once('connect', () => (this.connected = true));
      else this.connected = true;
    });
    request.once('response', (incoming) => {
      if ((incoming.statusCode ?? 502) >= 500) {
        this.observe(incoming.statusCode ?? 502);
        this.fail(
          new ServerErrorAnswer(
            incoming.statusCode ?? 502,
            readStart(incoming, EXCERPT_BYTES).then((bytes) => bytes.toString('utf8')),
          ),
        );
        return;
      }
      onAnswer(incoming, this);
    });
    request.on('error', (err) => this.fail(new ConnectionFailure(err.message, { cause: err })));
    request.end(outgoing.body ?? undefined);
    return this.settledWith;
  }

  /** The core's time so far (and its status, when it answered): into `gateway_upstream_duration_seconds`, the access log and the request log. */
  observe(status: number | null): void {
    const seconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    this.breaker.upstreamDuration.observe(seconds);
    this.ctx.upstreamSeconds = seconds;
    if (status !== null) this.ctx.upstreamStatus = status;
  }

  succeed(value: T): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(value);
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }

  /** Cuts the request (a timeout: the breaker has already counted it). */
  abort(): void {
    this.request?.destroy();
  }

  /**
   * The vendor went away: cut the request. An unsettled try ends as a success for the breaker,
   * since the vendor ended it, not the core; not so the one probe of a half-open breaker, which
   * would close it without evidence: that one is left to the breaker's timeout.
   */
  abandon(): void {
    this.request?.destroy();
    if (this.settled || this.breaker.state === 'half-open') return;
    this.settled = true;
    this.resolve(ABANDONED);
  }
}

export function createCoreClient(deps: CoreClientDeps): CoreClient {
  const base = new URL(deps.coreUrl);
  const send = base.protocol === 'https:' ? https.request : http.request;
  const basePath = base.pathname.replace(/\/+$/, '');
  const headerRules: CoreHeaderRules = { passHeaders: deps.config.passHeaders, forwarded: deps.forwarded };
  const responseHeaders = deps.config.passResponseHeaders;
  const maxBufferedBytes = deps.config.maxBufferedResponseBytes;
  const { logger } = deps;

  const open = (outgoing: OutgoingRequest): http.ClientRequest =>
    send({
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port,
      path: basePath + outgoing.path,
      method: outgoing.method,
      agent: deps.agents.current(outgoing.method),
      headers: outgoing.headers,
    });

  function outgoingFor(req: Request, ctx: RequestContext, body: Buffer | null, contentType: string | null, span: TraceSpan | undefined): OutgoingRequest {
    const { route, coreTarget } = ctx;
    if (!route || coreTarget === null) throw new Error('the core is called only for a matched route with a checked target');
    return outgoing(req, ctx, route.method, coreTarget, body, contentType, span);
  }

  function outgoing(
    req: Request,
    ctx: RequestContext,
    method: string,
    path: string,
    body: Buffer | null,
    contentType: string | null,
    span: TraceSpan | undefined,
  ): OutgoingRequest {
    const framing: CoreBodyFraming | null = body ? { contentType, length: body.length } : null;
    return { method, path, headers: coreRequestHeaders(req, ctx, headerRules, framing, span?.traceparent), body };
  }

  /** A span for one core call when the request is traced. */
  function coreSpan(ctx: RequestContext, group: BreakerGroup, method: string, path: string): TraceSpan | undefined {
    return ctx.trace?.child('core call', { 'cbg.breaker_group': group, 'http.request.method': method, 'url.path': path.split('?')[0] ?? path });
  }

  /** One buffered call: through the breaker, read whole, never retried. */
  async function buffered(group: BreakerGroup, build: (span: TraceSpan | undefined) => OutgoingRequest, ctx: RequestContext): Promise<BufferedAnswer> {
    const breaker = deps.breakers.get(group);
    const attempt = new CoreAttempt<BufferedAnswer>(breaker, ctx);
    const probe = build(undefined);
    const span = coreSpan(ctx, group, probe.method, probe.path);
    const request = span ? build(span) : probe;
    let answer: BufferedAnswer | typeof ABANDONED;
    try {
      answer = await breaker.run(() => attempt.start(open, request, (incoming, self) => readWhole(incoming, self, maxBufferedBytes, base)));
    } catch (err) {
      span?.end({ 'cbg.outcome': (err as Error).name }, true);
      throw failure(err, attempt, ctx);
    }
    if (answer === ABANDONED) throw new Error('a buffered call is never abandoned');
    span?.end({ 'http.response.status_code': answer.status });
    return answer;
  }

  /** Maps what a breaker run rejected with; the core's own failures never reach the vendor as the core wrote them. */
  function failure<T>(err: unknown, attempt: CoreAttempt<T>, ctx: RequestContext): CoreCallError {
    if (err instanceof ServerErrorAnswer) {
      void err.excerpt.then((excerpt) =>
        logger.debug({ requestId: ctx.requestId, coreStatus: err.status, coreBody: excerpt }, 'core answered with a server error'),
      );
      return new CoreCallError('bad_gateway', true, { cause: err, detail: 'The core banking system failed while processing the request.' });
    }
    if (err instanceof AnswerTooLarge) {
      return new CoreCallError('bad_gateway', true, { cause: err, detail: "The core banking system's answer was larger than this gateway accepts." });
    }
    if (err instanceof BreakerTimeoutError) {
      attempt.observe(null);
      attempt.abort();
    }
    return toCoreCallError(err, attempt.connected);
  }

  function pipeAnswer(incoming: http.IncomingMessage, res: Response): void {
    res.statusCode = incoming.statusCode ?? 502;
    for (const [name, value] of vendorResponseHeaders(incoming.headers, responseHeaders, base)) res.setHeader(name, value);
    // A core that dies halfway through its body must not leave the vendor waiting forever.
    incoming.once('close', () => {
      if (!incoming.complete) res.destroy();
    });
    res.once('close', () => {
      if (!res.writableFinished) incoming.destroy();
    });
    incoming.pipe(res);
  }

  return {
    async stream(req, res, ctx) {
      const route = ctx.route;
      if (!route) throw new Error('the core is called only for a matched route');
      const raw = ctx.rawBody;
      const span = coreSpan(ctx, route.group, route.method, ctx.coreTarget ?? '');
      const outgoing = outgoingFor(req, ctx, raw?.bytes ?? null, raw?.contentType ?? null, span);
      try {
        await streamTries(res, ctx, route.group, route.method, outgoing, span);
      } catch (err) {
        span?.end({ 'cbg.outcome': (err as Error).name }, true);
        throw err;
      }
    },

    exchange(req, ctx, json) {
      const route = ctx.route;
      if (!route) throw new Error('the core is called only for a matched route');
      const body = Buffer.from(json, 'utf8');
      return buffered(route.group, (span) => outgoingFor(req, ctx, body, 'application/json', span), ctx);
    },

    read(req, ctx, group, path) {
      return buffered(group, (span) => outgoing(req, ctx, 'GET', path, null, null, span), ctx);
    },
  };

  /** The streamed call: a GET is tried once more after a connection error; a vendor gone ends it. */
  async function streamTries(
    res: Response,
    ctx: RequestContext,
    group: BreakerGroup,
    method: string,
    outgoing: OutgoingRequest,
    span: TraceSpan | undefined,
  ): Promise<void> {
    const breaker = deps.breakers.get(group);
    let gone = res.destroyed;
    for (let tries = 1; !gone; tries++) {
      const attempt = new CoreAttempt<http.IncomingMessage>(breaker, ctx);
      const vendorGone = (): void => {
        if (res.writableFinished) return;
        gone = true;
        attempt.abandon();
      };
      res.once('close', vendorGone);
      let incoming: http.IncomingMessage | typeof ABANDONED;
      try {
        incoming = await breaker.run(() =>
          attempt.start(open, outgoing, (answer, self) => {
            self.observe(answer.statusCode ?? 502);
            self.succeed(answer);
          }),
        );
      } catch (err) {
        if (gone) {
          span?.end({ 'cbg.outcome': 'abandoned' });
          return;
        }
        if (err instanceof ConnectionFailure && tries === 1 && method === 'GET') continue;
        throw failure(err, attempt, ctx);
      } finally {
        res.off('close', vendorGone);
      }
      if (incoming === ABANDONED || gone) {
        if (incoming !== ABANDONED) incoming.destroy();
        span?.end({ 'cbg.outcome': 'abandoned' });
        return;
      }
      const status = incoming.statusCode ?? 502;
      if (status >= 400) {
        // The core refused: the vendor hears it in the gateway's own error shape.
        const body = await readStart(incoming, REFUSAL_BYTES);
        span?.end({ 'http.response.status_code': status });
        const retryAfter = incoming.headers['retry-after'];
        throw problemFromCoreAnswer(status, String(incoming.headers['content-type'] ?? ''), body, typeof retryAfter === 'string' ? retryAfter : undefined);
      }
      span?.end({ 'http.response.status_code': status });
      pipeAnswer(incoming, res);
      return;
    }
  }
}

/** Reads a buffered answer to its end, up to `maxBytes`; the attempt settles with it. */
function readWhole(incoming: http.IncomingMessage, attempt: CoreAttempt<BufferedAnswer>, maxBytes: number, coreBase: URL): void {
  const declared = Number(incoming.headers['content-length']);
  if (declared > maxBytes) {
    attempt.abort();
    attempt.fail(new AnswerTooLarge(`core answer of ${declared} bytes`));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  incoming.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      attempt.abort();
      attempt.fail(new AnswerTooLarge(`core answer over ${maxBytes} bytes`));
      return;
    }
    chunks.push(chunk);
  });
  incoming.once('error', (err) => attempt.fail(new ConnectionFailure(err.message, { cause: err })));
  incoming.once('close', () => {
    if (!incoming.complete) attempt.fail(new ConnectionFailure('core closed the connection before the end of its answer'));
  });
  incoming.once('end', () => {
    attempt.observe(incoming.statusCode ?? 502);
    const location = vendorLocation(incoming.headers.location, coreBase);
    const retryAfter = incoming.headers['retry-after'];
    attempt.succeed({
      status: incoming.statusCode ?? 502,
      contentType: String(incoming.headers['content-type'] ?? ''),
      body: Buffer.concat(chunks, size),
      ...(location ? { location } : {}),
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
    });
  });
}
