/**
 * Pipeline step: the buffered call to the core for routes whose body the body step parsed
 * (receipts and bank-account writes). Sends the canonical JSON, waits for the whole answer,
 * renders it in the vendor's format, and settles the idempotency claim:
 * - a 2xx answer that is the contract's JSON object is stored for replays (`complete`), then
 *   sent; any other 2xx (HTML, text, no media type, a dump) or a 3xx is a 502 `bad_gateway`
 *   and, as it may have posted, the key turns `outcome_unknown` (`unknown`), never a success;
 * - a 4xx answer means nothing was posted: the claim is released (`abandon`), so a corrected
 *   retry under the same key (with supervisor credentials, say) may post; the vendor gets the
 *   catalogue problem for it (core-problem.ts: `code`, `requestId`, the core's JSON message,
 *   never its HTML or text), as on streamed routes. A receipt the core refused with a receipt
 *   (400 `errorMessage`, 409, 422 with `transactionOverrides`) is kept, with the receipt's own
 *   members only, for the error handler, which answers it as the receipt with the problem
 *   alongside (`ctx.coreRefusedReceipt`); any other JSON is a plain problem;
 * - a 5xx answer (502 `bad_gateway`, the core's body withheld by the core client), a timeout
 *   or a cut connection after sending may have posted: the key turns `outcome_unknown`
 *   (`unknown`) and is never sent again; a breaker refusal or a refused connection never
 *   reached the core, so the claim is released.
 * Streamed routes (no parsed body) go on to the forward step.
 *
 * Reads the route, principal and parsed body from the context; sets the response (a 201 with the
 * core's Location as a gateway path, kept for replays too), or ctx.coreRefusedReceipt and the
 * error for a refusal.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BodyContracts } from '../../contracts/body-contract';
import { renderAnswerForVendor } from '../../contracts/registry';
import { CoreCallError } from '../../core-client/core-call-error';
import { problemFromCoreAnswer } from '../../core-client/core-problem';
import type { CoreClient } from '../../core-client/core-client';
import { GatewayError } from '../../errors/error-catalogue';
import { context, type ParsedBody } from '../../request/context';
import type { BodySchemaId, Route } from '../../catalogue/api-catalogue';

export interface ExchangeDeps {
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
    return exchangeWithCore(req, res, next, route, route.bodySchema, body);
  };

  async function exchangeWithCore(req: Request, res: Response, next: NextFunction, route: Route, bodySchema: BodySchemaId, body: ParsedBody): Promise<void> {
    const ctx = context(res);
    const guard = ctx.idempotencyGuard;
    let answer;
    guard.coreCallStarted();
    try {
      answer = await deps.coreClient.exchange(req, ctx, body.coreJson);
    } catch (err) {
      if (err instanceof CoreCallError && !err.requestSent) {
        await guard.abandon();
        await ctx.secondFactor?.restore();
        next(err);
        return;
      }
      // The core may have posted (a timeout, a cut connection, a 5xx whose body the vendor never sees).
      await guard.unknown();
      next(err instanceof CoreCallError && err.code === 'bad_gateway' && route.movesMoney ? outcomeUnknown(err) : err);
      return;
    }

    const contract = deps.contracts.get(bodySchema);
    const contentType = answer.contentType;
    const isDto = contract !== undefined && JSON_MEDIA_TYPE.test(contentType) && !/problem\+json/i.test(contentType);
    if (answer.status >= 400) {
      // Nothing was posted: the key is free again, and so is the code that allowed the change.
      await guard.abandon();
      await ctx.secondFactor?.restore();
      const problem = problemFromCoreAnswer(answer.status, contentType, answer.body, answer.retryAfter);
      // Only a refusal that reads as the contract's own answer is shown as one, and only its members.
      const refusal = isDto && contract.refusesAsBody && problem.status < 500 ? (contract.refusalAnswer?.(answer.body.toString('utf8')) ?? null) : null;
      if (refusal !== null) ctx.coreRefusedReceipt = refusal;
      next(problem);
      return;
    }
    if (!isDto || answer.status >= 300 || !isJsonObject(answer.body)) {
      // A redirect, HTML, text, a dump: not the contract's answer, and no proof that nothing was posted.
      await guard.unknown();
      const refused = new GatewayError('bad_gateway', `The core banking system sent an answer that is not a ${bodySchema} (status ${answer.status}).`);
      next(route.movesMoney ? outcomeUnknown(refused) : refused);
      return;
    }
    let payload: Buffer;
    let mediaType: string;
    try {
      payload = Buffer.from(renderAnswerForVendor(contract, answer.body.toString('utf8'), body.responseFormat, body.responseXmlNamespace));
      mediaType = `${body.responseMediaType}; charset=utf-8`;
    } catch (err) {
      // An answer we cannot read: whether the core posted is unknown.
      await guard.unknown();
      next(err);
      return;
    }

    // Location only with a created record (201).
    const location = answer.status === 201 ? answer.location : undefined;
    await guard.complete({ status: answer.status, contentType: mediaType, body: payload, ...(location ? { location } : {}) });
    res.status(answer.status).setHeader('Content-Type', mediaType);
    if (location) res.setHeader('Location', location);
    res.end(payload);
  }
}

/** Whether the core's answer is one JSON object (the shape of every buffered route's answer). */
function isJsonObject(body: Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function outcomeUnknown(cause: CoreCallError | GatewayError): GatewayError {
  return new GatewayError('bad_gateway', `${cause.detail} Its outcome is unknown: check the account before posting again with a new key.`, { cause });
}
