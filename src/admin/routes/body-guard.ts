/**
 * What an admin body must pass before it costs memory: its declared size, and its nesting depth
 * before a parser builds objects from it.
 *
 * A deeply nested body is cheap to send and dear to parse: `[[[[…]]]]` of 1 MB makes about
 * 500,000 arrays (tens of MB each, and seconds of a blocked event loop), and YAML's composer
 * takes gigabytes and seconds more on the same bytes before it gives up. So the raw bytes are
 * scanned first, in one pass without building anything, and a body nested deeper than
 * `MAX_BODY_DEPTH` is refused (400) before `JSON.parse` or the YAML parser sees it. No access
 * document, vendor or admin body comes near that depth (the deepest is about 5).
 *
 * Reads `Content-Length` and the raw body bytes; sets `Connection: close` on a refusal from the
 * headers, so the body that follows is never read. Errors are GatewayErrors.
 */
import type { NextFunction, RequestHandler, Response } from 'express';
import { CST, Lexer } from 'yaml';
import { GatewayError } from '../../errors/error-catalogue';

/** Deepest nesting of arrays and objects an admin body may have. */
export const MAX_BODY_DEPTH = 64;

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of a JSON text, counting brackets outside strings; stops as soon as it
 * passes `max`. Works on UTF-8 bytes: every byte of a multi-byte character is above 0x7f, so
 * none is taken for a bracket or a quote. Malformed JSON is left to the parser to refuse.
 */
export function jsonDepthExceeds(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) {
      // Most of a document is strings: jump to the closing quote (natively), not byte by byte.
      i = closingQuote(bytes, i);
      if (i < 0) return false;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The quote that ends the string opened at `open`: the next one after an even run of backslashes; -1 if none. */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

const FLOW_START = new Set(['flow-map-start', 'flow-seq-start']);
const FLOW_END = new Set(['flow-map-end', 'flow-seq-end']);
/** Block indicators that open one more level where they stand: `- - - x` is three sequences deep. */
const BLOCK_OPENERS = new Set(['seq-item-ind', 'explicit-key-ind', 'map-value-ind']);

/**
 * Whether a YAML text nests deeper than `max`, from YAML's own lexer (which knows its quoting
 * rules) without parsing: flow collections (`[`, `{`) by their depth, and block collections by
 * the indicators on one line (`- - - - x`). Block nesting by indentation needs one more column
 * per level, so its cost grows with the square of its depth and the size limit bounds it.
 */
export function yamlDepthExceeds(text: string, max: number): boolean {
  let flow = 0;
  let onLine = 0;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token) ?? '';
    if (type === 'newline') onLine = 0;
    else if (FLOW_START.has(type)) {
      if (++flow > max) return true;
    } else if (FLOW_END.has(type)) flow = Math.max(0, flow - 1);
    else if (BLOCK_OPENERS.has(type) && ++onLine > max) return true;
  }
  return false;
}

export function tooDeep(): GatewayError {
  return new GatewayError('invalid_request', `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`, {
    errors: [{ field: 'body', message: `at most ${MAX_BODY_DEPTH} levels of arrays and objects` }],
  });
}

/** `express.json`'s `verify`: refuses a body nested too deep before it is parsed. */
export function verifyJsonDepth(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (jsonDepthExceeds(bytes, MAX_BODY_DEPTH)) throw tooDeep();
}

/** A refusal before the body: the connection closes after the answer, so the body is never read. */
export function refuseUnread(next: NextFunction, res: Response, error: GatewayError): void {
  res.setHeader('Connection', 'close');
  next(error);
}

/** Whether the request comes with a body (that nothing has read yet, when this runs before the parser). */
export const announcesBody = (headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean =>
  (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;

/**
 * 413 from `Content-Length` alone when it announces more than `limit` bytes, before a byte of
 * the body is read. A chunked body has no length up front; the parser's own limit stops it.
 */
export function declaredSizeAtMost(limit: number, what = 'The request body'): RequestHandler {
  return function declaredSize(req, res, next) {
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > limit) {
      refuseUnread(next, res, new GatewayError('payload_too_large', `${what} is larger than ${limit} bytes.`));
      return;
    }
    next();
  };
}
