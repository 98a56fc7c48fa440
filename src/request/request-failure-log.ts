/**
 * The log line of a request answered with a 5xx: `"msg":"request failed"` at `error`, with its
 * request id and error code, as the README's Logs section says. Our own fault (`internal_error`)
 * keeps its stack: someone has to find the bug. An expected failure (the core timing out,
 * refusing or resetting the connection, an open breaker, Redis or the SMS provider away) is one
 * line naming the error code and its root cause's code, with no stack: an open breaker answers
 * many requests a second, and their stacks would bury the real faults.
 *
 * Reads the error and its cause chain; writes one log line.
 */
import type { GatewayError } from '../errors/error-catalogue';
import type { Logger } from '../logging/logger';

/** The deepest cause's code (ECONNRESET, ETIMEDOUT…) and message. */
function rootCause(error: Error): { cause?: string; reason?: string } {
  let code: string | undefined;
  let reason: string | undefined;
  // Duck-typed rather than instanceof: Node's own socket errors may come from another realm.
  let at = error.cause as { code?: unknown; message?: unknown; cause?: unknown } | null | undefined;
  // Bounded: a cause chain that loops must not hang the error handler.
  for (let depth = 0; typeof at === 'object' && at !== null && depth < 10; depth++, at = at.cause as typeof at) {
    if (typeof at.code === 'string') code = at.code;
    if (typeof at.message === 'string') reason = at.message;
  }
  return { ...(code === undefined ? {} : { cause: code }), ...(reason === undefined ? {} : { reason }) };
}

export function logRequestFailure(logger: Logger, error: GatewayError, requestId: string | undefined): void {
  if (error.code === 'internal_error') {
    logger.error({ err: error.cause ?? error, requestId, code: error.code }, 'request failed');
    return;
  }
  logger.error({ requestId, code: error.code, ...rootCause(error) }, 'request failed');
}
