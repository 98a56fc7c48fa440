/**
 * Pipeline step 8: forward the request to the core over the keep-alive agent, streaming the
 * body both ways (http-proxy-middleware; no body parsing on pass-through routes).
 *
 * Header hygiene, because the core trusts what the gateway sends it:
 * - the vendor's credentials (token headers, Authorization, Cookie) never reach the core;
 * - hop-by-hop headers (RFC 9110 §7.6.1, and any the client lists in Connection) are dropped,
 *   so a client's `Connection: close` cannot close the pooled sockets to the core;
 * - X-Forwarded-For/Proto/Host and the caller's identity (X-Vendor-Id, X-Vendor-User) are set
 *   by the gateway only: values a client sent are removed first;
 * - X-Request-Id is passed on.
 *
 * Reads the context (route, principal, request id); sets the upstream request's headers.
 * Connection failures and timeouts go to the error handler as 502 `bad_gateway` / 504
 * `core_timeout`; the body never names the core's address.
 */
import type http from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GatewayError } from '../../errors/catalogue';
import { getContext } from '../../pipeline/context';

export interface ForwardOptions {
  readonly coreUrl: string;
  readonly agent: http.Agent;
  /** Longest wait for the core's response headers. */
  readonly timeoutMs: number;
  /** Names of the headers that carry vendor keys; they are removed before forwarding. */
  readonly credentialHeaders: readonly string[];
  /** Hands a failure to the error handler (the only writer of error bodies). */
  readonly onError: (error: GatewayError, req: Request, res: Response) => void;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'upgrade'];
const CLIENT_CONTROLLED = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip', 'x-vendor-id', 'x-vendor-user', 'authorization', 'cookie'];

const CORE_TIMEOUT = 'CORE_TIMEOUT';

function stripHeaders(proxyReq: http.ClientRequest, req: http.IncomingMessage, credentialHeaders: readonly string[]): void {
  const listed = req.headers.connection;
  if (typeof listed === 'string') {
    for (const name of listed.split(',')) {
      const trimmed = name.trim().toLowerCase();
      if (trimmed) proxyReq.removeHeader(trimmed);
    }
  }
  for (const name of HOP_BY_HOP) proxyReq.removeHeader(name);
  for (const name of CLIENT_CONTROLLED) proxyReq.removeHeader(name);
  for (const name of credentialHeaders) proxyReq.removeHeader(name);
}

export function toCoreError(err: NodeJS.ErrnoException): GatewayError {
  if (err.code === CORE_TIMEOUT) {
    return new GatewayError('core_timeout', 'The core banking system did not answer in time.', { cause: err });
  }
  return new GatewayError('bad_gateway', 'The core banking system could not be reached.', { cause: err });
}

export function forward(options: ForwardOptions): RequestHandler {
  const credentialHeaders = [...new Set(options.credentialHeaders.map((h) => h.toLowerCase()))];
  const proxy = createProxyMiddleware<Request, Response>({
    target: options.coreUrl,
    agent: options.agent,
    changeOrigin: true,
    xfwd: false,
    on: {
      proxyReq(proxyReq, req, res) {
        stripHeaders(proxyReq, req, credentialHeaders);
        const ctx = getContext(res);
        const socket = req.socket as http.IncomingMessage['socket'] & { encrypted?: boolean };
        proxyReq.setHeader('X-Forwarded-For', socket.remoteAddress ?? '');
        proxyReq.setHeader('X-Forwarded-Proto', socket.encrypted ? 'https' : 'http');
        if (req.headers.host) proxyReq.setHeader('X-Forwarded-Host', req.headers.host);
        if (ctx) {
          proxyReq.setHeader('X-Request-Id', ctx.requestId);
          if (ctx.principal) {
            proxyReq.setHeader('X-Vendor-Id', ctx.principal.vendorId);
            proxyReq.setHeader('X-Vendor-User', ctx.principal.userId);
          }
        }
        proxyReq.setTimeout(options.timeoutMs, () => {
          proxyReq.destroy(Object.assign(new Error('core response timeout'), { code: CORE_TIMEOUT }));
        });
      },
      proxyRes(proxyRes) {
        // The response has started: from here a slow body is the client's and the core's business.
        proxyRes.socket?.setTimeout(0);
      },
      error(err, req, res) {
        // http-proxy hands a socket instead of a response for upgrade requests, which we never proxy.
        if (!('setHeader' in res)) return;
        options.onError(toCoreError(err as NodeJS.ErrnoException), req as Request, res as Response);
      },
    },
  });
  return function forwardStep(req, res, next) {
    return proxy(req, res, next);
  };
}
