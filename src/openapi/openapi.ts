/**
 * The vendor API's OpenAPI 3.1 document, generated from the API catalogue and the body
 * contracts (so it cannot drift from what the gateway enforces), and the handler that serves it.
 *
 * Reads the routes, the contracts (one schema per DTO for JSON and XML, the .NET names in
 * `xml` objects), the records each route answers (resource-schemas.ts), the error catalogue
 * (each problem status with the codes it can carry) and the token header names; built once at
 * start-up. Every operation carries its API id (public contract) as `x-api-id`;
 * its `operationId` is the same words made URL-safe (`GETaccounts/{accountId}` →
 * `getAccountsByAccountId`), as code generators and linters need. Templates that differ only in
 * their parameter names (`/bankaccounts/{id}` and `/bankaccounts/{bankaccountid}`) are one path.
 */
import { PATH_PARAMETER_PATTERN, QUERY_VALUE_PATTERNS, type QueryValueType, type Route } from '../catalogue/api-catalogue';
import type { BodyContracts, OpenApiSchema } from '../contracts/body-contract';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue';
import { addRequestExamples, type RequestExamples } from './request-examples';
import { resourceBodySchema, successAnswer } from './resource-schemas';

interface OpenApiOptions {
  readonly routes: readonly Route[];
  readonly contracts: BodyContracts;
  /** The gateway's version, shown as the document's `info.version`. */
  readonly version: string;
  readonly tokenHeader: string;
  readonly receiptTokenHeader: string;
  /** Example records by schema name (`Account`, ...): the sandbox's, in sandbox mode; none with a real core, whose data they are not. */
  readonly examples?: ReadonlyMap<string, unknown>;
  /** Request examples (parameters, bodies, sort fields, page bounds): the sandbox's, in sandbox mode; none with a real core. */
  readonly requestExamples?: RequestExamples;
}

export type OpenApiDocument = Record<string, unknown> & { readonly paths: Record<string, Record<string, OpenApiSchema>> };

const PROBLEM_MEDIA_TYPES = ['application/problem+json', 'application/problem+xml'];

const PROBLEM_SCHEMA: OpenApiSchema = {
  type: 'object',
  description:
    'RFC 9457 problem details, the one shape of every error the vendor port answers (whatever the core sent); ' +
    'application/problem+xml (namespace urn:ietf:rfc:7807) when the client asked for XML',
  xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Error code from the gateway catalogue (README "Errors"): act on this, not on the title' },
    requestId: { type: 'string', description: 'The X-Request-Id of the answer: quote it to the bank' },
    errors: {
      type: 'array',
      description: "Every bad field, named by its path in the request's own wire names (Fees[0].Amount in XML, fees[0].amount in JSON)",
      xml: { wrapped: true },
      items: {
        type: 'object',
        xml: { name: 'i' },
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'message'],
      },
    },
  },
};

/** A JSON refusal of receipt input: the problem, with the receipt's members as far as they could be read beside it. */
const RECEIPT_REFUSAL_SCHEMA: OpenApiSchema = {
  description:
    "The problem, with the receipt's members beside it: when the gateway refused the receipt's own fields, the receipt as far as it could be read " +
    "(errorMessage naming every bad field, hasOverride false); when the core refused it, the core's receipt as it wrote it " +
    '(errorMessage, hasOverride, transactionOverrides). A problem member wins over a receipt member of the same name',
  allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { errorMessage: { type: 'string' }, hasOverride: { type: 'boolean' } } }],
};

/** How each kind of declared query value is written (the request-target step checks the same). */
const QUERY_VALUE_SCHEMAS: Readonly<Record<QueryValueType, OpenApiSchema>> = {
  'field-name': { type: 'string', pattern: QUERY_VALUE_PATTERNS['field-name'].source },
  boolean: { type: 'boolean' },
  'positive-integer': { type: 'integer', minimum: 1, maximum: 999_999_999 },
  'date-time': { type: 'string', pattern: QUERY_VALUE_PATTERNS['date-time'].source, example: '2024-03-01T09:30:00' },
};

/** The query parameters a route declares: the only ones it takes (any other is a 400). */
function queryParameters(route: Route): OpenApiSchema[] {
  return route.query.map((parameter) => ({
    name: parameter.name,
    in: 'query',
    required: false,
    schema: QUERY_VALUE_SCHEMAS[parameter.type],
    description: parameter.description,
  }));
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 255 },
  description: 'Makes a retry safe: the same key (or, without one, the same ExternalRefNo) replays the first answer for 24 h',
};

const HEADERS: Readonly<Record<string, OpenApiSchema>> = {
  'X-Request-Id': {
    required: true,
    schema: { type: 'string' },
    description: "The request id (the client's when sane, else generated); problems carry it as requestId",
  },
  RateLimit: {
    schema: { type: 'string' },
    description: 'IETF RateLimit: what is left of the key\'s window, e.g. "per-key";r=5988;t=60 (on every answer once the key is known)',
  },
  'RateLimit-Policy': { schema: { type: 'string' }, description: 'IETF RateLimit-Policy: the key\'s quota and window, e.g. "per-key";q=6000;w=60' },
  'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying' },
  Allow: { schema: { type: 'string' }, description: 'The methods the path takes' },
  Location: {
    schema: { type: 'string' },
    description: "Where the created record is read through the gateway: the core's Location as a gateway path (absent when the core sends none)",
  },
  'Idempotent-Replayed': {
    schema: { type: 'boolean' },
    description: 'true when this is the stored answer to an earlier request with the same idempotency key',
  },
};

const headerRefs = (...names: string[]): Record<string, OpenApiSchema> =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** The headers every answer carries (or may): the request id and, once the key is known, its rate limit. */
const COMMON_HEADERS = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy'];

/** The problem statuses an operation can answer, with the catalogue codes each can carry. */
function problemCodes(route: Route): Map<number, ErrorCode[]> {
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

function problemContent(codes: readonly ErrorCode[]): Record<string, OpenApiSchema> {
  const schema: OpenApiSchema = {
    allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }],
  };
  return Object.fromEntries(PROBLEM_MEDIA_TYPES.map((type) => [type, { schema }]));
}

/** The route's path parameters, under the names of the path item it is listed in (`names`, in order). */
function pathParameters(route: Route, names: readonly string[]): OpenApiSchema[] {
  return route.segments
    .filter((segment) => segment.startsWith('{'))
    .map((segment, i) => {
      const own = segment.slice(1, -1);
      const name = names[i] ?? own;
      return {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: PATH_PARAMETER_PATTERN.source },
        ...(name === own ? {} : { description: `The spec names this segment ${own}` }),
      };
    });
}

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `GETaccounts/{accountId}/transactions` → `getAccountsByAccountIdTransactions`. */
function operationIdOf(route: Route): string {
  const words = route.segments.map((segment) => (segment.startsWith('{') ? `By${capitalised(segment.slice(1, -1))}` : capitalised(segment)));
  return route.method.toLowerCase() + words.join('');
}

/** A template's shape, parameter names left out: `/bankaccounts/{}`. */
const templateShape = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');
const parameterNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/** The body schema of a route with a contract (receipts, bank accounts), one for every media type it takes. */
function contractSchema(route: Route, contracts: BodyContracts, components: Record<string, OpenApiSchema>): OpenApiSchema | null {
  const contract = route.bodySchema ? contracts.get(route.bodySchema) : undefined;
  return contract?.describe?.(components) ?? null;
}

const contentOf = (mediaTypes: readonly string[], schema: OpenApiSchema): Record<string, OpenApiSchema> =>
  Object.fromEntries(mediaTypes.map((type) => [type, { schema }]));

/** A receipt operation's answers that carry the receipt: 201, and the 400, 409 and 422 the spec answers with it. */
function receiptResponses(route: Route, receipt: OpenApiSchema, responses: Record<string, OpenApiSchema>, problems: Map<number, ErrorCode[]>): void {
  const receiptContent = contentOf(route.produces, receipt);
  const alsoProblem = (status: number): string => `; or a problem: ${(problems.get(status) ?? []).join(', ')}`;
  responses['201'] = {
    description: 'Receipt posted',
    headers: headerRefs(...COMMON_HEADERS, 'Location', 'Idempotent-Replayed'),
    content: receiptContent,
  };
  responses['400'] = {
    description:
      'Invalid input, found by the gateway or by the core: the receipt with errorMessage, and the problem alongside: ' +
      "in JSON its members (code, requestId, errors[] naming every bad field) beside the receipt's, as application/problem+json; in XML its urn:ietf:rfc:7807 <problem> element " +
      "as the receipt's last child. The core's HTML or text is never shown. A request refused before its body is read (path, query, framing) is a plain problem",
    headers: headerRefs(...COMMON_HEADERS, 'Idempotent-Replayed'),
    content: {
      'application/problem+json': { schema: { $ref: '#/components/schemas/ReceiptRefusal' } },
      'application/problem+xml': { schema: { $ref: '#/components/schemas/Problem' } },
      ...receiptContent,
    },
  };
  // The core's refusals come back as the receipt with the problem alongside, as invalid input does.
  const refusalContent = (status: number): Record<string, OpenApiSchema> => ({
    ...problemContent(problems.get(status) ?? []),
    'application/problem+json': { schema: { $ref: '#/components/schemas/ReceiptRefusal' } },
    ...receiptContent,
  });
  responses['409'] = {
    description: `The core refused the receipt as a conflict: the receipt with errorMessage (e.g. an ExternalRefNo already used) and the problem alongside (code conflict)${alsoProblem(409)}`,
    headers: headerRefs(...COMMON_HEADERS, 'Retry-After', 'Idempotent-Replayed'),
    content: refusalContent(409),
  };
  responses['422'] = {
    description: `Override needed: the receipt with hasOverride true and transactionOverrides, and the problem alongside (code unprocessable_content)${alsoProblem(422)}`,
    headers: headerRefs(...COMMON_HEADERS, 'Idempotent-Replayed'),
    content: refusalContent(422),
  };
}

function operation(
  route: Route,
  template: string,
  options: OpenApiOptions,
  components: Record<string, OpenApiSchema>,
  sharedResponses: Record<string, OpenApiSchema>,
): OpenApiSchema {
  const isReceipt = route.group === 'receipts';
  const parameters = [...pathParameters(route, parameterNames(template)), ...queryParameters(route), ...(route.movesMoney ? [IDEMPOTENCY_KEY_PARAMETER] : [])];
  const problems = problemCodes(route);
  const body = contractSchema(route, options.contracts, components) ?? resourceBodySchema(route, components);
  const responses: Record<string, OpenApiSchema> = {};
  if (isReceipt) {
    receiptResponses(route, body ?? {}, responses, problems);
  } else {
    const success = successAnswer(route, components);
    const headers = [...COMMON_HEADERS, ...(success.location ? ['Location'] : []), ...(route.movesMoney ? ['Idempotent-Replayed'] : [])];
    responses[String(success.status)] = {
      description: success.description,
      headers: headerRefs(...headers),
      ...(success.schema ? { content: contentOf(route.produces, success.schema) } : {}),
    };
  }
  for (const [status, codes] of [...problems].sort(([a], [b]) => a - b)) {
    responses[String(status)] ??= problemResponse(codes, sharedResponses);
  }

  const summary = [...new Set(route.operations.map((o) => o.kind))].join(', ');
  const op: OpenApiSchema = {
    operationId: operationIdOf(route),
    'x-api-id': route.apiId,
    summary: `${summary}: ${route.method} /${route.path}`,
    description: `${route.method} /${route.path} as the spec lists it (${summary}), licensed and permitted as API id ${route.apiId}.`,
    tags: [route.operations[0]?.resource ?? route.segments[0]],
    // A receipt needs both keys when the receipt header is configured apart; one header otherwise.
    security: [
      isReceipt && options.receiptTokenHeader.toLowerCase() !== options.tokenHeader.toLowerCase() ? { vendorToken: [], receiptToken: [] } : { vendorToken: [] },
    ],
    responses,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.consumes.length > 0) op.requestBody = { required: true, content: contentOf(route.consumes, body ?? { type: 'object' }) };
  return op;
}

/** A tag per resource root of the spec, or the receipts' `api` root. */
function tagOf(name: string): OpenApiSchema {
  return {
    name,
    description: name === 'api' ? 'Receipts: money movement on savings and loan accounts' : `The spec's ${name} resource and the paths that start with it`,
  };
}

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const components: Record<string, OpenApiSchema> = { Problem: PROBLEM_SCHEMA, ReceiptRefusal: RECEIPT_REFUSAL_SCHEMA };
  const sharedResponses: Record<string, OpenApiSchema> = {};
  const paths: Record<string, Record<string, OpenApiSchema>> = {};
  const templateOfShape = new Map<string, string>();
  const operationIds = new Set<string>();
  for (const route of options.routes) {
    const own = `/${route.path}`;
    const template = templateOfShape.get(templateShape(own)) ?? own;
    templateOfShape.set(templateShape(own), template);
    const op = operation(route, template, options, components, sharedResponses);
    if (operationIds.has(op.operationId as string)) throw new Error(`two routes make the operationId ${String(op.operationId)}`);
    operationIds.add(op.operationId as string);
    paths[template] ??= {};
    paths[template][route.method.toLowerCase()] = op;
  }
  for (const [name, example] of options.examples ?? []) {
    const schema = components[name];
    if (schema) schema.examples = [example];
  }
  const document: OpenApiDocument = {
    openapi: '3.1.1',
    info: {
      title: 'Core Banking Gateway: vendor API',
      version: options.version,
      description:
        'The Core Banking Integration Service API as the gateway serves it. Receipt operations take and answer ' +
        'application/json, text/json, application/xml and text/xml (the answer follows Accept, else the request); one schema per .NET DTO serves both: ' +
        'JSON names are the properties (camelCase), XML names the xml objects (.NET PascalCase); enums are numbers in JSON and names in XML (x-enumNames); ' +
        "amounts are exact decimals. XML answers are written in the request root's namespace (else the configured xml.responseNamespace) with members in " +
        'DataContract order (ordinal by name; FeeLineDto and InsuranceLineDto after their ReceiptLineDto members) and ArrearsDays entries in ' +
        'http://schemas.microsoft.com/2003/10/Serialization/Arrays; invalid receipt input is answered as the receipt with errorMessage. ' +
        'Datetimes in request bodies and the period parameters take any ISO 8601 date or datetime (fractions, Z or an offset) and reach ' +
        "the core as yyyy-MM-ddTHH:mm:ss, an offset converted to UTC; the core's records carry that form. " +
        "Record shapes are those of the spec's field tables, as the sandbox core answers them. Every error is an RFC 9457 problem with a code from the " +
        "gateway's catalogue and the requestId; a method a path does not take is 405 with Allow.",
    },
    servers: [{ url: '/' }],
    paths,
    tags: [...new Set(Object.values(paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags as string[])))].sort().map(tagOf),
    components: {
      schemas: components,
      responses: sharedResponses,
      headers: HEADERS,
      securitySchemes: {
        vendorToken: { type: 'apiKey', in: 'header', name: options.tokenHeader, description: 'The vendor API key, on every request' },
        receiptToken: {
          type: 'apiKey',
          in: 'header',
          name: options.receiptTokenHeader,
          description:
            'Receipt operations also need an authenticated token in this header. When it is the vendor-token header (the default), one key serves both; ' +
            "configured apart, a receipt needs both headers, each a valid key of the same vendor (the same key may stand in both; the receipt key's user acts), else 401",
        },
      },
    },
  };
  if (options.requestExamples) addRequestExamples(document, options.requestExamples);
  return document;
}
