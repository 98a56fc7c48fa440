/**
 * The buffered call to the core, for operations whose step has parsed the body and needs the
 * whole answer (receipts, bank accounts): one request, one complete response, through the
 * group's breaker and the shared keep-alive agent. Never retried: a money movement may have
 * been posted even when its answer was lost.
 *
 * Reads the core's answer; observes `gateway_upstream_duration_seconds{group}` (time to the
 * complete answer). A 5xx answer is returned to the caller like any other (and counts as a
 * breaker failure); a failure to get an answer throws CoreCallError, whose `requestSent` says
 * whether the core may have received the request.
 */
import http from 'node:http';
import https from 'node:https';
import type { BreakerGroup } from '../catalogue/catalogue';
import { BreakerTimeoutError, type CoreBreakers } from './breakers';
import { toCoreCallError } from './core-call-error';

export interface CoreRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query as the core serves them, starting with `/`. */
  readonly path: string;
  /** Sent as given; Content-Length is set from the body. */
  readonly headers?: Readonly<http.OutgoingHttpHeaders>;
  readonly body?: Buffer | string;
}

export interface CoreResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** How long the core took, for the access log (`noteUpstreamDuration`). */
  readonly durationSeconds: number;
}

/** Rejects with CoreCallError only. */
export type CoreExchange = (group: BreakerGroup, request: CoreRequest) => Promise<CoreResponse>;

export interface CoreExchangeDeps {
  readonly coreUrl: string;
  readonly agent: http.Agent;
  readonly breakers: CoreBreakers;
}

/** A complete 5xx answer: a failure for the breaker, but still the core's answer for the caller. */
class ServerErrorAnswer extends Error {
  constructor(readonly response: CoreResponse) {
    super(`core answered ${response.status}`);
  }
}

function secondsSince(startedAt: bigint): number {
  return Number(process.hrtime.bigint() - startedAt) / 1e9;
}

export function createCoreExchange(deps: CoreExchangeDeps): CoreExchange {
  const base = new URL(deps.coreUrl);
  const send = base.protocol === 'https:' ? https.request : http.request;
  const basePath = base.pathname.replace(/\/+$/, '');

  return function coreExchange(group, call) {
    const breaker = deps.breakers.get(group);
    const startedAt = process.hrtime.bigint();
    let outgoing: http.ClientRequest | null = null;
    let connected = false;

    const attempt = (): Promise<CoreResponse> =>
      new Promise<CoreResponse>((resolve, reject) => {
        const body = call.body === undefined ? undefined : Buffer.isBuffer(call.body) ? call.body : Buffer.from(call.body, 'utf8');
        const req = send({
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: basePath + call.path,
          method: call.method,
          agent: deps.agent,
          headers: body === undefined ? { ...call.headers } : { ...call.headers, 'content-length': body.length },
        });
        outgoing = req;
        req.once('socket', (socket) => {
          // A pooled socket is already connected: from here the core may receive the request.
          if (socket.connecting) socket.once('connect', () => (connected = true));
          else connected = true;
        });
        req.once('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.once('close', () => {
            if (!res.complete) reject(new Error('core closed the connection before the end of its answer'));
          });
          res.once('end', () => {
            const durationSeconds = secondsSince(startedAt);
            breaker.upstreamDuration.observe(durationSeconds);
            const response: CoreResponse = { status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks), durationSeconds };
            if (response.status >= 500) reject(new ServerErrorAnswer(response));
            else resolve(response);
          });
        });
        req.on('error', reject);
        req.end(body);
      });

    return breaker.run(attempt).then(undefined, (err: unknown) => {
      if (err instanceof ServerErrorAnswer) return err.response;
      if (err instanceof BreakerTimeoutError) {
        breaker.upstreamDuration.observe(secondsSince(startedAt));
        (outgoing as http.ClientRequest | null)?.destroy();
      }
      throw toCoreCallError(err, connected);
    });
  };
}
