/**
 * Pipeline step: match the request against the precompiled API catalogue.
 *
 * Reads the method and path; sets the match on the context (route and path parameters when
 * matched). A 404 or 405 is not raised here but by authorize, after authentication, so an
 * unauthenticated caller learns nothing about which paths exist.
 */
import type { RequestHandler } from 'express';
import type { RouteMatcher } from '../../catalogue/matcher';
import { context } from '../../request/context';

export function routeMatch(matcher: RouteMatcher): RequestHandler {
  return function routeMatchStep(req, res, next) {
    const ctx = context(res);
    const match = matcher.match(req.method, req.path);
    ctx.match = match;
    if (match.kind === 'matched') {
      ctx.route = match.route;
      ctx.params = match.params;
    }
    next();
  };
}
