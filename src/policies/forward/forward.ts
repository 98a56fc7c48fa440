/**
 * Final step for every route whose body the gateway does not parse (reads, resource writes):
 * hands the authorised request to the core client, which builds what the core receives and
 * streams the core's answer back (see core-client.ts).
 *
 * Reads the context (route, target, body); failures before the answer started go to the
 * error handler, which alone writes error bodies.
 */
import type { RequestHandler } from 'express';
import type { CoreClient } from '../../core-client/core-client';
import { context } from '../../request/context';

interface ForwardDeps {
  readonly coreClient: CoreClient;
}

export function forward(deps: ForwardDeps): RequestHandler {
  return function forwardStep(req, res, next) {
    deps.coreClient.stream(req, res, context(res)).then(undefined, next);
  };
}
