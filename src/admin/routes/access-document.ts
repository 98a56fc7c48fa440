/**
 * The whole access document, `/v1/access`: `GET` exports it (JSON, or YAML when asked for by
 * name), `PUT` replaces it (or, with `?dryRun=true`, only validates it and answers at once).
 *
 * Reads `Accept`, `If-Match` (the version a replacement expects; `*` or none means any) and a
 * JSON or YAML body (`application/yaml`, `text/yaml`, `application/x-yaml`) of up to
 * `maxDocumentBytes`. Sets `ETag` (the document's version) and appends an `access.read` audit
 * entry before each export: the document holds every key's hash, so a read is recorded like a
 * write, and refused (503 `store_unavailable`) when the audit log cannot record it. The export
 * is streamed; a replacement goes through `submit` like any other write.
 *
 * A whole document costs memory before it costs anything else (a 64 MiB body parses to several
 * hundred MB), so a `PUT` is refused before a byte of its body is read unless the admin may
 * write (403), its `Content-Length` is within the limit (413), and no other whole document is
 * being read or parsed on this instance (429 `rate_limited` with Retry-After). A refusal closes
 * the connection, so the body that follows is not read either, and a client that sent
 * `Expect: 100-continue` is invited to send its body only once all of these hold. A JSON or
 * YAML document nested deeper than MAX_BODY_DEPTH is refused (400) before it is parsed
 * (body-guard.ts): parsing deep nesting costs far more than its size.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { parse as parseYaml } from 'yaml';
import { GatewayError } from '../../errors/error-catalogue';
import { authenticatedAdmin } from '../admin-context';
import { MAX_BODY_DEPTH, refuseUnread, tooDeep, verifyJsonDepth, yamlDepthExceeds } from './body-guard';
import { accepts, can, inviteBody, JSON_TYPES, methodNotAllowed, ok, queryFlag, type Responder, type Routes } from './route-kit';

const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml'];

/** How long a refused upload is asked to wait: about what parsing the largest document takes. */
const UPLOAD_RETRY_AFTER_SECONDS = '5';

/**
 * What must hold before a whole document's body is read, cheapest first: the role, the declared
 * size, and the one upload this instance parses at a time (held until the answer is sent, or
 * the client goes).
 */
function beforeTheBody(limit: number): RequestHandler[] {
  let uploading = false;
  const role = can('write');
  return [
    function writerOnly(req, res, next) {
      role(req, res, (err?: unknown) => (err ? refuseUnread(next, res, err as GatewayError) : next()));
    },
    function declaredSize(req, res, next) {
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > limit) {
        refuseUnread(next, res, new GatewayError('payload_too_large', `The access document is larger than admin.maxDocumentBytes (${limit} bytes).`));
        return;
      }
      next();
    },
    function oneUploadAtATime(_req, res, next) {
      if (uploading) {
        refuseUnread(
          next,
          res,
          new GatewayError('rate_limited', 'Another access document is being uploaded to this instance; retry shortly.', {
            headers: { 'Retry-After': UPLOAD_RETRY_AFTER_SECONDS },
          }),
        );
        return;
      }
      uploading = true;
      res.once('close', () => (uploading = false));
      next();
    },
  ];
}

/** `PUT /v1/access` also takes YAML, so `gatewayctl apply -f file.yaml` sends the file as it is. */
const accessDocumentBody = (limit: number): RequestHandler[] => [
  ...beforeTheBody(limit),
  accepts([...JSON_TYPES, ...YAML_TYPES]),
  inviteBody,
  express.json({ limit, verify: verifyJsonDepth }),
  express.text({ type: YAML_TYPES, limit }),
];

/** `If-Match: "7"` (or `7`) as a version; `*` means any; anything else is a bad request. */
function ifMatchVersion(req: Request): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!match?.[1]) {
    throw new GatewayError('invalid_request', 'If-Match must be an access document version, e.g. "7".', {
      errors: [{ field: 'If-Match', message: 'a version number from GET /v1/access' }],
    });
  }
  return Number(match[1]);
}

/** The document as sent: parsed JSON, or YAML text parsed here (a YAML syntax error is a 400). */
function accessBody(req: Request): unknown {
  if (typeof req.body !== 'string') return req.body;
  // YAML's parser spends seconds and gigabytes on deep nesting before it fails: count it first.
  if (yamlDepthExceeds(req.body, MAX_BODY_DEPTH)) throw tooDeep();
  try {
    return parseYaml(req.body);
  } catch (err) {
    throw new GatewayError('invalid_request', `The body is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
}

/** Writes text pieces, waiting whenever the socket's buffer is full, so a large answer never piles up in memory. */
async function streamText(res: Response, chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  }
  res.end();
}

export function registerAccessDocument(router: Router, { service, submit, audit, maxDocumentBytes }: Routes): void {
  const answerWithVersion: Responder = (req, res, result) => {
    res.setHeader('ETag', `"${(result as { version: number }).version}"`);
    ok(req, res, result);
  };
  const [, applyDocument] = submit(answerWithVersion, 'replaceDocument', (req) => {
    const document = accessBody(req);
    // The parsed body can be 100 MB: let it go as soon as the service has validated its copy.
    req.body = undefined;
    return [document, { expectedVersion: ifMatchVersion(req), ...(queryFlag(req, 'allowEmpty') ? { allowEmpty: true } : {}) }];
  });
  router
    .route('/access')
    .get(async function exportAccess(req: Request, res: Response) {
      // JSON unless YAML is asked for by name (the web UI edits the document as YAML).
      const format = req.accepts(['application/json', 'application/yaml']) === 'application/yaml' ? 'yaml' : 'json';
      const { version, chunks } = await service.exportDocument(format);
      // The whole document holds every key's hash: who read it, and when, is on record.
      try {
        await audit.append({ actor: authenticatedAdmin(res), action: 'access.read', target: 'access', before: null, after: { version } });
      } catch (err) {
        throw new GatewayError('store_unavailable', 'The audit log is unavailable, so the access document cannot be read now; retry shortly.', {
          cause: err,
          headers: { 'Retry-After': '1' },
        });
      }
      res.setHeader('ETag', `"${version}"`);
      res.setHeader('Vary', 'Accept');
      res.type(format === 'yaml' ? 'application/yaml' : 'application/json');
      await streamText(res, chunks);
    })
    // `applyDocument` is `submit`'s write without its role check: the check is in
    // accessDocumentBody instead, before the body is read, so that it covers the dry run too.
    .put(...accessDocumentBody(maxDocumentBytes), async function putAccess(req: Request, res: Response, next: NextFunction) {
      // A dry run only reads: it answers at once, approvals or not.
      if (!queryFlag(req, 'dryRun')) {
        await (applyDocument as RequestHandler)(req, res, next);
        return;
      }
      const { result } = await service.replaceDocument(accessBody(req), authenticatedAdmin(res), {
        dryRun: true,
        expectedVersion: ifMatchVersion(req),
        allowEmpty: queryFlag(req, 'allowEmpty'),
      });
      answerWithVersion(req, res, result);
    })
    .all(methodNotAllowed('GET, PUT'));
}
