/**
 * The error handler: the only place that writes an error body, as RFC 9457 problem details.
 *
 * Reads the error (a GatewayError, a body-parser error, or anything else) and the request's
 * Accept header; sets the status, the error's headers and an application/problem+json body
 * (application/problem+xml when the client asked for XML), and the problem's code on the request
 * context (ctx.errorCode, for the request log). A request whose body contract
 * answers refusals in its own shape (receipts, README "Receipts") left a renderer on the
 * context (`ctx.refusalRenderer`, see contracts/refusal-answer.ts): it is asked first, and the
 * plain problem goes when it declines or fails. Anything that is not a known error becomes a
 * 500 `internal_error` whose detail says nothing of the cause; the cause is logged with the
 * request id so an operator can find it.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { ERROR_CATALOGUE, GatewayError, StoreUnavailableError } from '../errors/error-catalogue';
import { problemBody, problemXml, type RenderedProblem } from '../errors/problem';
import { logRequestFailure } from './request-failure-log';
import type { Logger } from '../logging/logger';
import { getContext } from './context';

/** Maps errors thrown by Node and Express internals (body parsers, sockets) to the catalogue. */
function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = err as { type?: string; status?: number; code?: string } | null;
  if (e?.type === 'entity.too.large' || e?.status === 413) {
    return new GatewayError('payload_too_large', 'The request body is larger than this operation accepts.', { cause: err });
  }
  if (e?.type === 'entity.parse.failed') {
    return new GatewayError('invalid_request', 'The request body is not well-formed.', { cause: err });
  }
  if (err instanceof StoreUnavailableError) {
    return new GatewayError('store_unavailable', 'The gateway store (Redis) is unavailable; retry shortly.', { cause: err, headers: { 'Retry-After': '1' } });
  }
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ECONNRESET' || e?.code === 'EPIPE' || e?.code === 'ENOTFOUND') {
    return new GatewayError('bad_gateway', 'The core banking system could not be reached.', { cause: err });
  }
  return new GatewayError('internal_error', 'An unexpected error occurred; quote the request id to support.', {
    cause: err,
  });
}

/** Media types a problem can be written in, JSON first: it wins a tie. */
const PROBLEM_TYPES = ['application/problem+json', 'application/json', 'application/problem+xml', 'application/xml', 'text/xml'];

/** XML when the client prefers it (q-values weighed), or, asking nothing, when it sent XML. */
function wantsXml(req: Request): boolean {
  const accept = req.headers.accept;
  if (accept && accept.trim() !== '*/*') {
    const chosen = req.accepts(PROBLEM_TYPES);
    return typeof chosen === 'string' && /xml/.test(chosen);
  }
  const contentType = req.headers['content-type'];
  return contentType !== undefined && /\bxml\b/i.test(contentType);
}

function sendProblem(req: Request, res: Response, error: GatewayError): void {
  const ctx = getContext(res);
  const body = problemBody(error, ctx?.requestId);
  if (ctx) ctx.errorCode = error.code;
  res.status(error.status);
  if (error.headers) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.vary('Accept');
  let refusal: RenderedProblem | null = null;
  try {
    refusal = ctx?.refusalRenderer?.(body) ?? null;
  } catch {
    // A refusal that cannot be rendered must not cost the vendor its answer: the plain problem goes.
  }
  if (refusal) {
    res.type(refusal.mediaType).send(refusal.text);
  } else if (wantsXml(req)) {
    res.type('application/problem+xml').send(problemXml(body));
  } else {
    res.type('application/problem+json').send(JSON.stringify(body));
  }
}

/**
 * A whole HTTP/1.1 response carrying the problem, for errors Node raises before any request
 * object exists (an oversized header block): the server's clientError handler writes it to the
 * socket and closes the connection. Always JSON: no Accept header has been read.
 */
export function socketProblemResponse(error: GatewayError, requestId: string): string {
  const body = JSON.stringify(problemBody(error, requestId));
  return (
    `HTTP/1.1 ${error.status} ${ERROR_CATALOGUE[error.code].title}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return function errorHandler(err: unknown, req, res, _next) {
    const error = toGatewayError(err);
    if (error.status >= 500) logRequestFailure(logger, error, getContext(res)?.requestId);
    if (res.headersSent) {
      // The answer is already on the wire: the only honest signal left is a cut connection.
      res.destroy();
      return;
    }
    sendProblem(req, res, error);
  };
}
