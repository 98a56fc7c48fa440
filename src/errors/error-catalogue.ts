/**
 * The one catalogue of error codes (public contract: docs/vendor-guide.md "Errors"), and the error type
 * that carries one through the pipeline to the error handler, which alone writes the body.
 *
 * Reads nothing; sets nothing. A detail is written for the vendor: it never holds a secret,
 * a stack trace or the core's address.
 */

export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, title: 'Invalid request' },
  two_factor_invalid: { status: 400, title: 'Two-factor code not accepted' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  licence_required: { status: 403, title: 'Licence required' },
  permission_denied: { status: 403, title: 'Permission denied' },
  vendor_suspended: { status: 403, title: 'Vendor suspended' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  idempotency_in_progress: { status: 409, title: 'Request with this idempotency key in progress' },
  outcome_unknown: { status: 409, title: 'Outcome of the earlier request is unknown' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused with a different request' },
  unprocessable_content: { status: 422, title: 'Unprocessable content' },
  rate_limited: { status: 429, title: 'Too many requests' },
  two_factor_locked: { status: 429, title: 'Two-factor code locked' },
  sms_rate_limited: { status: 429, title: 'SMS send limit reached' },
  request_header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal error' },
  bad_gateway: { status: 502, title: 'Bad gateway' },
  sms_provider_failed: { status: 502, title: 'SMS provider failed' },
  core_unavailable: { status: 503, title: 'Core banking system unavailable' },
  store_unavailable: { status: 503, title: 'Store unavailable' },
  core_timeout: { status: 504, title: 'Core banking system timed out' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One bad field, named by its path in the request (`Amount`, `Principal.Name`, `sort`). */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

interface GatewayErrorOptions {
  readonly errors?: readonly FieldError[];
  /** Response headers that belong to the error, e.g. `Allow`, `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
  /** What the client needs to act on a conflict (a pending change's fresh preview); JSON problems only. */
  readonly preview?: unknown;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly preview: unknown;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: GatewayErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_CATALOGUE[code].status;
    this.errors = options.errors;
    this.headers = options.headers;
    this.preview = options.preview;
  }
}

/** The `type` URI of a problem: stable per code, documented in docs/vendor-guide.md. */
export function problemType(code: ErrorCode): string {
  return `https://errors.core-banking-gateway.dev/${code}`;
}

/** A shared store (access config, two-factor codes, send limits) could not be reached: 503, not 500. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(cause: unknown) {
    super(`store unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
