/**
 * Pipeline step: the vendor API's CORS policy, for browser-based vendor apps (cors package).
 * Off unless `cors.allowedOrigins` names origins (off, a preflight is a keyless call: 401); then a
 * preflight (OPTIONS with Access-Control-Request-Method) from one of them is answered 204 with the methods, the headers
 * a vendor call sends (the token headers, Content-Type, Accept, Idempotency-Key, trace context)
 * and the max age, before any key is asked for (a browser sends none on a preflight); an actual
 * call from one gets Access-Control-Allow-Origin and the headers a vendor reads exposed. Another
 * origin gets no CORS header at all, so its browser refuses the answer. Never credentials: the
 * key travels in a header, not a cookie. `GET /openapi.json` answers any origin on its own.
 *
 * Reads the Origin and preflight headers; sets the Access-Control-* headers and Vary: Origin.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import type { CorsConfig } from './cors.schema';

interface CorsDeps {
  /** The key headers a call carries (authentication.tokenHeader and receiptTokenHeader). */
  readonly tokenHeaders: readonly string[];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
const REQUEST_HEADERS = ['Content-Type', 'Accept', 'Idempotency-Key', 'traceparent', 'tracestate'];
/** What a vendor app reads from an answer besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'Location', 'Allow'];

/** Null when no origin is allowed: the step is then left out of the chain. */
export function corsPolicy(config: CorsConfig, deps: CorsDeps): RequestHandler | null {
  if (config.allowedOrigins.length === 0) return null;
  const allowed = new Set(config.allowedOrigins);
  const handler = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin.toLowerCase())),
    methods: METHODS,
    allowedHeaders: [...new Set([...deps.tokenHeaders, ...REQUEST_HEADERS])],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: config.maxAgeSeconds,
    credentials: false,
    optionsSuccessStatus: 204,
  });
  return function corsStep(req, res, next) {
    handler(req, res, next);
  };
}
