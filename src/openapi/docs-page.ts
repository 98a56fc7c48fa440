/**
 * The API reference page on the vendor port: `GET /docs`, rendered in the browser by Swagger UI
 * from the served `/openapi.json`, with nothing fetched from anywhere but the gateway itself.
 *
 * Reads Swagger UI's bundle and style sheet from the `swagger-ui-dist` package once, at start-up
 * (it is a runtime dependency, so the image carries it), and serves them under `/docs/assets/`
 * beside a small init script of our own. Sets, on every answer: a strict Content-Security-Policy
 * (no inline script or style, no CDN, no framing), `X-Request-Id`, `Access-Control-Allow-Origin: *`
 * (like `/openapi.json`: public, no secret), and an `ETag` that a client revalidates with
 * `If-None-Match` (304). Keyless, like the document it renders: vendors read it before they hold
 * a key. A browser's CORS preflight (`OPTIONS`) to these paths and to `/openapi.json` is answered
 * here too (204, any origin, GET and HEAD, the revalidation headers), whatever `cors.allowedOrigins`
 * says for the keyed API: without it a documentation site revalidating with `If-None-Match` would
 * meet the keyed pipeline's 401.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { RequestHandler, Router } from 'express';
import { publicFile, servePublicFile, type PublicFile } from './public-file';

/** Where the page fetches the document from; the same origin, so `connect-src 'self'` allows it. */
const DOCUMENT_PATH = '/openapi.json';
const ASSETS = '/docs/assets';
/** What a cross-origin script may send to, and read from, the public paths. */
const PREFLIGHT_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD',
  'Access-Control-Allow-Headers': 'Accept, If-None-Match, X-Request-Id',
  'Access-Control-Max-Age': '86400',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Core Banking Gateway API reference</title>
<link rel="icon" type="image/png" href="${ASSETS}/favicon-32x32.png">
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<main id="reference"></main>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${ASSETS}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator for its badge.
const INIT_SCRIPT = `'use strict';
window.SwaggerUIBundle({
  url: ${JSON.stringify(DOCUMENT_PATH)},
  dom_id: '#reference',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
});
`;

function preflight(): RequestHandler {
  return function publicPreflight(_req, res) {
    res.setHeader('X-Request-Id', randomUUID());
    res.set(PREFLIGHT_HEADERS).status(204).end();
  };
}

/** Mounts `/docs` and its assets on the vendor app, before the keyed pipeline, and the preflight of every public path. */
export function registerDocsPage(app: Router, trustedRequestId: RegExp): void {
  const resolve = createRequire(__filename).resolve;
  const javascript = 'text/javascript; charset=utf-8';
  const files: ReadonlyArray<readonly [string, PublicFile]> = [
    ['/docs', publicFile(PAGE, 'text/html; charset=utf-8')],
    [`${ASSETS}/swagger-ui-bundle.js`, publicFile(readFileSync(resolve('swagger-ui-dist/swagger-ui-bundle.js')), javascript)],
    [`${ASSETS}/swagger-ui.css`, publicFile(readFileSync(resolve('swagger-ui-dist/swagger-ui.css')), 'text/css; charset=utf-8')],
    // Named in the page, so the browser does not ask for /favicon.ico (a keyed path: 401).
    [`${ASSETS}/favicon-32x32.png`, publicFile(readFileSync(resolve('swagger-ui-dist/favicon-32x32.png')), 'image/png')],
    [`${ASSETS}/init.js`, publicFile(INIT_SCRIPT, javascript)],
  ];
  for (const [path, file] of files) app.get(path, servePublicFile(file, trustedRequestId));
  app.options([DOCUMENT_PATH, ...files.map(([path]) => path)], preflight());
}
