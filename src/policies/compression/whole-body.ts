/**
 * The compression step's short road: an answer whose whole body is known at once (a buffered
 * answer's one `end(body)`, or a streamed answer whose first chunk is all its Content-Length) is
 * compressed in one synchronous zlib call, sent with Content-Length set to the compressed size.
 * A zlib stream per answer costs its own compressor state and a hop to libuv's thread pool per
 * chunk, which on the gateway's one core cost more than the compression itself (docs/performance.md,
 * "Compression levels"). Everything else (unknown length, several chunks, bodies above
 * `compression.wholeBodyMaxBytes`) goes on to the `compression` package's streams as before. The
 * coding is negotiated with negotiator, as the package does, with the package's list and tie order.
 *
 * Reads the same as the step (Accept-Encoding, the answer's Content-Type, Content-Length,
 * Content-Encoding, Cache-Control); sets Content-Encoding, Content-Length and `Vary:
 * Accept-Encoding` (the step's writeHead wrapper weakens the ETag).
 */
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';
import type { CompressionConfig } from './compression.schema';

/** As the `compression` package tests it. */
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;

type Encoding = 'br' | 'gzip' | 'deflate';
/** What the `compression` package offers and prefers on a tie (its SUPPORTED_ENCODING and PREFERRED_ENCODING). */
const AVAILABLE = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED = { preferred: ['br', 'gzip'] };

/** The coding the `compression` package would choose, negotiated as it does; null when that is none. */
function chosenEncoding(req: Request): Encoding | null {
  const chosen = new Negotiator(req).encoding(AVAILABLE, PREFERRED);
  return chosen === undefined || chosen === 'identity' ? null : (chosen as Encoding);
}

function compressWhole(body: Buffer, encoding: Encoding, config: CompressionConfig): Buffer {
  if (encoding === 'br') return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: config.brotliQuality } });
  if (encoding === 'gzip') return gzipSync(body, { level: config.gzipLevel });
  return deflateSync(body, { level: config.gzipLevel });
}

function chunkLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  return Buffer.isBuffer(chunk) ? chunk.length : -1;
}

type Write = Response['write'];
type End = Response['end'];

/**
 * Wraps `res.write` and `res.end` over the compression package's: the first body call decides.
 * A whole, eligible body goes compressed straight to `direct` (the response's own write and end,
 * as they were before the package wrapped them; its writeHead hook then sees the Content-Encoding
 * and stands aside); anything else, and every later call, goes to the package.
 */
export function compressWholeBodies(
  req: Request,
  res: Response,
  direct: { write: Write; end: End },
  config: CompressionConfig,
  isJsonOrXml: (req: Request, res: Response) => boolean,
): void {
  const viaPackage = { write: res.write, end: res.end };
  let decided = false;
  let sentWhole = false;

  /** `body` compressed, its headers set, when it is eligible; null leaves it to the package. */
  function compressedWhole(body: unknown, encodingArg: unknown): Buffer | null {
    const bytes = typeof body === 'string' ? Buffer.from(body, typeof encodingArg === 'string' ? (encodingArg as BufferEncoding) : 'utf8') : body;
    if (!Buffer.isBuffer(bytes) || res.headersSent || req.method === 'HEAD') return null;
    if (bytes.length < config.thresholdBytes || bytes.length > config.wholeBodyMaxBytes || !isJsonOrXml(req, res)) return null;
    const cacheControl = res.getHeader('Cache-Control');
    if (typeof cacheControl === 'string' && NO_TRANSFORM.test(cacheControl)) return null;
    const current = res.getHeader('Content-Encoding');
    if (current !== undefined && current !== 'identity') return null;
    const encoding = chosenEncoding(req);
    if (encoding === null) return null;
    const compressed = compressWhole(bytes, encoding, config);
    res.vary('Accept-Encoding');
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', compressed.length);
    sentWhole = true;
    return compressed;
  }
  const callbackIn = (args: unknown[]): Array<() => void> => args.filter((arg): arg is () => void => typeof arg === 'function');

  res.write = function writeWholeOrStream(this: Response, chunk: unknown, ...rest: unknown[]) {
    if (sentWhole) return true;
    if (!decided) {
      decided = true;
      // Only a first chunk that is the whole Content-Length: a later chunk would need the stream.
      const whole = chunkLength(chunk, rest[0]) === Number(this.getHeader('Content-Length')) ? compressedWhole(chunk, rest[0]) : null;
      if (whole !== null) return (direct.write as (...args: unknown[]) => boolean).call(this, whole, ...callbackIn(rest));
    }
    return (viaPackage.write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Write;

  res.end = function endWholeOrStream(this: Response, chunk?: unknown, ...rest: unknown[]) {
    const tail = typeof chunk === 'function' ? [chunk, ...rest] : rest;
    const end = direct.end as (...args: unknown[]) => Response;
    if (sentWhole) return end.call(this, ...callbackIn(tail));
    if (!decided) {
      decided = true;
      const whole = compressedWhole(chunk, rest[0]);
      if (whole !== null) return end.call(this, whole, ...callbackIn(tail));
    }
    return (viaPackage.end as (...args: unknown[]) => Response).call(this, chunk, ...rest);
  } as End;
}
