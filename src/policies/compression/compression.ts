/**
 * Pipeline step: compress the vendor API's JSON and XML answers (problems included) with gzip,
 * br or deflate, whichever the client's Accept-Encoding prefers, when they are at least
 * `compression.thresholdBytes` long. An answer whose whole body comes at once (up to `compression.wholeBodyMaxBytes`) is
 * compressed in one synchronous call and sent with its compressed Content-Length (whole-body.ts);
 * other answers are compressed as they flow, chunk by chunk, so a large list is never held whole.
 *
 * Reads Accept-Encoding, and the answer's Content-Type, Content-Length and Content-Encoding as
 * later steps set them; sets Content-Encoding and `Vary: Accept-Encoding`, and makes an encoded
 * answer's ETag weak. Never compresses an
 * answer the core already encoded (its Content-Encoding passes through as it came), a HEAD, or
 * anything but JSON and XML. Built on the `compression` package (zlib underneath), at
 * `compression.gzipLevel` (gzip, deflate) and `compression.brotliQuality` (br).
 */
import { constants } from 'node:zlib';
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';
import type { CompressionConfig } from './compression.schema';
import { compressWholeBodies } from './whole-body';

/** application/json, text/json, application/xml, text/xml and their +json/+xml kin (problem+json, problem+xml). */
const JSON_OR_XML = /^(?:application|text)\/(?:[\w.-]+\+)?(?:json|xml)\s*(?:;|$)/i;

function isJsonOrXml(_req: Request, res: Response): boolean {
  const type = res.getHeader('Content-Type');
  return typeof type === 'string' && JSON_OR_XML.test(type);
}

/**
 * An encoded answer's ETag turns weak (`W/"…"`): the core's strong validator names the identity
 * bytes, and RFC 9110 gives each content coding a validator of its own; If-None-Match compares
 * weakly, so revalidation still works. Wrapped before the compression package wraps writeHead,
 * so this runs after it has chosen (and set) the encoding.
 */
function weakenEtagWhenEncoded(res: Response): void {
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadWithWeakEtag(this: Response, ...args: Parameters<Response['writeHead']>) {
    const etag = this.getHeader('ETag');
    if (typeof etag === 'string' && !etag.startsWith('W/') && this.getHeader('Content-Encoding') !== undefined) this.setHeader('ETag', `W/${etag}`);
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}

/** Null when `compression.enabled` is false: the chain then has no such step at all. */
export function compressAnswers(config: CompressionConfig): RequestHandler | null {
  if (!config.enabled) return null;
  const compress = compression({
    threshold: config.thresholdBytes,
    filter: isJsonOrXml,
    level: config.gzipLevel,
    brotli: { params: { [constants.BROTLI_PARAM_QUALITY]: config.brotliQuality } },
  });
  return function compressionStep(req, res, next) {
    // No Accept-Encoding: identity whatever the answer, so the per-request wrapping is skipped (a
    // cost every such call would pay); Vary is moot there too, every answer being no-store.
    if (req.headers['accept-encoding'] === undefined) {
      next();
      return;
    }
    weakenEtagWhenEncoded(res);
    if (config.wholeBodyMaxBytes === 0) {
      compress(req, res, next);
      return;
    }
    const direct = { write: res.write, end: res.end };
    compress(req, res, () => {
      compressWholeBodies(req, res, direct, config, isJsonOrXml);
      next();
    });
  };
}
