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

export interface RequestContext {
  readonly requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  readonly startedAt: bigint;
  match: MatchResult | null;
  route: Route | null;
  params: Record<string, string> | null;
  principal: Principal | null;
  vendor: Vendor | null;
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
