/**
 * The vendor API's OpenAPI 3.1 document, generated from the API catalogue and the body
 * contracts (so it cannot drift from what the gateway enforces); served-document.ts serves it.
 *
 * Reads the routes, the contracts (one schema per DTO for JSON and XML, the .NET names in
 * `xml` objects), the records each route answers (resource-schemas.ts), the error answers
 * (problem-responses.ts: a shared `default` and the statuses each operation adds), the words a
 * reader sees (operation-prose.ts: summaries, descriptions, tags, the opening) and the token
 * header names (one security scheme per distinct header); built once at start-up. In sandbox
 * mode, request-examples.ts adds examples that run. Every operation carries its API id (public
 * contract) as `x-api-id`; its `operationId` is the same words made URL-safe (`GETaccounts/{accountId}` →
 * `getAccountsByAccountId`), as code generators and linters need. Templates that differ only in
 * their parameter names (`/bankaccounts/{id}` and `/bankaccounts/{bankaccountid}`) are one path.
 */
import { PATH_PARAMETER_PATTERN, QUERY_VALUE_PATTERNS, type QueryValueType, type Route } from '../catalogue/api-catalogue';
import type { BodyContracts, OpenApiSchema } from '../contracts/body-contract';
import type { ErrorCode } from '../errors/error-catalogue';
import { documentTags, infoDescription, operationProse, tagOf } from './operation-prose';
import { COMMON_HEADERS, commonCodes, defaultResponse, headerRefs, problemCodes, problemContent, problemResponses } from './problem-responses';
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
    code: { type: 'string', description: 'Error code from the gateway catalogue (the Errors table of the vendor guide): act on this, not on the title' },
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
  common: ReadonlySet<ErrorCode>,
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
  problemResponses(route, problems, common, responses, sharedResponses);

  const op: OpenApiSchema = {
    operationId: operationIdOf(route),
    'x-api-id': route.apiId,
    ...operationProse(route),
    tags: [tagOf(route)],
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

/** One scheme per distinct header: the receipt token's only when it is configured apart from the vendor token's. */
function securitySchemes(tokenHeader: string, receiptTokenHeader: string): Record<string, OpenApiSchema> {
  const key = { type: 'apiKey', in: 'header' };
  if (receiptTokenHeader.toLowerCase() === tokenHeader.toLowerCase()) {
    return {
      vendorToken: {
        ...key,
        name: tokenHeader,
        description:
          'Your API key (cbk_…), on every request. The receipt operations also need an authenticated token in the receipt-token header, ' +
          'which is this same header here: the one key serves both. Without a valid key: 401 unauthorized.',
      },
    };
  }
  return {
    vendorToken: { ...key, name: tokenHeader, description: 'Your API key (cbk_…), on every request. Without a valid key: 401 unauthorized.' },
    receiptToken: {
      ...key,
      name: receiptTokenHeader,
      description:
        'The receipt operations also need an authenticated token in this header, configured apart from the vendor-token header: a receipt needs both ' +
        "headers, each a valid key of the same vendor (the same key may stand in both; the receipt key's user acts), else 401",
    },
  };
}

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const components: Record<string, OpenApiSchema> = { Problem: PROBLEM_SCHEMA, ReceiptRefusal: RECEIPT_REFUSAL_SCHEMA };
  const codes = commonCodes(options.routes);
  const common = new Set(codes);
  const sharedResponses: Record<string, OpenApiSchema> = { Problem: defaultResponse(codes) };
  const paths: Record<string, Record<string, OpenApiSchema>> = {};
  const templateOfShape = new Map<string, string>();
  const operationIds = new Set<string>();
  for (const route of options.routes) {
    const own = `/${route.path}`;
    const template = templateOfShape.get(templateShape(own)) ?? own;
    templateOfShape.set(templateShape(own), template);
    const op = operation(route, template, options, components, sharedResponses, common);
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
      description: infoDescription(options.tokenHeader),
    },
    servers: [{ url: '/' }],
    paths,
    tags: documentTags(new Set(Object.values(paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags as string[])))),
    components: {
      schemas: components,
      responses: sharedResponses,
      headers: HEADERS,
      securitySchemes: securitySchemes(options.tokenHeader, options.receiptTokenHeader),
    },
  };
  if (options.requestExamples) addRequestExamples(document, options.requestExamples);
  return document;
}
