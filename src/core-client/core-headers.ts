/**
 * The headers of a request to the core and of an answer to the vendor, both from allow-lists:
 * what is not named here does not cross.
 *
 * To the core: Content-Type and Content-Length of a body the gateway holds whole (none without
 * one), `Accept: application/json` and `Accept-Encoding: identity` (the gateway reads JSON and
 * streams what it gets), X-Request-Id, a well-formed W3C traceparent, the caller's identity
 * (X-Vendor-Id, X-Vendor-User), where the call came from (X-Forwarded-For/Proto/Host, see
 * forwarded.ts) and the configured `core.passHeaders`. Node adds Host (the core's) and
 * Connection (the pooled socket's).
 * To the vendor: the configured `core.passResponseHeaders` of a streamed answer, and its
 * Content-Length, which stays true because the body is passed on byte for byte; a Location
 * only as a path of the gateway (the core's own path under its base URL, never another host),
 * so that a created record's Location can be followed through the gateway.
 *
 * Pure: reads the vendor request's headers and socket and the request context.
 */
import type http from 'node:http';
import type { RequestContext } from '../request/context';
import type { ForwardedResolver } from './forwarded';

export interface CoreHeaderRules {
  /** Vendor headers passed on besides the gateway's own (lower case; the schema keeps framing and identity out). */
  readonly passHeaders: readonly string[];
  readonly forwarded: ForwardedResolver;
}

/** The body the core will receive, already read whole. */
export interface CoreBodyFraming {
  /** Null for an empty body, which then goes with `Content-Length: 0` alone. */
  readonly contentType: string | null;
  readonly length: number;
}

/** Version 00, non-zero trace and span ids (W3C Trace Context §3.2). */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

export function coreRequestHeaders(
  req: http.IncomingMessage,
  ctx: RequestContext,
  rules: CoreHeaderRules,
  body: CoreBodyFraming | null,
  /** The traced core call's own traceparent; else the vendor's, when well formed. */
  traceparent?: string,
): http.OutgoingHttpHeaders {
  const origin = rules.forwarded(req);
  const headers: http.OutgoingHttpHeaders = {
    accept: 'application/json',
    'accept-encoding': 'identity',
    'x-request-id': ctx.requestId,
    'x-forwarded-for': origin.clientAddress,
    'x-forwarded-proto': origin.proto,
    'x-forwarded-host': origin.host,
  };
  if (ctx.principal) {
    headers['x-vendor-id'] = ctx.principal.vendorId;
    headers['x-vendor-user'] = ctx.principal.userId;
  }
  const sent = req.headers.traceparent;
  if (traceparent) headers.traceparent = traceparent;
  else if (typeof sent === 'string' && TRACEPARENT.test(sent)) headers.traceparent = sent;
  for (const name of rules.passHeaders) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  // Without a body there is no framing header at all: Node sends none for a GET or DELETE.
  if (body) {
    if (body.contentType !== null) headers['content-type'] = body.contentType;
    headers['content-length'] = body.length;
  }
  return headers;
}

/**
 * The core's Location as the vendor follows it through the gateway: resolved against the core's
 * base URL, kept only on the core's own origin and under its base path, and given as the path
 * below it (the gateway's paths are the core's). Undefined when it points anywhere else, or when
 * the path would read as another host's (`//evil.example/x`, which `/.//evil.example/x` becomes).
 */
export function vendorLocation(location: string | undefined, coreBase: URL): string | undefined {
  if (location === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(location, coreBase);
  } catch {
    return undefined;
  }
  const basePath = coreBase.pathname.replace(/\/+$/, '');
  if (target.origin !== coreBase.origin || !target.pathname.startsWith(`${basePath}/`)) return undefined;
  const path = target.pathname.slice(basePath.length);
  if (path.startsWith('//') || path.includes('\\')) return undefined;
  return path + target.search;
}

/** The core's answer headers a vendor may see: `core.passResponseHeaders`, a Location within the core (as a gateway path), and the answer's own length. */
export function vendorResponseHeaders(core: http.IncomingHttpHeaders, allowed: readonly string[], coreBase: URL): Array<[string, string | string[]]> {
  const out: Array<[string, string | string[]]> = [];
  for (const name of allowed) {
    const value = core[name];
    if (value !== undefined) out.push([name, value]);
  }
  const location = vendorLocation(core.location, coreBase);
  if (location !== undefined) out.push(['location', location]);
  const length = core['content-length'];
  if (length !== undefined) out.push(['content-length', length]);
  return out;
}
