/**
 * Pipeline step: refuses requests whose framing the gateway will not vouch for, before any
 * other step reads them. The gateway frames every request to the core itself (see the core
 * client), and these are the requests that ask it to do otherwise:
 * - a `Connection` header naming Content-Length, Transfer-Encoding or Host: hop-by-hop removal
 *   of a framing or routing header is how a body is smuggled to the core as a second request;
 * - a body on a method the catalogue gives none (GET, HEAD, DELETE). Refused rather than
 *   dropped: a vendor sending one has a bug or an intent, and either deserves a clear 400
 *   instead of a silent difference between what it sent and what the core received.
 * - a transfer coding other than plain `chunked` (`gzip, chunked`, two Transfer-Encoding
 *   lines): Node decodes the chunks and drops the rest without a word, so the core would get
 *   a body the vendor did not send in that form.
 * Each answer closes the connection, so the unread body is never taken for a request.
 *
 * Reads the method and the Connection, Content-Length and Transfer-Encoding headers (Node has
 * already refused malformed framing: CL with TE, conflicting lengths, a last coding that is
 * not chunked, repeated chunked).
 */
import type { RequestHandler } from 'express';
import { GatewayError } from '../../errors/error-catalogue';

const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'host']);
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);
const CLOSE = { Connection: 'close' } as const;

/** Whether a Connection header lists a framing or routing header. */
export function connectionNamesFraming(connection: string | undefined): boolean {
  if (connection === undefined) return false;
  for (const token of connection.split(',')) if (FRAMING_HEADERS.has(token.trim().toLowerCase())) return true;
  return false;
}

export function framing(): RequestHandler {
  return function framingStep(req, _res, next) {
    const { headers } = req;
    if (connectionNamesFraming(headers.connection)) {
      throw new GatewayError('invalid_request', 'The Connection header may not name Content-Length, Transfer-Encoding or Host.', {
        errors: [{ field: 'Connection', message: 'must not name Content-Length, Transfer-Encoding or Host' }],
        headers: CLOSE,
      });
    }
    const codings = headers['transfer-encoding'];
    if (codings !== undefined && codings.trim().toLowerCase() !== 'chunked') {
      throw new GatewayError('invalid_request', 'The only transfer coding accepted is chunked.', {
        errors: [{ field: 'Transfer-Encoding', message: 'must be chunked' }],
        headers: CLOSE,
      });
    }
    if (
      BODYLESS_METHODS.has(req.method) &&
      (headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0'))
    ) {
      throw new GatewayError('invalid_request', `A ${req.method} request carries no body.`, {
        errors: [{ field: 'body', message: `not allowed on ${req.method}` }],
        headers: CLOSE,
      });
    }
    next();
  };
}
