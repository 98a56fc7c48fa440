/**
 * The sandbox core's HTTP app: a stand-in for the bank's core system that the gateway proxies
 * to and vendors develop against. It authenticates nothing; the gateway does that.
 *
 * Reads requests and the SandboxData it is given (and changes that data on POST, PUT and
 * DELETE). Routes come from the API catalogue and are matched by the catalogue's own matcher,
 * so the sandbox answers exactly the paths the gateway forwards, with the same rules:
 * case-insensitive, optional trailing slash, 405 with Allow for a known path and wrong method.
 * Construction fails if a catalogue route has no handler here, so a route added to the
 * catalogue cannot go unserved unnoticed. Every error is problem+json (see problems.ts).
 * Beside them, one read-only view of the ledger for test rigs, outside the catalogue's paths
 * (receipts-view.ts).
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ROUTES } from '../catalogue/api-catalogue';
import { RouteMatcher } from '../catalogue/matcher';
import { rehearsals } from './rehearsals';
import { bankAccountHandlers } from './bank-accounts';
import type { SandboxData } from './data';
import type { Handler } from './handler';
import { writeJson } from './json';
import { SandboxProblem, notFound } from './problems';
import { receiptHandlers } from './receipts';
import { receiptsView } from './receipts-view';
import { relationHandlers } from './relations';
import { resourceHandlers } from './resources';
import type { PageLimits } from './search';

interface SandboxAppOptions {
  readonly data: SandboxData;
  readonly maxPageSize?: number;
  readonly defaultPageSize?: number;
  /** Told about every unexpected error (answered 500); the app itself logs nothing. */
  readonly onError?: (error: unknown) => void;
}

const BODY_LIMIT = '1mb';

export function createSandboxApp(options: SandboxAppOptions): express.Express {
  const limits = pageLimits(options);
  const handlers = new Map<string, Handler>([
    ...resourceHandlers(options.data, limits),
    ...relationHandlers(options.data),
    ...receiptHandlers(options.data),
    ...bankAccountHandlers(options.data),
  ]);
  // Routes the gateway answers itself (the SMS verification) never reach a core.
  const served = ROUTES.filter((route) => !route.answeredByGateway);
  for (const route of served) if (!handlers.has(route.apiId)) throw new Error(`sandbox has no handler for ${route.apiId}`);
  const known = new Set(ROUTES.map((route) => route.apiId));
  for (const apiId of handlers.keys()) if (!known.has(apiId)) throw new Error(`sandbox handler for ${apiId}, which is not in the catalogue`);
  const matcher = new RouteMatcher(served);

  const dispatch: RequestHandler = (req, res) => {
    // Node drops the body of a HEAD answer, so HEAD is GET.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const match = matcher.match(method, req.path);
    if (match.kind === 'not_found') throw notFound(`no resource at ${req.path}`);
    if (match.kind === 'method_not_allowed') {
      const allow = match.allow.join(', ');
      throw new SandboxProblem(405, `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, undefined, { Allow: allow });
    }
    const handler = handlers.get(match.route.apiId) as Handler;
    const search = req.originalUrl.split('?', 2)[1] ?? '';
    handler({ req, res, params: match.params, query: new URLSearchParams(search) });
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The handlers read the query themselves, with case-insensitive names and duplicate checks.
  app.set('query parser', false);
  app.use(express.raw({ type: () => true, limit: BODY_LIMIT }));
  // The sandbox's own read-only view of its ledger, outside the catalogue's paths.
  app.use(receiptsView(options.data));
  // Before the ledger: receipts that ask for a rehearsed failure never post.
  app.use(rehearsals());
  app.use(dispatch);
  app.use(errorHandler(options.onError));
  return app;
}

function pageLimits(options: SandboxAppOptions): PageLimits {
  const maxPageSize = options.maxPageSize ?? 100;
  const defaultPageSize = options.defaultPageSize ?? 20;
  if (!Number.isInteger(maxPageSize) || !Number.isInteger(defaultPageSize) || defaultPageSize < 1 || defaultPageSize > maxPageSize) {
    throw new RangeError(`sandbox page sizes: need 1 <= defaultPageSize (${defaultPageSize}) <= maxPageSize (${maxPageSize})`);
  }
  return { maxPageSize, defaultPageSize };
}

/** Client errors raised by Express's body reader (too large, bad encoding) carry their status. */
interface HttpError {
  readonly status?: number;
  readonly expose?: boolean;
  readonly message?: string;
}

function errorHandler(onError: SandboxAppOptions['onError']): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    let problem: SandboxProblem;
    const httpError = error as HttpError | null;
    if (error instanceof SandboxProblem) problem = error;
    else if (httpError && httpError.expose === true && typeof httpError.status === 'number' && httpError.status >= 400 && httpError.status < 500) {
      problem = new SandboxProblem(httpError.status, httpError.message ?? 'bad request');
    } else {
      onError?.(error);
      problem = new SandboxProblem(500, 'the sandbox core failed to answer this request');
    }
    res.status(problem.status).set(problem.headers).type('application/problem+json').send(writeJson(problem.body()));
  };
}
