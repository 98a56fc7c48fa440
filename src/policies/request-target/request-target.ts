/**
 * Pipeline step: the request target the core will receive, built from the matched route and
 * checked (see core-target.ts): path parameters of safe characters, only the query parameters
 * the route declares, each of its type, none twice. Anything else is one 400 naming every bad
 * part, before the body is read or a money movement is fingerprinted, so a query can neither
 * escape validation nor ride along with an idempotent request.
 *
 * Reads the matched route and parameters and the request target; sets ctx.coreTarget.
 */
import type { RequestHandler } from 'express';
import { buildCoreTarget } from '../../core-client/core-target';
import { GatewayError } from '../../errors/error-catalogue';
import { context } from '../../request/context';

export function requestTarget(): RequestHandler {
  return function requestTargetStep(req, res, next) {
    const ctx = context(res);
    if (!ctx.route || !ctx.params) throw new Error('the request-target step runs after authorization, on a matched route');
    const result = buildCoreTarget(ctx.route, ctx.params, req.url);
    if (!result.ok) throw new GatewayError('invalid_request', 'The request path or query is not valid for this operation.', { errors: result.errors });
    ctx.coreTarget = result.target;
    next();
  };
}
