/**
 * The error answers of the vendor API's OpenAPI document: which problem statuses each operation
 * answers with the catalogue codes each can carry, the shared `default` response that lists the
 * codes every operation shares (so an operation lists only the statuses it adds: 400 where the
 * vendor writes a query or a body, 404 where the path names a record, its own codes' statuses, and
 * on money movement 502 and 504 with the "outcome unknown" advice), and the responses they share.
 *
 * Reads the error catalogue (codes, statuses, titles); fills the shared `components.responses` map
 * it is given. One shape for all of them: the Problem schema (RFC 9457), its `code` narrowed to the
 * codes the response can carry, with an example a reader can recognise.
 */
import type { Route } from '../catalogue/api-catalogue';
import type { OpenApiSchema } from '../contracts/body-contract';
import { ERROR_CATALOGUE, problemType, type ErrorCode } from '../errors/error-catalogue';

const PROBLEM_MEDIA_TYPES = ['application/problem+json', 'application/problem+xml'];

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

export const headerRefs = (...names: string[]): Record<string, OpenApiSchema> =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** The headers every answer carries (or may): the request id and, once the key is known, its rate limit. */
export const COMMON_HEADERS = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy'];

/** The problem statuses an operation can answer, with the catalogue codes each can carry. */
export function problemCodes(route: Route): Map<number, ErrorCode[]> {
  const codes = new Map<number, ErrorCode[]>();
  const add = (...list: ErrorCode[]): void => {
    for (const code of list) {
      const status = ERROR_CATALOGUE[code].status;
      codes.set(status, [...(codes.get(status) ?? []), code]);
    }
  };
  const sendsCode = route.path === 'bankaccounts/verification';
  const checksCode = route.path === 'bankaccounts/add' || route.path === 'bankaccounts/{bankaccountid}';
  // Receipts too: the core's 409 and 422 come back as the catalogue's conflict and unprocessable_content.
  const writesRecord = route.method !== 'GET' && !route.answeredByGateway;
  add('invalid_request');
  if (checksCode) add('two_factor_invalid');
  add('unauthorized', 'licence_required', 'permission_denied', 'vendor_suspended', 'not_found');
  if (route.path === 'transactions/{memberId}' && route.method !== 'GET') add('method_not_allowed');
  if (route.movesMoney) add('idempotency_in_progress', 'outcome_unknown');
  if (writesRecord) add('conflict');
  if (route.consumes.length > 0) add('payload_too_large', 'unsupported_media_type');
  if (route.movesMoney) add('idempotency_key_reused');
  if (writesRecord) add('unprocessable_content');
  add('rate_limited');
  if (sendsCode || checksCode) add('two_factor_locked');
  if (sendsCode) add('sms_rate_limited');
  add('request_header_fields_too_large', 'internal_error', 'bad_gateway');
  if (sendsCode) add('sms_provider_failed');
  add('core_unavailable', 'store_unavailable', 'core_timeout');
  return codes;
}

const pascal = (code: string): string => code.split('_').map(capitalised).join('');

/** The headers that go with a problem of this status. */
function problemHeaders(status: number): string[] {
  if (status === 405) return [...COMMON_HEADERS, 'Allow'];
  if (status === 409 || status === 429 || status === 503) return [...COMMON_HEADERS, 'Retry-After'];
  return COMMON_HEADERS;
}

/**
 * The codes every route can answer (authentication, access, limits, the core's and the store's
 * failures): the shared `default` response lists them, so an operation lists only what it adds.
 */
export function commonCodes(routes: readonly Route[]): ErrorCode[] {
  const [first, ...rest] = routes.map((route) => new Set([...problemCodes(route).values()].flat()));
  return [...(first ?? [])].filter((code) => rest.every((codes) => codes.has(code)));
}

/** The default response: any of the common codes, each with its status, as the one problem shape. */
export function defaultResponse(codes: readonly ErrorCode[]): OpenApiSchema {
  const lines = codes.map((code) => `- ${ERROR_CATALOGUE[code].status} \`${code}\`: ${ERROR_CATALOGUE[code].title}`);
  return {
    description: [
      'An error any operation can answer, as an RFC 9457 problem (application/problem+json, or +xml when you asked for XML). Act on `code`, quote `requestId`:',
      '',
      ...lines,
      '',
      'Retry-After comes with 429 and 503. The statuses an operation lists above are the ones it adds, or says more about.',
    ].join('\n'),
    headers: headerRefs(...COMMON_HEADERS, 'Retry-After'),
    content: problemContent(codes),
  };
}

/**
 * The problem statuses an operation lists itself: those of the codes it adds to the common ones,
 * 400 where the vendor writes query parameters or a body, 404 where the path names a record.
 */
function ownStatuses(route: Route, problems: Map<number, ErrorCode[]>, common: ReadonlySet<ErrorCode>): Set<number> {
  const own = new Set<number>();
  for (const [status, codes] of problems) if (codes.some((code) => !common.has(code))) own.add(status);
  if (route.query.length > 0 || route.consumes.length > 0) own.add(400);
  if (route.segments.some((segment) => segment.startsWith('{'))) own.add(404);
  return own;
}

/** A money movement's 502 or 504: the core may have moved the money, so the answer says to look before posting again. */
function outcomeUnknownResponse(codes: readonly ErrorCode[], responses: Record<string, OpenApiSchema>): OpenApiSchema {
  const name = `${codes.map(pascal).join('Or')}OnMoneyMovement`;
  responses[name] ??= {
    description:
      `${codes.map((code) => `${code} (${ERROR_CATALOGUE[code].title})`).join(', ')}. The outcome is unknown: the core may have posted. ` +
      'Check the account; if the money did not move, post again with a new Idempotency-Key (the same key answers 409 outcome_unknown and is never sent on).',
    headers: headerRefs(...COMMON_HEADERS),
    content: problemContent(codes),
  };
  return { $ref: `#/components/responses/${name}` };
}

/** A `$ref` to the shared problem response for these codes, adding it on first use. */
function problemResponse(codes: readonly ErrorCode[], responses: Record<string, OpenApiSchema>): OpenApiSchema {
  const name = codes.map(pascal).join('Or');
  if (!Object.hasOwn(responses, name)) {
    const status = ERROR_CATALOGUE[codes[0] as ErrorCode].status;
    responses[name] = {
      description: codes.map((code) => `${code} (${ERROR_CATALOGUE[code].title})`).join(', '),
      headers: headerRefs(...problemHeaders(status)),
      content: problemContent(codes),
    };
  }
  return { $ref: `#/components/responses/${name}` };
}

export function problemContent(codes: readonly ErrorCode[]): Record<string, OpenApiSchema> {
  const schema: OpenApiSchema = {
    allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }],
  };
  const [first] = codes;
  return Object.fromEntries(
    PROBLEM_MEDIA_TYPES.map((type) => [type, { schema, ...(first && type.endsWith('json') ? { example: problemExample(first) } : {}) }]),
  );
}

/** What a problem with this code looks like on the wire (the detail is the gateway's own per case). */
function problemExample(code: ErrorCode): OpenApiSchema {
  const { status, title } = ERROR_CATALOGUE[code];
  const errors = code === 'invalid_request' ? { errors: [{ field: 'pageSize', message: 'must be a whole number from 1' }] } : {};
  return {
    type: problemType(code),
    title,
    status,
    detail: `What went wrong, in words for a person (${title.toLowerCase()})`,
    code,
    requestId: '7c1f0b9e4a2d4f6b',
    ...errors,
  };
}

/**
 * The problem responses of one operation, keyed by status: the statuses it adds (ownStatuses)
 * as shared responses, and `default` for every other. A receipt's 400, 409 and 422 (which carry the
 * receipt) are left to the caller: `responses` already holding a status keeps it.
 */
export function problemResponses(
  route: Route,
  problems: Map<number, ErrorCode[]>,
  common: ReadonlySet<ErrorCode>,
  responses: Record<string, OpenApiSchema>,
  shared: Record<string, OpenApiSchema>,
): void {
  const own = ownStatuses(route, problems, common);
  for (const [status, codes] of [...problems].sort(([a], [b]) => a - b)) {
    if (own.has(status)) responses[String(status)] ??= problemResponse(codes, shared);
  }
  if (route.movesMoney) for (const status of [502, 504]) responses[String(status)] = outcomeUnknownResponse(problems.get(status) ?? [], shared);
  responses.default = { $ref: '#/components/responses/Problem' };
}
