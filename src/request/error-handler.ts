/**
 * The error handler: the only place that writes an error body, as RFC 9457 problem details.
 *
 * Reads the error (a GatewayError, a body-parser error, or anything else) and the request's
 * Accept header; sets the status, the error's headers and an application/problem+json body
 * (application/problem+xml when the client asked for XML). Invalid input of a receipt
 * operation is the exception the contract makes (README "Receipts"): it is answered as the
 * receipt itself, with `errorMessage` and the problem alongside (see `receiptRefusal`). Anything that is not a known
 * error becomes a 500 `internal_error` whose detail says nothing of the cause; the cause is
 * logged with the request id so an operator can find it.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { ERROR_CATALOGUE, GatewayError, problemType, StoreUnavailableError, type ErrorCode } from '../errors/error-catalogue';
import { logRequestFailure } from './request-failure-log';
import type { Logger } from '../logging/logger';
import { escapeXmlText } from '../xml/xml-text';
import type { BodyContracts } from '../contracts/body-contract';
import { renderAnswerForVendor } from '../contracts/registry';
import { getContext } from './context';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string | undefined;
  errors?: ReadonlyArray<{ field: string; message: string }>;
  /** A pending change's preview against the config in force (409 on approving a change the config outgrew). */
  preview?: unknown;
}

/** Maps errors thrown by Node and Express internals (body parsers, sockets) to the catalogue. */
export function toGatewayError(err: unknown): GatewayError {
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

export function problemBody(error: GatewayError, requestId: string | undefined): ProblemBody {
  const body: ProblemBody = {
    type: problemType(error.code),
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  if (error.preview !== undefined) body.preview = error.preview;
  return body;
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

/** RFC 9457 appendix B: the XML form, in the urn:ietf:rfc:7807 namespace (a whole document, or an element to place in one). */
function problemXml(body: ProblemBody, document = true): string {
  const el = (name: string, value: string | number | undefined): string =>
    value === undefined ? '' : `<${name}>${escapeXmlText(String(value))}</${name}>`;
  const errors = body.errors
    ? `<errors>${body.errors.map((e) => `<i>${el('field', e.field)}${el('message', e.message)}</i>`).join('')}</errors>`
    : '';
  return (
    (document ? '<?xml version="1.0" encoding="UTF-8"?>' : '') +
    `<problem xmlns="urn:ietf:rfc:7807">${el('type', body.type)}${el('title', body.title)}${el('status', body.status)}` +
    `${el('detail', body.detail)}${el('code', body.code)}${el('requestId', body.requestId)}${errors}</problem>`
  );
}

/**
 * Invalid input of a receipt operation, answered as the receipt (the spec: "Receipt bodies carry
 * an ErrorMessage string for errors from invalid input"), so a .NET client that deserializes the
 * DTO finds the message, as it does in the core's own 400: what could be read of the body (never a
 * secret), `errorMessage` (the detail and every bad field) and `hasOverride: false`; or, when the
 * core refused the posting with a receipt (any 4xx: its 400 or 409 with `errorMessage`, its 422
 * with `transactionOverrides`), that receipt with its own members only (exchange.ts); in the format
 * and namespace a receipt answer takes. The problem goes alongside: its members at the top level
 * in JSON (`application/problem+json`; the problem's `status` wins over a receipt's), its XML form
 * as the last child in XML, whose root must be the DTO (DataContractSerializer skips the child).
 * Null when the error is not one.
 */
function receiptRefusal(res: Response, problem: ProblemBody, contracts: BodyContracts): { mediaType: string; text: string } | null {
  const ctx = getContext(res);
  const contract = ctx?.route?.bodySchema ? contracts.get(ctx.route.bodySchema) : undefined;
  const form = ctx?.body ?? ctx?.refusedBody;
  const coreReceipt = ctx?.coreRefusedReceipt ?? null;
  if ((problem.code !== 'invalid_request' && coreReceipt === null) || !contract?.refusesAsBody || !form) return null;
  const errorMessage = [problem.detail, ...(problem.errors ?? []).map((e) => `${e.field}: ${e.message}`)].join(' ');
  // The core's own receipt, its contract members only (its errorMessage, or its overrides).
  const echoed = coreReceipt ?? (stringifyLossless({ ...form.value, errorMessage, hasOverride: false }) as string);
  const receipt = renderAnswerForVendor(contract, echoed, form.responseFormat, form.responseXmlNamespace);
  if (form.responseFormat === 'xml') {
    const close = receipt.lastIndexOf('</');
    return { mediaType: form.responseMediaType, text: `${receipt.slice(0, close)}${problemXml(problem, false)}${receipt.slice(close)}` };
  }
  const members = parseLossless(receipt) as Record<string, unknown>;
  const problemNames = new Set(Object.keys(problem).map((name) => name.toLowerCase()));
  const kept = Object.fromEntries(Object.entries(members).filter(([name]) => !problemNames.has(name.toLowerCase())));
  return { mediaType: 'application/problem+json', text: stringifyLossless({ ...kept, ...problem }) as string };
}

export function sendProblem(req: Request, res: Response, error: GatewayError, contracts: BodyContracts = NO_CONTRACTS): void {
  const requestId = getContext(res)?.requestId;
  const body = problemBody(error, requestId);
  res.status(error.status);
  if (error.headers) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.vary('Accept');
  let refusal: ReturnType<typeof receiptRefusal> = null;
  try {
    refusal = receiptRefusal(res, body, contracts);
  } catch {
    // An echo that cannot be written must not cost the vendor its answer: the plain problem goes.
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

const NO_CONTRACTS: BodyContracts = new Map();

/** `contracts`: the vendor port's body contracts, for receipts refused as invalid (none on the admin port). */
export function createErrorHandler(logger: Logger, contracts: BodyContracts = NO_CONTRACTS): ErrorRequestHandler {
  return function errorHandler(err: unknown, req, res, _next) {
    const error = toGatewayError(err);
    if (error.status >= 500) logRequestFailure(logger, error, getContext(res)?.requestId);
    if (res.headersSent) {
      // The answer is already on the wire: the only honest signal left is a cut connection.
      res.destroy();
      return;
    }
    sendProblem(req, res, error, contracts);
  };
}
