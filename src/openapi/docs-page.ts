/**
 * The API reference page on the vendor port: `GET /docs`, rendered in the browser by Swagger UI
 * from the served `/openapi.json`, with nothing fetched from anywhere but the gateway itself.
 *
 * Reads Swagger UI's bundle and style sheet from the `swagger-ui-dist` package once, at start-up
 * (it is a runtime dependency, so the image carries it), and gives them, under `/docs/assets/`,
 * with the page and a small init script of our own, to public-file.ts, which serves them keyless
 * beside `/openapi.json` (strict CSP, X-Request-Id, cross-origin GET, ETag, CORS preflight).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { publicFile, type PublicFile } from './public-file';

/** Where the page fetches the document from; the same origin, so `connect-src 'self'` allows it. */
const DOCUMENT_PATH = '/openapi.json';
const ASSETS = '/docs/assets';

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
// The interceptor keeps "Try it out" on the page's own origin, the gateway that served it: the
// document's servers may name it otherwise (127.0.0.1 where the browser wrote localhost), and
// connect-src 'self' would refuse that.
const INIT_SCRIPT = `'use strict';
window.SwaggerUIBundle({
  url: ${JSON.stringify(DOCUMENT_PATH)},
  requestInterceptor: function (request) {
    var url = new URL(request.url, window.location.href);
    if (url.origin !== window.location.origin) request.url = window.location.origin + url.pathname + url.search;
    return request;
  },
  dom_id: '#reference',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
});
`;

/** The reference page and its assets, by path; served with `/openapi.json` by public-file.ts's one route layer. */
export function docsPageFiles(): Array<[string, PublicFile]> {
  const resolve = createRequire(__filename).resolve;
  const javascript = 'text/javascript; charset=utf-8';
  return [
    ['/docs', publicFile(PAGE, 'text/html; charset=utf-8')],
    [`${ASSETS}/swagger-ui-bundle.js`, publicFile(readFileSync(resolve('swagger-ui-dist/swagger-ui-bundle.js')), javascript)],
    [`${ASSETS}/swagger-ui.css`, publicFile(readFileSync(resolve('swagger-ui-dist/swagger-ui.css')), 'text/css; charset=utf-8')],
    // Named in the page, so the browser does not ask for /favicon.ico (a keyed path: 401).
    [`${ASSETS}/favicon-32x32.png`, publicFile(readFileSync(resolve('swagger-ui-dist/favicon-32x32.png')), 'image/png')],
    [`${ASSETS}/init.js`, publicFile(INIT_SCRIPT, javascript)],
  ];
}
