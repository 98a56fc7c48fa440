/**
 * The vendor API's OpenAPI 3.0 document, generated from the API catalogue and the body
 * contracts (so it cannot drift from what the gateway enforces), and the handler that serves it.
 *
 * Reads the routes, the contracts (receipt bodies in both media families: JSON names and
 * numbers for enums; XML's .NET names, enum names, wrapped lists) and the token header names;
 * built once at start-up. Every operation carries its API id (public contract) as `x-api-id`;
 * its `operationId` is the same words made URL-safe (`GETaccounts/{accountId}` →
 * `getAccountsByAccountId`), as code generators and linters need. Templates that differ only in
 * their parameter names (`/bankaccounts/{id}` and `/bankaccounts/{bankaccountid}`) are one path.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { PATH_PARAMETER_PATTERN, QUERY_VALUE_PATTERNS, type QueryValueType, type Route } from '../catalogue/api-catalogue';
import type { BodyContracts, OpenApiSchema, WireFormat } from '../contracts/body-contract';

export interface OpenApiOptions {
  readonly routes: readonly Route[];
  readonly contracts: BodyContracts;
  /** The gateway's version, shown as the document's `info.version`. */
  readonly version: string;
  readonly tokenHeader: string;
  readonly receiptTokenHeader: string;
}

export type OpenApiDocument = Record<string, unknown> & { readonly paths: Record<string, Record<string, OpenApiSchema>> };

const FORMAT_OF: Readonly<Record<string, WireFormat>> = {
  'application/json': 'json',
  'text/json': 'json',
  'application/xml': 'xml',
  'text/xml': 'xml',
};

const PROBLEM_TYPES = ['application/problem+json', 'application/problem+xml'];
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

const PROBLEM_SCHEMA: OpenApiSchema = {
  type: 'object',
  description: 'RFC 9457 problem details; application/problem+xml (namespace urn:ietf:rfc:7807) when the client asked for XML',
  xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' },
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Error code from the gateway catalogue, e.g. invalid_request' },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Every bad field, named by its path in the request\'s own wire names (Fees[0].Amount in XML, fees[0].amount in JSON)',
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

/** How each kind of declared query value is written (the request-target step checks the same). */
const QUERY_VALUE_SCHEMAS: Readonly<Record<QueryValueType, OpenApiSchema>> = {
  'field-name': { type: 'string', pattern: QUERY_VALUE_PATTERNS['field-name'].source },
  boolean: { type: 'boolean' },
  'positive-integer': { type: 'integer', minimum: 1, maximum: 999_999_999 },
  'date-time': { type: 'string', pattern: QUERY_VALUE_PATTERNS['date-time'].source, example: '2024-03-01T09:30:00' },
};

/** The query parameters a route declares: the only ones it takes (any other is a 400). */
function queryParameters(route: Route): OpenApiSchema[] {
  return route.query.map((parameter) => ({ name: parameter.name, in: 'query', required: false, schema: QUERY_VALUE_SCHEMAS[parameter.type], description: parameter.description }));
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', maxLength: 255 },
  description: 'Makes a retry safe: the same key (or, without one, the same ExternalRefNo) replays the first answer for 24 h',
};

const REQUEST_ID_HEADER = { 'X-Request-Id': { schema: { type: 'string' }, description: 'The request id (the client\'s when sane, else generated)' } };

const PROBLEM_CONTENT = Object.fromEntries(PROBLEM_TYPES.map((t) => [t, { schema: PROBLEM_REF }]));

/** Error answers shared by many operations: one component each, referred to by $ref. */
const PROBLEM_RESPONSES: Readonly<Record<string, string>> = {
  InvalidRequest: 'Invalid request (invalid_request)',
  Unauthorized: 'No valid vendor token (unauthorized)',
  Forbidden: 'Vendor suspended, licence missing or permission missing',
  NotFound: 'No such resource (not_found)',
  PayloadTooLarge: 'Body too large (payload_too_large)',
  UnsupportedMediaType: 'Unsupported Content-Type (unsupported_media_type)',
  Conflict: 'idempotency_in_progress or outcome_unknown',
  RateLimited: 'Rate limited (rate_limited; see Retry-After)',
  BadGateway: 'Core unreachable (bad_gateway)',
  Unavailable: 'Core unavailable (core_unavailable, circuit open) or store unavailable (store_unavailable)',
  Timeout: 'Core timed out (core_timeout)',
};

function problem(name: keyof typeof PROBLEM_RESPONSES): OpenApiSchema {
  return { $ref: `#/components/responses/${name}` };
}

/** The route's path parameters, under the names of the path item it is listed in (`names`, in order). */
function pathParameters(route: Route, names: readonly string[]): OpenApiSchema[] {
  return route.segments
    .filter((segment) => segment.startsWith('{'))
    .map((segment, i) => {
      const own = segment.slice(1, -1);
      const name = names[i] ?? own;
      return { name, in: 'path', required: true, schema: { type: 'string', pattern: PATH_PARAMETER_PATTERN.source }, ...(name === own ? {} : { description: `The spec names this segment ${own}` }) };
    });
}

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `GETaccounts/{accountId}/transactions` → `getAccountsByAccountIdTransactions`. */
export function operationIdOf(route: Route): string {
  const words = route.segments.map((segment) => (segment.startsWith('{') ? `By${capitalised(segment.slice(1, -1))}` : capitalised(segment)));
  return route.method.toLowerCase() + words.join('');
}

/** A template's shape, parameter names left out: `/bankaccounts/{}`. */
const templateShape = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');
const parameterNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);

/** Schemas of a route's body per media type, from its contract, or a free-form JSON object without one. */
function bodyContent(route: Route, mediaTypes: readonly string[], contracts: BodyContracts, components: Record<string, OpenApiSchema>): Record<string, OpenApiSchema> {
  const contract = route.bodySchema ? contracts.get(route.bodySchema) : undefined;
  const described = contract?.describe?.(components) ?? {};
  const content: Record<string, OpenApiSchema> = {};
  for (const mediaType of mediaTypes) {
    const format = FORMAT_OF[mediaType];
    if (format === undefined || (contract && !contract.formats.includes(format))) continue;
    content[mediaType] = { schema: described[format] ?? { type: 'object' } };
  }
  return content;
}

function operation(route: Route, template: string, options: OpenApiOptions, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const isReceipt = route.group === 'receipts';
  const hasBody = route.consumes.length > 0;
  const parameters = [...pathParameters(route, parameterNames(template)), ...queryParameters(route), ...(route.movesMoney ? [IDEMPOTENCY_KEY_PARAMETER] : [])];
  const responses: Record<string, OpenApiSchema> = {};
  if (isReceipt) {
    const receipt = bodyContent(route, route.produces, options.contracts, components);
    responses['201'] = {
      description: 'Receipt posted; `Idempotent-Replayed: true` when this is the stored answer to a retry',
      headers: { ...REQUEST_ID_HEADER, 'Idempotent-Replayed': { schema: { type: 'boolean' } } },
      content: receipt,
    };
    responses['400'] = {
      description:
        'Invalid input, found by the gateway or by the core: the receipt with errorMessage and hasOverride false. From the gateway, the problem goes alongside: ' +
        'in JSON its members (code, requestId, errors[] naming every bad field) beside the receipt\'s, as application/problem+json; in XML its urn:ietf:rfc:7807 <problem> element as the receipt\'s last child',
      headers: REQUEST_ID_HEADER,
      content: { ...PROBLEM_CONTENT, ...receipt },
    };
    responses['422'] = {
      description: 'Override needed (the receipt with hasOverride true and transactionOverrides), or idempotency_key_reused',
      headers: REQUEST_ID_HEADER,
      content: { ...PROBLEM_CONTENT, ...receipt },
    };
  } else {
    responses[route.method === 'POST' ? '201' : '200'] = {
      description: 'Success',
      headers: REQUEST_ID_HEADER,
      content: Object.fromEntries(route.produces.map((t) => [t, { schema: {} }])),
    };
    responses['400'] = problem('InvalidRequest');
  }
  responses['401'] = problem('Unauthorized');
  responses['403'] = problem('Forbidden');
  responses['404'] = problem('NotFound');
  if (hasBody) {
    responses['413'] = problem('PayloadTooLarge');
    responses['415'] = problem('UnsupportedMediaType');
  }
  if (route.movesMoney) responses['409'] = problem('Conflict');
  responses['429'] = problem('RateLimited');
  responses['502'] = problem('BadGateway');
  responses['503'] = problem('Unavailable');
  responses['504'] = problem('Timeout');

  const summary = [...new Set(route.operations.map((o) => o.kind))].join(', ');
  const op: OpenApiSchema = {
    operationId: operationIdOf(route),
    'x-api-id': route.apiId,
    summary: `${summary}: ${route.method} /${route.path}`,
    description: `${route.method} /${route.path} as the spec lists it (${summary}), licensed and permitted as API id ${route.apiId}.`,
    tags: [route.operations[0]?.resource ?? route.segments[0]],
    // A receipt needs both keys when the receipt header is configured apart; one header otherwise.
    security: [isReceipt && options.receiptTokenHeader.toLowerCase() !== options.tokenHeader.toLowerCase() ? { vendorToken: [], receiptToken: [] } : { vendorToken: [] }],
    responses,
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (hasBody) op.requestBody = { required: true, content: bodyContent(route, route.consumes, options.contracts, components) };
  return op;
}

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const components: Record<string, OpenApiSchema> = { Problem: PROBLEM_SCHEMA };
  const paths: Record<string, Record<string, OpenApiSchema>> = {};
  const templateOfShape = new Map<string, string>();
  const operationIds = new Set<string>();
  for (const route of options.routes) {
    const own = `/${route.path}`;
    const template = templateOfShape.get(templateShape(own)) ?? own;
    templateOfShape.set(templateShape(own), template);
    const op = operation(route, template, options, components);
    if (operationIds.has(op.operationId as string)) throw new Error(`two routes make the operationId ${String(op.operationId)}`);
    operationIds.add(op.operationId as string);
    paths[template] ??= {};
    paths[template][route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Core Banking Gateway: vendor API',
      version: options.version,
      description:
        'The Core Banking Integration Service API as the gateway serves it. Receipt operations take and answer ' +
        'application/json, text/json, application/xml and text/xml (the answer follows Accept, else the request). ' +
        'JSON names are camelCase, XML names the .NET PascalCase names; enums are numbers in JSON and names in XML; ' +
        'amounts are exact decimals. XML answers are written in the request root\'s namespace (else the configured xml.responseNamespace) with members in ' +
        'DataContract order (ordinal by name; FeeLineDto and InsuranceLineDto after their ReceiptLineDto members) and ArrearsDays entries in ' +
        'http://schemas.microsoft.com/2003/10/Serialization/Arrays; invalid receipt input is answered as the receipt with errorMessage. ' +
        'Datetimes (DateClosed, resource datetimes, the period parameters) take any ISO 8601 date or datetime (fractions, Z or an offset) and reach ' +
        'the core as yyyy-MM-ddTHH:mm:ss, an offset converted to UTC.',
    },
    servers: [{ url: '/' }],
    paths,
    tags: [...new Set(Object.values(paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags as string[])))].sort().map((name) => ({ name })),
    components: {
      schemas: components,
      responses: Object.fromEntries(
        Object.entries(PROBLEM_RESPONSES).map(([name, description]) => [name, { description, headers: REQUEST_ID_HEADER, content: PROBLEM_CONTENT }]),
      ),
      securitySchemes: {
        vendorToken: { type: 'apiKey', in: 'header', name: options.tokenHeader, description: 'The vendor API key, on every request' },
        receiptToken: {
          type: 'apiKey',
          in: 'header',
          name: options.receiptTokenHeader,
          description:
            'Receipt operations also need an authenticated token in this header. When it is the vendor-token header (the default), one key serves both; ' +
            'configured apart, a receipt needs both headers, each a valid key of the same vendor (the same key may stand in both; the receipt key\'s user acts), else 401',
        },
      },
    },
  };
}

/** GET /openapi.json: the document, serialised once. */
/**
 * Serves the document: readable from any origin (API tools and documentation sites fetch it
 * from the browser; it holds no secret), with an ETag so a client revalidates instead of
 * downloading it again, and an X-Request-Id like every other answer.
 */
export function openApiHandler(document: OpenApiDocument): RequestHandler {
  const body = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return function openApiDocument(req, res) {
    res.setHeader('X-Request-Id', randomUUID());
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('ETag', etag);
    const cached = req.headers['if-none-match'];
    if (cached !== undefined && cached.split(',').some((tag) => tag.trim() === etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  };
}
