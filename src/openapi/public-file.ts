/**
 * The keyless public files of the vendor port (`/openapi.json`, `/docs` and its assets), served
 * alike: read or built once at start-up, readable from any origin (they hold no secret;
 * documentation sites fetch them from the browser), with an ETag a client revalidates with
 * If-None-Match (304), an X-Request-Id like every other answer, and the reference page's strict
 * Content-Security-Policy (harmless on the other files, and one policy to read).
 *
 * Reads nothing; sets the answer's headers and body.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * Swagger UI sets styles through the DOM (allowed by `style-src 'self'`), draws its icons as
 * `data:` images, and fetches the document (and, with "Try it out", the API) from this origin.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
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

export interface PublicFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

export function publicFile(body: string | Buffer, type: string): PublicFile {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

/** `trustedRequestId`: a client's X-Request-Id matching it is kept (request-context's rule), so a vendor can quote it. */
export function servePublicFile(file: PublicFile, trustedRequestId: RegExp): RequestHandler {
  return function publicFileAnswer(req, res) {
    const sent = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof sent === 'string' && trustedRequestId.test(sent) ? sent : randomUUID());
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('ETag', file.etag);
    if (notModified(req.headers['if-none-match'], file.etag)) {
      res.status(304).end();
      return;
    }
    res.type(file.type).send(file.body);
  };
}

/** RFC 9110's If-None-Match: `*`, or any listed tag equal to ours by weak comparison (a `W/` prefix ignored). */
function notModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
