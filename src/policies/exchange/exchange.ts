/**
 * Pipeline step 8a: the buffered call to the core for routes whose body the body step parsed
 * (receipts and bank-account writes). Sends the canonical JSON, waits for the whole answer,
 * renders it in the vendor's format, and settles the idempotency claim:
 * - a 2xx answer is stored for replays (`complete`), then sent;
 * - a 4xx answer means nothing was posted: the claim is released (`abandon`), so a corrected
 *   retry under the same key (with supervisor credentials, say) may post;
 * - a 5xx answer (told to the vendor as 502 `bad_gateway`, the core's body withheld), a timeout
 *   or a cut connection after sending may have posted: the key turns `outcome_unknown`
 *   (`unknown`) and is never sent again; a breaker refusal or a refused connection never
 *   reached the core, so the claim is released.
 * Streamed routes (no parsed body) go on to the forward step.
 *
 * Reads the route, principal and parsed body from the context; sets the response.
 */
import type { RequestHandler } from 'express';
import type { BodyContracts } from '../../contracts/body-contract';
import { renderAnswerForVendor } from '../../contracts/registry';
import { CoreCallError } from '../../core-client/core-call-error';
import type { CoreExchange } from '../../core-client/exchange';
import { identityHeaders } from '../../core-client/identity-headers';
import { GatewayError } from '../../errors/catalogue';
import { context } from '../../pipeline/context';
import { noteUpstreamDuration } from '../../pipeline/observe';
import { idempotencyGuard } from '../idempotency/idempotency';

export interface ExchangeDeps {
  readonly coreExchange: CoreExchange;
  readonly contracts: BodyContracts;
}

const JSON_MEDIA_TYPE = /^application\/(problem\+)?json\b/i;

export function exchange(deps: ExchangeDeps): RequestHandler {
  return async function exchangeStep(req, res, next) {
    const ctx = context(res);
    const { route, body } = ctx;
    if (!route || !body || !route.bodySchema) {
      next();
      return;
    }
    const guard = idempotencyGuard(res);
    let answer;
    try {
      answer = await deps.coreExchange(route.group, {
        method: route.method,
        path: req.originalUrl,
        headers: { ...identityHeaders(req, ctx), 'content-type': 'application/json', accept: 'application/json' },
        body: body.coreJson,
      });
    } catch (err) {
      await (err instanceof CoreCallError && !err.requestSent ? guard.abandon() : guard.unknown());
      next(err);
      return;
    }
    noteUpstreamDuration(res, answer.durationSeconds);
    if (answer.status >= 500) {
      // The core failed while it held the request: it may have posted. Its body (a stack trace,
      // a host name) is not the vendor's to read.
      await guard.unknown();
      next(new GatewayError('bad_gateway', 'The core banking system failed while processing the request; its outcome is unknown. Check the account before posting again with a new key.'));
      return;
    }

    const contract = deps.contracts.get(route.bodySchema);
    const contentType = String(answer.headers['content-type'] ?? '');
    // The core's own error documents (not a DTO) pass through as the core wrote them.
    const isDto = contract !== undefined && JSON_MEDIA_TYPE.test(contentType) && !/problem\+json/i.test(contentType);
    let payload: Buffer;
    let mediaType: string;
    try {
      payload = isDto ? Buffer.from(renderAnswerForVendor(contract, answer.body.toString('utf8'), body.responseFormat)) : answer.body;
      mediaType = isDto ? `${body.responseMediaType}; charset=utf-8` : contentType || 'application/octet-stream';
    } catch (err) {
      // An answer we cannot read: whether the core posted is unknown.
      await guard.unknown();
      next(err);
      return;
    }

    if (answer.status >= 400) await guard.abandon();
    else await guard.complete({ status: answer.status, contentType: mediaType, body: payload });
    res.status(answer.status).setHeader('Content-Type', mediaType);
    res.end(payload);
  };
}
