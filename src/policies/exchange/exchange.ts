/**
 * Pipeline step: the buffered call to the core for routes whose body the body step parsed
 * (receipts and bank-account writes). Sends the canonical JSON, waits for the whole answer,
 * renders it in the vendor's format, and tells the request's after-core duties the outcome
 * once (request/after-core.ts; idempotency and two-factor registered theirs), before the vendor
 * hears it:
 * - a 2xx answer that is the contract's JSON object is `answered` (idempotency stores it for
 *   replays), then sent; any other 2xx (HTML, text, no media type, a dump) or a 3xx is a 502
 *   `bad_gateway` and, as it may have posted, `unknown` (the key turns `outcome_unknown`), never
 *   a success;
 * - a 4xx answer means nothing was posted: `refused` (the key is released, so a corrected retry
 *   under the same key may post; a two-factor code is handed back); the vendor gets the
 *   catalogue problem for it (core-problem.ts: `code`, `requestId`, the core's JSON message,
 *   never its HTML or text), as on streamed routes. A refusal that reads as the contract's own
 *   answer (a receipt refused with a receipt: 400 `errorMessage`, 409, 422 with
 *   `transactionOverrides`) replaces `ctx.refusalRenderer`, so the error handler answers with
 *   that receipt, its own members only, and the problem alongside; any other JSON is a plain
 *   problem;
 * - a 5xx answer (502 `bad_gateway`, the core's body withheld by the core client), a timeout
 *   or a cut connection after sending may have posted: `unknown`, and a money movement's 502
 *   or 504 says its outcome is unknown (check the account before posting again); a breaker
 *   refusal or a refused connection never reached the core: `neverSent`.
 * Streamed routes (no parsed body) go on to the forward step; no step registers after-core
 * duties on them.
 *
 * Reads the route, principal and parsed body from the context; sets the response (a 201 with the
 * core's Location as a gateway path, kept for replays too), or ctx.refusalRenderer and the error
 * for a refusal.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BodyContracts } from '../../contracts/body-contract';
import { coreRefusalRenderer } from '../../contracts/refusal-answer';
import { isLosslessNumber } from 'lossless-json';
import { parseCoreAnswer, renderParsedAnswerForVendor, UNREADABLE } from '../../contracts/registry';
import { CoreCallError } from '../../core-client/core-call-error';
import { problemFromCoreAnswer } from '../../core-client/core-problem';
import type { CoreClient } from '../../core-client/core-client';
import { GatewayError } from '../../errors/error-catalogue';
import type { CoreOutcome } from '../../request/after-core';
import { context, type ParsedBody, type RequestContext } from '../../request/context';
import type { BodySchemaId } from '../../catalogue/api-catalogue';

interface ExchangeDeps {
  readonly coreClient: CoreClient;
  readonly contracts: BodyContracts;
}

const JSON_MEDIA_TYPE = /^application\/(problem\+)?json\b/i;

export function exchange(deps: ExchangeDeps): RequestHandler {
  // Synchronous for the requests it lets pass (no parsed body): no promise per request.
  return function exchangeStep(req, res, next) {
    const { route, body } = context(res);
    if (!route || !body || !route.bodySchema) {
      next();
      return;
    }
    return exchangeWithCore(req, res, next, route.bodySchema, body);
  };

  /** One call, one outcome: the after-core duties hear it once, before the vendor does. */
  async function exchangeWithCore(req: Request, res: Response, next: NextFunction, bodySchema: BodySchemaId, body: ParsedBody): Promise<void> {
    const ctx = context(res);
    // The vendor went away before the call: the duties have let go of the key, so no call.
    if (!ctx.afterCore.coreCallStarted()) return;
    const { outcome, error } = await callCore(req, ctx, bodySchema, body);
    await ctx.afterCore.settle(outcome);
    if (outcome.kind !== 'answered') {
      next(error);
      return;
    }
    const { response } = outcome;
    res.status(response.status).setHeader('Content-Type', response.contentType);
    if (response.location) res.setHeader('Location', response.location);
    res.end(response.body);
  }

  /** The core's answer rendered for the vendor, or the error it comes to, with what it means for the duties. Never rejects. */
  async function callCore(req: Request, ctx: RequestContext, bodySchema: BodySchemaId, body: ParsedBody): Promise<Exchanged> {
    const movesMoney = ctx.route?.movesMoney === true;
    let answer;
    try {
      answer = await deps.coreClient.exchange(req, ctx, body.coreJson);
    } catch (err) {
      if (err instanceof CoreCallError && !err.requestSent) return { outcome: NEVER_SENT, error: err };
      // The core may have posted (a timeout, a cut connection, a 5xx whose body the vendor never sees):
      // a money movement's 502 or 504 says so, with what to do before posting again.
      return { outcome: UNKNOWN, error: err instanceof CoreCallError && movesMoney ? outcomeUnknown(err) : err };
    }
    try {
      const contract = deps.contracts.get(bodySchema);
      const contentType = answer.contentType;
      const isDto = contract !== undefined && JSON_MEDIA_TYPE.test(contentType) && !/problem\+json/i.test(contentType);
      if (answer.status >= 400) {
        // Nothing was posted: the duties undo what waited for the core (the key, the code).
        const problem = problemFromCoreAnswer(answer.status, contentType, answer.body, answer.retryAfter);
        // Only a refusal that reads as the contract's own answer is shown as one, and only its members.
        const renderer = isDto && problem.status < 500 ? coreRefusalRenderer(contract, answer.body.toString('utf8'), body) : null;
        if (renderer !== null) ctx.refusalRenderer = renderer;
        return { outcome: REFUSED, error: problem };
      }
      // Parsed once, here, and rendered from the value. A text lossless-json cannot read (not JSON,
      // or a key twice with two values) is not the contract's answer: shown as it came it would
      // carry whatever secrets the core echoed.
      const parsed = isDto && answer.status < 300 ? parseCoreAnswer(answer.body.toString('utf8')) : UNREADABLE;
      if (parsed === UNREADABLE || contract === undefined || !isParsedObject(parsed)) {
        // A redirect, HTML, text, a dump: not the contract's answer, and no proof that nothing was posted.
        const refused = new GatewayError('bad_gateway', `The core banking system sent an answer that is not a ${bodySchema} (status ${answer.status}).`);
        return { outcome: UNKNOWN, error: movesMoney ? outcomeUnknown(refused) : refused };
      }
      const rendered = renderParsedAnswerForVendor(contract, parsed, body.responseFormat, body.responseXmlNamespace);
      const payload = Buffer.from(rendered);
      const contentTypeOut = `${body.responseMediaType}; charset=utf-8`;
      // Location only with a created record (201).
      const location = answer.status === 201 ? answer.location : undefined;
      return {
        outcome: { kind: 'answered', response: { status: answer.status, contentType: contentTypeOut, body: payload, ...(location ? { location } : {}) } },
      };
    } catch (err) {
      // An answer we cannot read: whether the core posted is unknown.
      return { outcome: UNKNOWN, error: err };
    }
  }
}

/** The outcome, and the error the vendor hears unless the core answered. */
interface Exchanged {
  readonly outcome: CoreOutcome;
  readonly error?: unknown;
}

const NEVER_SENT: CoreOutcome = Object.freeze({ kind: 'neverSent' });
const UNKNOWN: CoreOutcome = Object.freeze({ kind: 'unknown' });
const REFUSED: CoreOutcome = Object.freeze({ kind: 'refused' });

/** Whether the core's answer, as lossless-json parsed it, is one JSON object (the shape of every buffered route's answer); a top-level number is a LosslessNumber, not an object. */
function isParsedObject(parsed: unknown): boolean {
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !isLosslessNumber(parsed);
}

/** The same error (502 or 504), its detail telling the vendor the posting may have happened. */
function outcomeUnknown(cause: CoreCallError | GatewayError): GatewayError {
  return new GatewayError(cause.code, `${cause.detail} Its outcome is unknown: check the account before posting again with a new key.`, {
    cause,
    ...(cause.headers ? { headers: cause.headers } : {}),
  });
}
