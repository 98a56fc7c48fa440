/**
 * Puts request examples into the OpenAPI document: an `example` on each parameter and on each
 * JSON request body media type, `sort` as an enum of the fields a list sorts by, `pageSize` bounded
 * and described by the pager's own limits, a sentence added to an operation's description, and
 * paths moved so that an operation whose example another's needs comes first (a collection
 * converted from the document runs in its path order).
 *
 * Reads the examples it is given (in sandbox mode, src/sandbox/request-examples.ts builds them
 * from the sandbox's data; with a real core there are none, so the document names no record of
 * the bank's).
 * Changes the document in place, copying every shared parameter and schema object it changes.
 */
import { ROUTES_BY_API_ID, type Route } from '../catalogue/api-catalogue';
import type { OpenApiSchema } from '../contracts/body-contract';

type ParameterValue = string | number | boolean;

export interface OperationExamples {
  /** Path parameters by the route's own segment names (`bankaccountid`), query parameters and headers by name. */
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  /** The JSON body (JSON media types only; see withBodyExample). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** A sentence appended to the operation's description (how the example fits with the others). */
  readonly note?: string;
}

export interface RequestExamples {
  /** By API id. */
  readonly operations: ReadonlyMap<string, OperationExamples>;
  /** The fields each list route (by API id) sorts by: `sort` takes exactly these. */
  readonly sortFields: ReadonlyMap<string, readonly string[]>;
  /** The pager's page sizes: pageSize is at most `max`, `default` when not given. */
  readonly pageSize: { readonly default: number; readonly max: number };
  /** [path that must come first, path it must precede]: verification before the add whose code it sends. */
  readonly pathsBefore: ReadonlyArray<readonly [string, string]>;
}

const XML_MEDIA_TYPE = /[/+]xml$/;

/** The route's own names of its path parameters, in order. */
const pathNames = (route: Route): string[] => route.segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1));

function withExample(parameter: OpenApiSchema, route: Route, examples: RequestExamples, ownName: string | undefined): OpenApiSchema {
  const name = parameter.name as string;
  const value = examples.operations.get(route.apiId)?.parameters[ownName ?? name];
  const out: OpenApiSchema = { ...parameter };
  // A path segment's schema is a string: an example of another type would not be the schema's (and tools fake one instead).
  if (value !== undefined) out.example = parameter.in === 'path' ? String(value) : value;
  const fields = examples.sortFields.get(route.apiId);
  if (parameter.in === 'query' && name === 'sort' && fields) {
    out.schema = { type: 'string', enum: [...fields] };
    out.description = `${String(parameter.description ?? 'Field to sort by')}: one of the record's fields, in any letter case`;
  }
  if (parameter.in === 'query' && name === 'pageSize') {
    const { default: fallback, max } = examples.pageSize;
    out.schema = { ...(parameter.schema as OpenApiSchema), maximum: max, default: fallback };
    out.description = `Items per page with paged=true: 1 to ${max} on this sandbox (${fallback} when not given); a real core sets its own bounds`;
  }
  return out;
}

/**
 * The JSON media types get the body. The XML ones get none: the contracts could write it, but an
 * example is checked against the media type's schema, which describes the body as an object (XML
 * names in `xml` objects), and Redocly and Spectral call XML text there an error.
 */
function withBodyExample(op: OpenApiSchema, body: Readonly<Record<string, unknown>>): void {
  const requestBody = op.requestBody as { content?: Record<string, OpenApiSchema> } | undefined;
  if (!requestBody?.content) return;
  const content: Record<string, OpenApiSchema> = {};
  for (const [type, media] of Object.entries(requestBody.content)) content[type] = XML_MEDIA_TYPE.test(type) ? media : { ...media, example: body };
  op.requestBody = { ...requestBody, content };
}

/** The paths in their order, each `first` moved to just before its `then`. */
function reordered(paths: Record<string, unknown>, before: RequestExamples['pathsBefore']): Record<string, unknown> {
  const order = Object.keys(paths);
  for (const [first, then] of before) {
    if (!order.includes(first) || !order.includes(then)) continue;
    order.splice(order.indexOf(first), 1);
    order.splice(order.indexOf(then), 0, first);
  }
  return Object.fromEntries(order.map((path) => [path, paths[path]]));
}

export function addRequestExamples(document: { paths: Record<string, Record<string, OpenApiSchema>> }, examples: RequestExamples): void {
  for (const methods of Object.values(document.paths)) {
    for (const op of Object.values(methods)) {
      const route = ROUTES_BY_API_ID.get(op['x-api-id'] as string);
      if (!route) continue;
      const own = pathNames(route);
      let pathIndex = 0;
      if (Array.isArray(op.parameters)) {
        op.parameters = (op.parameters as OpenApiSchema[]).map((parameter) =>
          withExample(parameter, route, examples, parameter.in === 'path' ? own[pathIndex++] : undefined),
        );
      }
      const operation = examples.operations.get(route.apiId);
      if (operation?.body) withBodyExample(op, operation.body);
      if (operation?.note) op.description = `${String(op.description ?? '')} ${operation.note}`.trim();
    }
  }
  document.paths = reordered(document.paths, examples.pathsBefore) as typeof document.paths;
}
