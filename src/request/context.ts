/**
 * The typed per-request context that pipeline steps share, and its accessor: the only code
 * that touches `res.locals`.
 *
 * Set by request-context (first step, which also counts the bytes written out); filled in by route-match (route, params), the target
 * step (coreTarget), authenticate (principal, vendor), the body step (body or rawBody, and
 * refusalRenderer for a contract that answers refusals as its body), idempotency and two-factor
 * (their after-core duties), the core client (upstreamSeconds, upstreamStatus) and the error
 * handler (errorCode). Read by every later step, the error handler, the access log and the request log.
 */
import type { Response } from 'express';
import type { Route } from '../catalogue/api-catalogue';
import type { MatchResult } from '../catalogue/matcher';
import type { Principal } from '../access/access-index';
import type { VendorRecord } from '../access/access-state';
import type { WireFormat } from '../contracts/body-contract';
import type { ProblemRenderer } from '../errors/problem';
import type { RequestTrace } from '../tracing/tracing';
import type { ErrorCode } from '../errors/error-catalogue';
import { AfterCore } from './after-core';

/** A request body that the body step parsed and validated (routes with a body schema only). */
export interface ParsedBody {
  /** The canonical value: the schema's JSON (camelCase) names, decimals kept exact. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Canonical JSON text, exactly what the core receives; idempotency fingerprints it. */
  readonly coreJson: string;
  readonly requestFormat: WireFormat;
  /** Chosen from Accept, else the request's family. */
  readonly responseFormat: WireFormat;
  /** The media type to answer with (one of the route's `produces`). */
  readonly responseMediaType: string;
  /** The namespace an XML answer is written in: the XML request's own, else `xml.responseNamespace`. */
  readonly responseXmlNamespace: string;
}

/** A body the gateway does not parse (resource POST and PUT), read whole before the core is called. */
export interface OpaqueBody {
  readonly bytes: Buffer;
  /** The vendor's Content-Type, one the route consumes; null for an empty body. */
  readonly contentType: string | null;
}

export interface RequestContext {
  readonly requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  readonly startedAt: bigint;
  match: MatchResult | null;
  route: Route | null;
  params: Record<string, string> | null;
  /** Path and query the core receives, built from the route and checked (request-target step). */
  coreTarget: string | null;
  principal: Principal | null;
  vendor: VendorRecord | null;
  /** Set by the body step on routes with a body schema. */
  body: ParsedBody | null;
  /** Set by the body step on routes that take a body without a schema. */
  rawBody: OpaqueBody | null;
  /**
   * How a problem of this request is answered when its body contract answers refusals in its own
   * shape (receipts): set by the body step, replaced by exchange when the core refused with such a
   * body; the error handler asks it first.
   */
  refusalRenderer: ProblemRenderer | null;
  /** What steps must do once the core's outcome is known (idempotency, two-factor); exchange settles it. */
  readonly afterCore: AfterCore;
  /** How long the core took (to its answer's headers, or its whole answer when buffered). */
  upstreamSeconds: number | null;
  /** The core's status, when it answered (set with upstreamSeconds). */
  upstreamStatus: number | null;
  /** The catalogue code of the problem the error handler answered, for the request log. */
  errorCode: ErrorCode | null;
  /** Body bytes written to the vendor as they went on the wire (compressed, when compressed), for the access log. */
  bytesOut: number;
  /** The request's trace when tracing is on (set by the trace step); child spans hang off it. */
  trace: RequestTrace | null;
}

export function newContext(requestId: string): RequestContext {
  return {
    requestId,
    startedAt: process.hrtime.bigint(),
    match: null,
    route: null,
    params: null,
    coreTarget: null,
    principal: null,
    vendor: null,
    body: null,
    rawBody: null,
    refusalRenderer: null,
    afterCore: new AfterCore(requestId),
    upstreamSeconds: null,
    upstreamStatus: null,
    errorCode: null,
    bytesOut: 0,
    trace: null,
  };
}

/** Attaches the context to its response, whose end settles after-core duties the core call never did. */
export function setContext(res: Response, context: RequestContext): void {
  res.locals.ctx = context;
  context.afterCore.bindResponse(res);
}

/** The response's context; undefined for one without (also a plain Node response, which has no `locals`). */
export function getContext(res: Response): RequestContext | undefined {
  return (res.locals as Response['locals'] | undefined)?.ctx as RequestContext | undefined;
}

/** For steps that run after request-context: the context is always there. */
export function context(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}
