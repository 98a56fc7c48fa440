/**
 * The core's refusals (4xx, streamed or buffered routes alike), told to the vendor in the
 * gateway's one error shape: a problem of the catalogue with `code` and `requestId`, whatever
 * the core sent (problem JSON, ASP.NET validation problems, plain JSON or a DTO with
 * `errorMessage`, text, HTML, nothing).
 *
 * - 400 → `invalid_request`, the core's message kept as `detail` and its field errors (an array
 *   of `{field, message}`, or ASP.NET's `{"errors": {"Field": ["message"]}}`) as `errors[]`;
 *   404 and 410 → `not_found`; 405 → `method_not_allowed`; 409 → `conflict`; 413 →
 *   `payload_too_large`; 415 → `unsupported_media_type`; 422 → `unprocessable_content`; 429 →
 *   `rate_limited`;
 * - any other 4xx (401, 403: the core refused the gateway itself) → 502 `bad_gateway`: that is
 *   the operator's to fix, not the vendor's.
 * Only JSON from the core is read: its message is cut to a few hundred characters and loses its
 * control characters before it goes into a problem (the XML form cannot carry them; logs and
 * terminals should not). HTML and plain text are never shown: they are where stack traces, file
 * paths and internal host names turn up.
 *
 * Pure: reads a status, a media type and a body.
 */
import { GatewayError, type ErrorCode, type FieldError } from '../errors/error-catalogue';

const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_content',
  429: 'rate_limited',
};

const DEFAULT_DETAIL: Readonly<Partial<Record<ErrorCode, string>>> = {
  invalid_request: 'The core banking system refused the request as invalid.',
  not_found: 'The core banking system has no such resource.',
  method_not_allowed: 'The core banking system does not allow this method here.',
  conflict: 'The request conflicts with the state of the resource in the core banking system.',
  payload_too_large: 'The core banking system found the request body too large.',
  unsupported_media_type: 'The core banking system does not accept this media type.',
  unprocessable_content: 'The core banking system could not process the request.',
  rate_limited: 'The core banking system is refusing requests for now; retry later.',
};

const MAX_TEXT = 300;
const MAX_FIELD_ERRORS = 20;

/** Text safe for a problem: control characters gone, whitespace collapsed, cut to `max`. */
export function cleanText(text: string, max = MAX_TEXT): string {
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function stringField(record: Record<string, unknown>, names: readonly string[]): string | null {
  for (const [key, value] of Object.entries(record)) {
    if (names.includes(key.toLowerCase()) && typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

function fieldErrors(value: unknown): FieldError[] {
  const out: FieldError[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item !== 'object' || item === null) continue;
      const entry = item as Record<string, unknown>;
      const field = stringField(entry, ['field', 'name', 'property', 'propertyname']);
      const message = stringField(entry, ['message', 'errormessage', 'detail']);
      if (field && message) out.push({ field: cleanText(field, 100), message: cleanText(message) });
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [field, messages] of Object.entries(value as Record<string, unknown>)) {
      for (const message of Array.isArray(messages) ? messages : [messages]) {
        if (typeof message === 'string') out.push({ field: cleanText(field, 100), message: cleanText(message) });
      }
    }
  }
  return out.slice(0, MAX_FIELD_ERRORS);
}

/** The vendor's problem for a core refusal. */
export function problemFromCoreAnswer(status: number, contentType: string, body: Buffer, retryAfter?: string): GatewayError {
  const code = CODE_OF_STATUS[status];
  if (code === undefined) {
    return new GatewayError('bad_gateway', 'The core banking system refused the gateway itself; the operator has been told.');
  }
  let detail: string | null = null;
  let errors: FieldError[] = [];
  const text = body.toString('utf8');
  if (/json/i.test(contentType)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        const record = parsed as Record<string, unknown>;
        detail = stringField(record, ['detail', 'message', 'errormessage', 'title']);
        errors = fieldErrors(record.errors ?? record.Errors);
      } else if (typeof parsed === 'string') {
        detail = parsed;
      }
    } catch {
      detail = null;
    }
  }
  // HTML, text and anything else: never shown (it may be a stack trace, a path or a host name).
  return new GatewayError(code, detail ? cleanText(detail) : (DEFAULT_DETAIL[code] as string), {
    ...(errors.length > 0 ? { errors } : {}),
    ...(code === 'rate_limited' && retryAfter ? { headers: { 'Retry-After': cleanText(retryAfter, 20) } } : {}),
  });
}
