/**
 * How a failed call to the core reaches the vendor: 503 `core_unavailable` (breaker open, with
 * Retry-After), 504 `core_timeout`, 502 `bad_gateway` (connection refused, reset, ...), and
 * whether the request may have reached the core, which is what idempotency needs to know.
 *
 * Reads nothing; sets nothing. Details never name the core's address or the cause.
 */
import { GatewayError } from '../errors/error-catalogue';
import { BreakerTimeoutError, CircuitOpenError } from './breakers';

type CoreFailureCode = 'core_unavailable' | 'core_timeout' | 'bad_gateway';

const DETAILS: Readonly<Record<CoreFailureCode, string>> = {
  core_unavailable: 'The core banking system is unavailable; retry after the time in Retry-After.',
  core_timeout: 'The core banking system did not answer in time.',
  bad_gateway: 'The core banking system could not be reached.',
};

export class CoreCallError extends GatewayError {
  constructor(
    code: CoreFailureCode,
    /**
     * False only when the request certainly never reached the core (breaker open, connection
     * never established). True means it may have been processed: never send it again.
     */
    readonly requestSent: boolean,
    options: { readonly cause?: unknown; readonly headers?: Readonly<Record<string, string>>; readonly detail?: string } = {},
  ) {
    super(code, options.detail ?? DETAILS[code], options);
  }
}

/**
 * Maps what a breaker run rejected with: its own refusals, or the attempt's connection error.
 * `requestSent` says whether the attempt had a connection to the core when it failed.
 */
export function toCoreCallError(err: unknown, requestSent: boolean): CoreCallError {
  if (err instanceof CircuitOpenError) {
    return new CoreCallError('core_unavailable', false, { cause: err, headers: { 'Retry-After': String(err.retryAfterSeconds) } });
  }
  if (err instanceof BreakerTimeoutError) return new CoreCallError('core_timeout', requestSent, { cause: err });
  return new CoreCallError('bad_gateway', requestSent, { cause: err });
}
