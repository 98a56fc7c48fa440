/**
 * Runs one pipeline step in process, for the unit tests beside each policy: a request of the
 * given method, target and headers, the request context the earlier steps would have left,
 * and a response that records what the step wrote. Resolves once the step called `next` (with
 * or without an error) or ended the response. Steps that need a socket are tested end to end.
 */
import type { Request, RequestHandler, Response } from 'express';
import { newContext, setContext, type RequestContext } from '../../src/request/context';

interface StepRun {
  /** What the step passed to `next`: an error, or undefined when it let the request through. */
  readonly error: unknown;
  /** True when the step called `next()` without an error. */
  readonly passed: boolean;
  readonly ctx: RequestContext;
  /** What the step answered itself, if it did. */
  readonly answer: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string } | null;
}

interface StepRequest {
  readonly method?: string;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function runStep(step: RequestHandler, request: StepRequest = {}, ctx: RequestContext = newContext('test-request')): Promise<StepRun> {
  return new Promise((resolve, reject) => {
    const url = request.url ?? '/';
    const req = { method: request.method ?? 'GET', url, originalUrl: url, path: url.split('?')[0], headers: { ...request.headers } } as unknown as Request;
    const headers: Record<string, string> = {};
    const res = {
      locals: {},
      statusCode: 200,
      status(code: number) {
        res.statusCode = code;
        return res;
      },
      setHeader(name: string, value: string) {
        headers[name.toLowerCase()] = value;
        return res;
      },
      // The after-core registry watches the end of a response; a step run here never closes it.
      once() {
        return res;
      },
      end(body?: Buffer | string) {
        resolve({ error: undefined, passed: false, ctx, answer: { status: res.statusCode, headers, body: body === undefined ? '' : body.toString() } });
      },
    };
    setContext(res as unknown as Response, ctx);
    const next = (error?: unknown): void => resolve({ error, passed: error === undefined, ctx, answer: null });
    try {
      const returned: unknown = step(req, res as unknown as Response, next);
      if (returned instanceof Promise) returned.catch(reject);
    } catch (err) {
      resolve({ error: err, passed: false, ctx, answer: null });
    }
  });
}
