/**
 * The keyless public files of the vendor port (`/openapi.json`, `/docs` and its assets,
 * `/docs/collection.json`), served alike, by one pipeline step right after the request context
 * (so each answer has its X-Request-Id, access-log line and metrics, as `unmatched`: they are not
 * API ids) and before any key is asked for: read or built once at start-up (the collection once
 * per public origin, on first use), readable from any origin (they hold no secret; documentation
 * sites fetch them from the browser), with an ETag a client revalidates with If-None-Match (304),
 * and the reference page's strict Content-Security-Policy (harmless on the other files, and one
 * policy to read). A file of 1 KiB or more goes br- or gzip-encoded to a client that accepts it,
 * each encoding compressed once, on first use, and given its own ETag: the Swagger UI bundle is
 * 1.7 MB, and compressing it per request would let any keyless caller spend the gateway's CPU.
 *
 * Reads the request's Accept-Encoding and If-None-Match; sets the answer's headers and body.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import type { PublicFileLimit } from './public-file-limit';

/**
 * Swagger UI sets styles through the DOM (allowed by `style-src 'self'`), draws its icons as
 * `data:` images, and fetches the document (and, with "Try it out", the API) from this origin.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const EXPOSED_HEADERS = 'ETag, X-Request-Id';

/** What a cross-origin script may send to, and read from, the public paths (their CORS preflight). */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD',
  'Access-Control-Allow-Headers': 'Accept, If-None-Match, X-Request-Id',
  'Access-Control-Max-Age': '86400',
};

/** Below this, an encoding saves too little to be worth a second representation. */
const ENCODE_FROM_BYTES = 1024;

type Encoding = 'br' | 'gzip';

/** One representation of a file: its bytes and their validator. */
interface Representation {
  readonly body: Buffer;
  readonly etag: string;
}

export interface PublicFile extends Representation {
  readonly type: string;
  /** Encoded representations, made on first use. */
  readonly encoded: Map<Encoding, Representation>;
}

export function publicFile(body: string | Buffer, type: string): PublicFile {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`, encoded: new Map() };
}

/** The file in `encoding`, compressed once (brotli at a middle quality: the best ones take seconds on 1.7 MB). */
function encodedRepresentation(file: PublicFile, encoding: Encoding): Representation {
  let representation = file.encoded.get(encoding);
  if (!representation) {
    const body = encoding === 'br' ? brotliCompressSync(file.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 6 } }) : gzipSync(file.body, { level: 9 });
    representation = { body, etag: `${file.etag.slice(0, -1)}-${encoding}"` };
    file.encoded.set(encoding, representation);
  }
  return representation;
}

/** A file, or one chosen per request (the API description names the gateway's URL as the request resolves it). */
type PublicFileSource = PublicFile | ((req: http.IncomingMessage) => PublicFile);

/**
 * The public files as one pipeline step: GET and HEAD of a file's path answer it, OPTIONS
 * answers the CORS preflight (204, any origin, whatever `cors.allowedOrigins` says for the keyed
 * API: a documentation site revalidating with If-None-Match would otherwise meet the keyed
 * pipeline's 401); anything else goes on to the next step. A GET or HEAD first passes `limit`
 * (public-file-limit.ts: per client address), else answers its 429. One map lookup per request instead of a router layer per path: every API call
 * passes here. Paths match as Express routes do by default: any letter case, one trailing slash.
 */
export function publicFileRoutes(files: ReadonlyArray<readonly [string, PublicFileSource]>, limit?: PublicFileLimit): RequestHandler {
  const byPath = new Map(files.map(([path, file]) => [path.toLowerCase(), file]));
  return function publicFileRoute(req, res, next) {
    const { path } = req;
    const source = byPath.get((path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase());
    if (source === undefined) return next();
    if (req.method === 'OPTIONS') {
      res.set(PREFLIGHT_HEADERS).status(204).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // Chosen only once the limit lets the request through: a file per origin may be built (and
    // serialised) on first use, which a refused client must not be able to make the gateway do.
    const chosen = (): PublicFile => (typeof source === 'function' ? source(req) : source);
    if (!limit) return serve(chosen(), req, res);
    limit(req)
      .then((refusal) => (refusal ? next(refusal) : serve(chosen(), req, res)))
      .catch(next);
  };
}

function serve(file: PublicFile, req: Request, res: Response): void {
  const accepted = file.body.length >= ENCODE_FROM_BYTES ? req.acceptsEncodings('br', 'gzip', 'identity') : 'identity';
  const encoding = accepted === 'br' || accepted === 'gzip' ? accepted : null;
  const representation = encoding ? encodedRepresentation(file, encoding) : file;
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (file.body.length >= ENCODE_FROM_BYTES) res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', representation.etag);
  if (notModified(req.headers['if-none-match'], representation.etag)) {
    res.status(304).end();
    return;
  }
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.type(file.type).send(representation.body);
}

/** RFC 9110's If-None-Match: `*`, or any listed tag equal to ours by weak comparison (a `W/` prefix ignored). */
function notModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
