/**
 * The typed per-request context that pipeline steps share, kept on `res.locals`.
 *
 * Set by request-context (first step); filled in by route-match (route, params),
 * authenticate (principal, vendor) and forward (upstream timing). Read by every later step,
 * the error handler and the access log.
 */
import type { Response } from 'express';
import type { Route } from '../catalogue/catalogue';
import type { MatchResult } from '../catalogue/matcher';
import type { Principal } from '../access/snapshot';
import type { Vendor } from '../access/model';

export type WireFormat = 'json' | 'xml';

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
}

export interface RequestContext {
  readonly requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  readonly startedAt: bigint;
  match: MatchResult | null;
  route: Route | null;
  params: Record<string, string> | null;
  principal: Principal | null;
  vendor: Vendor | null;
  /** Set by the body step on routes with a body schema; null on streamed routes. */
  body: ParsedBody | null;
}

export function setContext(res: Response, context: RequestContext): void {
  res.locals.ctx = context;
}

export function getContext(res: Response): RequestContext | undefined {
  return res.locals.ctx as RequestContext | undefined;
}

/** For steps that run after request-context: the context is always there. */
export function context(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}
