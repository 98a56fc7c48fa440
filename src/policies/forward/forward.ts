/**
 * Pipeline step 8: forward the request to the core through its breaker group's circuit
 * breaker, over the keep-alive agent, streaming the body both ways (http-proxy-middleware; no
 * body parsing on pass-through routes).
 *
 * The breaker does not wrap the stream: each try is a promise that settles when the core's
 * response headers arrive (a 5xx or a connection error is a failure, anything below 500 a
 * success) and the body then streams outside it. On the breaker's timeout the outgoing request
 * is aborted. An open breaker answers 503 `core_unavailable` with Retry-After without touching
 * the core; a timeout 504 `core_timeout`; a refused or reset connection 502 `bad_gateway`. Only
 * a GET (or HEAD) is tried a second time, and only after a connection error: never a request
 * that may change something, never after a timeout or an answer.
 *
 * Header hygiene, because the core trusts what the gateway sends it:
 * - the vendor's credentials (token headers, Authorization, Cookie) never reach the core;
 * - hop-by-hop headers (RFC 9110 §7.6.1, and any the client lists in Connection) are dropped,
 *   so a client's `Connection: close` cannot close the pooled sockets to the core; the core's
 *   hop-by-hop headers never reach the vendor either (the gateway owns that connection);
 * - X-Forwarded-For/Proto/Host and the caller's identity (X-Vendor-Id, X-Vendor-User) are set
 *   by the gateway only: values a client sent are removed first;
 * - X-Request-Id is passed on.
 *
 * Reads the context (route, principal, request id) and the request's size; sets the upstream
 * request's headers, the upstream time for the access log and
 * `gateway_upstream_duration_seconds{group}`. Failures go to the error handler; no body names
 * the core's address.
 */
import type http from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { BreakerTimeoutError, type CoreBreaker, type CoreBreakers } from '../../core-client/breakers';
import { toCoreCallError } from '../../core-client/core-call-error';
import { identityHeaders } from '../../core-client/identity-headers';
import { GatewayError } from '../../errors/catalogue';
import { context, getContext } from '../../pipeline/context';
import { noteStreamedBytes, noteUpstreamDuration } from '../../pipeline/observe';

export interface ForwardOptions {
  readonly coreUrl: string;
  readonly agent: http.Agent;
  readonly breakers: CoreBreakers;
  /** Names of the headers that carry vendor keys; they are removed before forwarding. */
  readonly credentialHeaders: readonly string[];
  /** Largest request body streamed to the core; larger ones get 413. */
  readonly maxBodyBytes: number;
  /** Hands a failure to the error handler (the only writer of error bodies). */
  readonly onError: (error: GatewayError, req: Request, res: Response) => void;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'upgrade'];
const CLIENT_CONTROLLED = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip', 'x-vendor-id', 'x-vendor-user', 'authorization', 'cookie'];
const RETRIABLE_METHODS = new Set(['GET', 'HEAD']);

/** The core answered with a 5xx: a failure for the breaker; the answer itself streams to the vendor. */
class ServerErrorStatus extends Error {}

/** No answer from the core: refused, reset, unreachable. */
class ConnectionFailure extends Error {}

const NONE: readonly string[] = [];

/** Header names a Connection header lists; its usual values list none beyond the hop-by-hop set. */
function listedInConnection(value: string | string[] | undefined): readonly string[] {
  if (typeof value !== 'string' || value === 'keep-alive' || value === 'close') return NONE;
  return value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

function stripRequestHeaders(proxyReq: http.ClientRequest, req: http.IncomingMessage, credentialHeaders: readonly string[]): void {
  for (const name of listedInConnection(req.headers.connection)) proxyReq.removeHeader(name);
  for (const name of HOP_BY_HOP) proxyReq.removeHeader(name);
  for (const name of CLIENT_CONTROLLED) proxyReq.removeHeader(name);
  for (const name of credentialHeaders) proxyReq.removeHeader(name);
}

/**
 * The vendor's connection is the gateway's: keep-alive or close is its decision, not the core's.
 * Headers are set to undefined, which http-proxy skips, rather than deleted: a delete turns the
 * object into a slow dictionary on every response.
 */
function stripResponseHeaders(proxyRes: http.IncomingMessage, res: http.ServerResponse): void {
  const headers = proxyRes.headers;
  for (const name of listedInConnection(headers.connection)) headers[name] = undefined;
  for (const name of HOP_BY_HOP) if (headers[name] !== undefined) headers[name] = undefined;
  const own = res.getHeader('connection');
  if (own !== undefined) headers.connection = String(own);
}

/** One try at the core for one vendor request. */
class ProxyAttempt {
  proxyReq: http.ClientRequest | null = null;
  /** The outgoing request had a connection to the core: it may have been received. */
  connected = false;
  /** The gateway stopped waiting for this try (timeout, client gone, body too large). */
  abandoned = false;
  settled = false;
  readonly headersArrived: Promise<number>;
  private readonly startedAt = process.hrtime.bigint();
  private resolveHeaders!: (status: number) => void;
  private rejectHeaders!: (err: Error) => void;

  constructor(readonly breaker: CoreBreaker) {
    this.headersArrived = new Promise<number>((resolve, reject) => {
      this.resolveHeaders = resolve;
      this.rejectHeaders = reject;
    });
  }

  /** Observes the core's time so far in `gateway_upstream_duration_seconds` and returns it. */
  observeUpstream(): number {
    const seconds = Number(process.hrtime.bigint() - this.startedAt) / 1e9;
    this.breaker.upstreamDuration.observe(seconds);
    return seconds;
  }

  answered(status: number): void {
    if (this.settled) return;
    this.settled = true;
    if (status >= 500) this.rejectHeaders(new ServerErrorStatus(`core answered ${status}`));
    else this.resolveHeaders(status);
  }

  failed(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectHeaders(new ConnectionFailure(err.message, { cause: err }));
  }

  /**
   * Cuts the outgoing request. A try nothing settled yet ends as a success for the breaker: the
   * vendor or the body limit ended it, not the core (after a timeout the breaker has already
   * counted its failure and ignores this). Not so for the one probe of a half-open breaker:
   * a success would close it without the core having answered, so the probe is left to the
   * breaker's timeout, which decides on real evidence.
   */
  abandon(): void {
    this.abandoned = true;
    this.proxyReq?.destroy();
    if (this.settled || this.breaker.state === 'half-open') return;
    this.settled = true;
    this.resolveHeaders(0);
  }
}

/** What every ForwardedCall of one forward step shares. */
interface ForwardShared {
  readonly options: ForwardOptions;
  readonly proxy: ProxyHandler;
  /** The current try of each request in flight, for the proxy's event handlers. */
  readonly attempts: WeakMap<http.IncomingMessage, ProxyAttempt>;
}

/** One vendor request: its tries, its body count, and its single outcome. */
class ForwardedCall {
  private current: ProxyAttempt | null = null;
  private tries = 0;
  private finished = false;

  constructor(
    private readonly shared: ForwardShared,
    private readonly breaker: CoreBreaker,
    private readonly req: Request,
    private readonly res: Response,
    private readonly next: NextFunction,
  ) {}

  start(): void {
    this.res.once('close', () => {
      if (this.res.writableFinished) return;
      // The vendor went away: stop the core's work on its behalf.
      this.finished = true;
      this.current?.abandon();
    });
    if (this.req.headers['content-length'] === undefined && this.req.headers['transfer-encoding'] !== undefined) this.countBody();
    this.send();
  }

  /** A body without Content-Length is counted as it streams; the core never gets more than the limit. */
  private countBody(): void {
    const limit = this.shared.options.maxBodyBytes;
    let received = 0;
    // Paused so that counting does not start the flow before the proxy pipes the body.
    this.req.pause();
    this.req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit || this.finished) return;
      this.finished = true;
      this.req.unpipe();
      this.current?.abandon();
      this.shared.options.onError(payloadTooLarge(limit), this.req, this.res);
    });
  }

  private send(): void {
    this.tries += 1;
    this.breaker.run(() => this.begin()).then(undefined, (err: unknown) => this.failed(err));
  }

  private begin(): Promise<number> {
    const attempt = new ProxyAttempt(this.breaker);
    this.current = attempt;
    this.shared.attempts.set(this.req, attempt);
    void this.shared.proxy(this.req, this.res, this.next);
    return attempt.headersArrived;
  }

  private failed(err: unknown): void {
    // The core's 5xx answer streams to the vendor as it is.
    if (err instanceof ServerErrorStatus) return;
    const attempt = this.current;
    if (err instanceof BreakerTimeoutError && attempt) {
      attempt.observeUpstream();
      attempt.abandon();
    }
    if (this.finished) return;
    if (err instanceof ConnectionFailure && this.tries === 1 && RETRIABLE_METHODS.has(this.req.method) && !this.res.headersSent) {
      this.send();
      return;
    }
    this.finished = true;
    this.shared.options.onError(toCoreCallError(err, attempt?.connected ?? false), this.req, this.res);
  }
}

export function forward(options: ForwardOptions): RequestHandler {
  const credentialHeaders = [...new Set(options.credentialHeaders.map((h) => h.toLowerCase()))];
  const attempts = new WeakMap<http.IncomingMessage, ProxyAttempt>();

  const proxy = createProxyMiddleware({
    target: options.coreUrl,
    agent: options.agent,
    changeOrigin: true,
    xfwd: false,
    // Only the plugins we need: the default logger plugin builds a URL per response for a no-op logger.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyReq(proxyReq, req, res) {
        const attempt = attempts.get(req);
        if (attempt?.abandoned) {
          proxyReq.destroy();
          return;
        }
        if (attempt) {
          attempt.proxyReq = proxyReq;
          const upstream = proxyReq.socket;
          if (upstream?.connecting) upstream.once('connect', () => (attempt.connected = true));
          else attempt.connected = true;
        }
        stripRequestHeaders(proxyReq, req, credentialHeaders);
        for (const [name, value] of Object.entries(identityHeaders(req, getContext(res as Response)))) proxyReq.setHeader(name, value);
      },
      proxyRes(proxyRes, req, res) {
        stripResponseHeaders(proxyRes, res);
        // A core that dies halfway through its body must not leave the vendor waiting forever.
        proxyRes.once('close', () => {
          if (!proxyRes.complete) res.destroy();
        });
        if (proxyRes.headers['content-length'] === undefined) {
          proxyRes.on('data', (chunk: Buffer) => noteStreamedBytes(res as Response, chunk.length));
        }
        const attempt = attempts.get(req);
        if (!attempt) return;
        noteUpstreamDuration(res as Response, attempt.observeUpstream());
        attempt.answered(proxyRes.statusCode ?? 502);
      },
      error(err, req, res) {
        // http-proxy hands a socket instead of a response for upgrade requests, which we never proxy.
        if (!('setHeader' in res)) return;
        const attempt = attempts.get(req);
        if (!attempt || attempt.abandoned) return;
        if (attempt.settled) {
          // The answer had started: the only honest signal left is a cut connection.
          res.destroy();
          return;
        }
        attempt.failed(err);
      },
      econnreset(_err, req) {
        // The vendor went away while its request was still being sent.
        attempts.get(req)?.abandon();
      },
    },
  });
  const shared: ForwardShared = { options, proxy, attempts };

  return function forwardStep(req, res, next) {
    const route = context(res).route;
    if (!route) {
      next(new Error('forward step reached without a matched route'));
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > options.maxBodyBytes) {
      options.onError(payloadTooLarge(options.maxBodyBytes), req, res);
      return;
    }
    // Node has already answered any `Expect: 100-continue`; passed on, it would also make
    // http-proxy skip the proxyReq hook, and with it the header hygiene above.
    delete req.headers.expect;
    new ForwardedCall(shared, options.breakers.get(route.group), req, res, next).start();
  };
}

function payloadTooLarge(limit: number): GatewayError {
  // The rest of the body is never read, so the connection cannot carry another request.
  return new GatewayError('payload_too_large', `The request body is larger than the ${limit} bytes this operation accepts.`, {
    headers: { Connection: 'close' },
  });
}
