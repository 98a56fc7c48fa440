/**
 * Pipeline step: the request body. Routes that take none pass untouched (the framing step has
 * refused a body on them). Routes without a body schema (resource POST and PUT) get their body
 * read whole, up to `core.maxStreamedBodyBytes` (413 past it) in one of the route's media types
 * (415 otherwise), into ctx.rawBody: the core client frames it itself and starts the core's
 * clock only once it has the whole body. Routes with a body schema (receipts, bank accounts):
 * size, media type, parsing, validation, in order:
 * - a declared Content-Length above `maxBytes` → 413 at once, before reading a byte;
 * - Content-Type must be one of the route's media types the contract reads (receipts:
 *   application/json, text/json, application/xml, text/xml), charset UTF-8 if stated, and no
 *   Content-Encoding → else 415 naming the accepted types;
 * - the body is read up to `maxBytes` (chunked bodies too) → 413 past it; both early answers
 *   close the connection rather than drain an unwanted body;
 * - strict UTF-8, then JSON (lossless, nesting ≤ maxDepth) or safe XML → 400 when malformed;
 * - the contract validates → one 400 listing every bad field.
 * Sets `ctx.body` (schema routes): canonical value, the JSON text for the core, and the negotiated response
 * format (`Accept`, else the request's own media type) and XML namespace (the request's, else
 * `xml.responseNamespace`). A contract that answers invalid input as the body itself (receipts)
 * also gets `ctx.refusalRenderer` (contracts/refusal-answer.ts), from the body or, refused as
 * invalid, from what was read of it: the error handler answers with it.
 * The body is read by hand (a bounded buffer of chunks) rather than with body-parser, which
 * drains the whole of an oversized body before it answers 413.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { parseJsonBody } from '../../contracts/json-codec';
import { InvalidBodyError, type BodyContracts, type ParsedDocument, type WireFormat } from '../../contracts/body-contract';
import { invalidInputRenderer } from '../../contracts/refusal-answer';
import { GatewayError } from '../../errors/error-catalogue';
import { context, type OpaqueBody } from '../../request/context';
import { SafeXmlParser } from '../../xml/safe-xml';
import type { BodyConfig } from './body.schema';

interface BodyDeps {
  readonly contracts: BodyContracts;
  /** Largest body of a route without a body schema (`core.maxStreamedBodyBytes`). */
  readonly opaqueMaxBytes: number;
  /** Namespace of an XML answer to a request that named none (`xml.responseNamespace`). */
  readonly defaultXmlNamespace: string;
}

const FORMAT_OF: Readonly<Record<string, WireFormat>> = {
  'application/json': 'json',
  'text/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
};

/** The connection is closed after an early answer, so an unread body is not drained. */
const CLOSE = { Connection: 'close' } as const;

interface MediaType {
  readonly type: string;
  readonly charset: string | undefined;
}

function parseMediaType(header: string | undefined): MediaType | null {
  if (header === undefined || header.trim() === '') return null;
  const [typePart = '', ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() === 'charset')
      charset = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
  }
  return { type: typePart.trim().toLowerCase(), charset };
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, { headers: CLOSE });
}

function unsupported(detail: string, accepted: readonly string[]): GatewayError {
  return new GatewayError('unsupported_media_type', `${detail} Send the body as one of: ${accepted.join(', ')} (UTF-8).`, { headers: CLOSE });
}

/** Reads the whole body, refusing it as soon as it passes `maxBytes`. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new GatewayError('invalid_request', 'The request body could not be read to its end.', { cause: err }));
    };
    const onClose = (): void => {
      if (!req.complete) onError(new Error('connection closed before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Accept decides; without one (or with only a full wildcard) the answer uses the request's own media type. */
function negotiate(req: Request, requestType: string, produces: readonly string[]): string {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '' || accept.trim() === '*/*') return requestType;
  const family = FORMAT_OF[requestType];
  // Wildcards (`application/*`) resolve to the request's own type or family first.
  const candidates = [requestType, ...produces.filter((t) => t !== requestType && FORMAT_OF[t] === family), ...produces.filter((t) => FORMAT_OF[t] !== family)];
  const chosen = req.accepts(candidates);
  // No 406 in the error catalogue: an Accept we cannot meet gets the request's own type.
  return typeof chosen === 'string' ? chosen : requestType;
}

/** Whether the request has a body at all (a length above zero, or chunks). */
function hasBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared !== '0');
}

/**
 * The body of a route the gateway does not parse (resource POST and PUT), read whole so that the
 * core gets it with the gateway's own framing and the core's time starts once it is sent.
 */
async function readOpaqueBody(req: Request, consumes: readonly string[], maxBytes: number): Promise<OpaqueBody> {
  if (!hasBody(req)) return { bytes: Buffer.alloc(0), contentType: null };
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const mediaType = parseMediaType(req.headers['content-type']);
  if (mediaType === null || !consumes.includes(mediaType.type)) throw unsupported('This operation does not accept that Content-Type.', consumes);
  if (mediaType.charset !== undefined && mediaType.charset !== 'utf-8') throw unsupported('The body must be UTF-8.', consumes);
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw unsupported('Content-Encoding is not supported.', consumes);
  const bytes = await readBody(req, maxBytes);
  return { bytes, contentType: req.headers['content-type'] as string };
}

/** A body's bytes → parsed document (strict UTF-8, then JSON or safe XML); throws a 400 when that fails. */
/** Which UTF an XML body is in: its byte order mark first, then the charset, else UTF-8. */
function xmlEncoding(raw: Uint8Array, charset: string | undefined): 'utf-8' | 'utf-16le' | 'utf-16be' {
  if (raw[0] === 0xff && raw[1] === 0xfe) return 'utf-16le';
  if (raw[0] === 0xfe && raw[1] === 0xff) return 'utf-16be';
  if (charset === 'utf-16le') return 'utf-16le';
  // UTF-16 without a mark is big-endian (RFC 2781 §4.3).
  if (charset === 'utf-16' || charset === 'utf-16be') return 'utf-16be';
  return 'utf-8';
}

const XML_CHARSETS = new Set(['utf-8', 'utf-16', 'utf-16le', 'utf-16be']);

export class BodyParser {
  private readonly xml: SafeXmlParser;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(private readonly maxDepth: number) {
    this.xml = new SafeXmlParser(maxDepth);
  }

  /** `charset` from Content-Type; XML may also come in UTF-16 (what .NET's StringWriter writes), JSON never (RFC 8259). */
  parse(raw: Uint8Array, format: WireFormat, charset?: string): ParsedDocument {
    if (raw.length === 0) throw new GatewayError('invalid_request', 'The request body is empty.');
    const encoding = format === 'xml' ? xmlEncoding(raw, charset) : 'utf-8';
    let text: string;
    try {
      // A byte order mark (which .NET clients send) is dropped here.
      text = encoding === 'utf-8' ? this.utf8.decode(raw) : new TextDecoder(encoding, { fatal: true }).decode(raw);
    } catch {
      throw new GatewayError('invalid_request', `The request body is not valid ${encoding === 'utf-8' ? 'UTF-8' : 'UTF-16'}.`);
    }
    return format === 'json' ? { format, json: parseJsonBody(text, this.maxDepth) } : { format, xml: this.xml.parse(text) };
  }
}

/** The namespace an XML answer is written in: the request's own when it sent XML that named one. */
function xmlNamespaceOf(document: ParsedDocument | undefined, fallback: string): string {
  return document?.format === 'xml' && document.xml.namespace !== '' ? document.xml.namespace : fallback;
}

export function body(config: BodyConfig, deps: BodyDeps): RequestHandler {
  const parser = new BodyParser(config.maxDepth);

  return function bodyStep(req, res, next) {
    const ctx = context(res);
    const route = ctx.route;
    const contract = route?.bodySchema ? deps.contracts.get(route.bodySchema) : undefined;
    if (!route || route.consumes.length === 0) {
      next();
      return;
    }
    if (!contract) {
      readOpaqueBody(req, route.consumes, deps.opaqueMaxBytes).then((opaque) => {
        ctx.rawBody = opaque;
        next();
      }, next);
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > config.maxBytes) {
      next(tooLarge(config.maxBytes));
      return;
    }
    const accepted = route.consumes.filter((t) => contract.formats.includes(FORMAT_OF[t] as WireFormat));
    const mediaType = parseMediaType(req.headers['content-type']);
    if (mediaType === null) {
      next(unsupported('The request has no Content-Type.', accepted));
      return;
    }
    const requestFormat = accepted.includes(mediaType.type) ? FORMAT_OF[mediaType.type] : undefined;
    if (requestFormat === undefined) {
      next(unsupported('This operation does not accept that Content-Type.', accepted));
      return;
    }
    if (mediaType.charset !== undefined && !(mediaType.charset === 'utf-8' || (requestFormat === 'xml' && XML_CHARSETS.has(mediaType.charset)))) {
      next(unsupported(requestFormat === 'xml' ? 'An XML body must be UTF-8 or UTF-16.' : 'The body must be UTF-8.', accepted));
      return;
    }
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      next(unsupported('Content-Encoding is not supported.', accepted));
      return;
    }
    const produces = route.produces.filter((t) => contract.formats.includes(FORMAT_OF[t] as WireFormat));
    const responseMediaType = negotiate(req, mediaType.type, produces);

    const responseFormat = FORMAT_OF[responseMediaType] as WireFormat;
    readBody(req, config.maxBytes)
      .then((raw) => {
        // The translation itself (parse, validate, canonical JSON), not the upload before it.
        const span = ctx.trace?.child('body translation', { 'cbg.format': requestFormat, 'cbg.bytes': raw.length });
        let document: ParsedDocument | undefined;
        try {
          document = parser.parse(raw, requestFormat, mediaType.charset);
          const decoded = contract.decode(document);
          ctx.body = {
            value: decoded.value,
            coreJson: decoded.coreJson,
            requestFormat,
            responseFormat,
            responseMediaType,
            responseXmlNamespace: xmlNamespaceOf(document, deps.defaultXmlNamespace),
          };
          ctx.refusalRenderer = invalidInputRenderer(contract, ctx.body);
        } catch (err) {
          // Receipts answer invalid input as the receipt itself: what was read goes to the error handler's renderer.
          if (err instanceof GatewayError && err.code === 'invalid_request') {
            const read = err instanceof InvalidBodyError ? err.readValue : {};
            ctx.refusalRenderer = invalidInputRenderer(contract, {
              value: read,
              responseFormat,
              responseMediaType,
              responseXmlNamespace: xmlNamespaceOf(document, deps.defaultXmlNamespace),
            });
          }
          throw err;
        } finally {
          span?.end();
        }
      })
      .then(() => next(), next);
  };
}
