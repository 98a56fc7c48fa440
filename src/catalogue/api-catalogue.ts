/**
 * The API catalogue: every operation of the Core Banking Integration Service spec, as data.
 *
 * Reads nothing; exports the frozen list of operations and the route table derived from it.
 * An operation is what the spec lists (ALL and SEARCH are two operations); a route is one
 * method + path template, which is what the gateway matches, licenses and forwards. ALL and
 * SEARCH share a route (`GET accounts`), and the spec lists `GET /customers/{id}/bankaccounts`
 * both as an additional GET path and as a bank-account operation: it is one route.
 *
 * API id (public contract): method + path template as the spec writes it, no leading or
 * trailing slash: `GETaccounts`, `GETaccounts/{accountId}`, `POSTapi/transaction/savings/deposit`.
 */

/** A route's group is one of the first three; `customers` guards only the two-factor step's customer lookup. */
export type BreakerGroup = 'resources' | 'bankaccounts' | 'receipts' | 'customers';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
type OperationKind = 'ALL' | 'GET' | 'SEARCH' | 'POST' | 'PUT' | 'DELETE' | 'ADDITIONAL_GET' | 'BANK_ACCOUNT' | 'RECEIPT';

/** Body schema ids; the schemas themselves live in src/contracts (receipts, bank accounts). */
export type BodySchemaId =
  'ReceiptPaymentDto' | 'ReceiptSavingsDepositWebDto' | 'ReceiptReversalWebDto' | 'BankAccountVerification' | 'BankAccountAdd' | 'BankAccountUpdate';

export interface Operation {
  /** What the spec calls it: ALL, GET, SEARCH, ... */
  readonly kind: OperationKind;
  readonly method: HttpMethod;
  /** Path template as the spec writes it, without leading or trailing slash. */
  readonly path: string;
  /** The resource root (first path segment) the operation belongs to. */
  readonly resource: string;
}

/** How the gateway reads a declared query parameter before it re-encodes it for the core. */
export type QueryValueType = 'field-name' | 'boolean' | 'positive-integer' | 'date-time';

/** What a value of each type may be once decoded (booleans: true or false, any case). */
export const QUERY_VALUE_PATTERNS: Readonly<Record<Exclude<QueryValueType, 'boolean'>, RegExp>> = {
  'field-name': /^[A-Za-z_][A-Za-z0-9_.]{0,63}$/,
  'positive-integer': /^0*[1-9]\d{0,8}$/,
  // Any ISO 8601 date or datetime shape; core-datetime.ts checks and normalises the value.
  'date-time': /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:?\d{2})?)?$/,
};

/** What a path parameter may be once decoded: unreserved characters only, so it needs no encoding. */
export const PATH_PARAMETER_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

/** A query parameter a route declares: the only ones the core ever receives on that route. */
export interface QueryParameter {
  /** Canonical spelling, sent to the core; vendors may write it in any case (ASP.NET binds so). */
  readonly name: string;
  readonly type: QueryValueType;
  readonly description: string;
}

export interface Route {
  /** Public contract: method + path template. */
  readonly apiId: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly segments: readonly string[];
  readonly group: BreakerGroup;
  /** Media types the route accepts in a request body (empty: no body expected). */
  readonly consumes: readonly string[];
  readonly produces: readonly string[];
  readonly bodySchema: BodySchemaId | null;
  /** True where SEARCH's query string (sort, paged, page, pageSize, ascending) applies. */
  readonly search: boolean;
  /** The query parameters this route declares; any other is refused (400), none reaches the core. */
  readonly query: readonly QueryParameter[];
  /** True where the gateway itself answers and the core never sees the call (the SMS verification). */
  readonly answeredByGateway: boolean;
  /** True for money movement: idempotency-guarded, never retried. */
  readonly movesMoney: boolean;
  /** The spec operations this route serves. */
  readonly operations: readonly Operation[];
}

const JSON_TYPES = ['application/json'] as const;
const RECEIPT_MEDIA_TYPES = ['application/json', 'text/json', 'application/xml', 'text/xml'] as const;

/** The 16 resource roots and the name the spec gives each one's id segment. */
export const RESOURCE_ROOTS: ReadonlyArray<readonly [root: string, idName: string]> = [
  ['accounts', 'accountId'],
  ['addresses', 'id'],
  ['branches', 'branchId'],
  ['countrycodes', 'countryCodesId'],
  ['customers', 'id'],
  ['employers', 'employersId'],
  ['genders', 'genderId'],
  ['loanproducts', 'id'],
  ['loanreasons', 'id'],
  ['loanrepaymentperiods', 'id'],
  ['messages', 'id'],
  ['messagethread', 'id'],
  ['people', 'memberId'],
  ['productshares', 'productSharesId'],
  ['titles', 'titleId'],
  ['transactions', 'memberId'],
];

/** The spec's "Additional GET paths" table, in its order. */
const ADDITIONAL_GET_PATHS: readonly string[] = [
  'accounts/{accountId}/transactions',
  'branches/{branchId}/address',
  'customers/{memberId}/accounts',
  'customers/{memberId}/historicalaccounts',
  'customers/{memberId}/bankaccounts',
  'customers/{memberId}/productshares',
  'customers/{memberId}/messagethreads',
  'customers/{memberId}/marketingpreferences',
  'customers/{memberId}/totalpledgedsavings',
  'loanproducts/{id}/reasons',
  'messagethreads/{id}/messages',
  'transactions/{memberId}/batchstatement',
  'transactions/{memberId}/between',
];

/** The spec's bank account operations, in its order. */
const BANK_ACCOUNT_OPERATIONS: ReadonlyArray<readonly [HttpMethod, string, BodySchemaId | null]> = [
  ['POST', 'bankaccounts/add', 'BankAccountAdd'],
  ['GET', 'customers/{id}/bankaccounts', null],
  ['GET', 'bankaccounts/{id}', null],
  ['PUT', 'bankaccounts/{bankaccountid}', 'BankAccountUpdate'],
  ['POST', 'bankaccounts/verification', 'BankAccountVerification'],
];

/** The spec's receipt operations and their body DTOs. */
const RECEIPT_OPERATIONS: ReadonlyArray<readonly [string, BodySchemaId]> = [
  ['api/transaction/savings/deposit', 'ReceiptPaymentDto'],
  ['api/transaction/savings/payment', 'ReceiptSavingsDepositWebDto'],
  ['api/transaction/loan/reversal', 'ReceiptReversalWebDto'],
];

/** SEARCH's query (spec: sort string, paged bool, page int, pageSize int, ascending bool). */
const SEARCH_QUERY: readonly QueryParameter[] = Object.freeze([
  { name: 'sort', type: 'field-name', description: 'Field to sort by' },
  { name: 'ascending', type: 'boolean', description: 'Sort direction (default true)' },
  { name: 'paged', type: 'boolean', description: 'Answer one page instead of the whole list' },
  { name: 'page', type: 'positive-integer', description: 'Page number, from 1 (with paged=true)' },
  {
    name: 'pageSize',
    type: 'positive-integer',
    description:
      'Items per page (the sandbox core: 20 unless asked, at most 100, sandbox.defaultPageSize and maxPageSize; a real core sets its own); page and pageSize apply only with paged=true',
  },
]);

/**
 * The period of `between` and `batchstatement`, whose parameters the spec does not show: the
 * sandbox reads `from` and `to` (a date, or a datetime without zone), and so may a real core.
 */
const PERIOD_QUERY: readonly QueryParameter[] = Object.freeze([
  {
    name: 'from',
    type: 'date-time',
    description:
      'Start of the period: a date (2024-03-01, from its start) or a datetime (2024-03-01T09:30:00; fractions, Z or an offset accepted, an offset converted to UTC)',
  },
  { name: 'to', type: 'date-time', description: 'End of the period, inclusive: a date (to its end) or a datetime, as for from' },
]);

const PERIOD_PATHS = new Set(['transactions/{memberId}/batchstatement', 'transactions/{memberId}/between']);

function op(kind: OperationKind, method: HttpMethod, path: string): Operation {
  return Object.freeze({ kind, method, path, resource: path.split('/')[0] as string });
}

/** Every operation the spec lists: 16 × 6 resource operations, 2 for banks, 13 + 5 + 3. */
export function specOperations(): Operation[] {
  const ops: Operation[] = [];
  for (const [root, idName] of RESOURCE_ROOTS) {
    ops.push(op('ALL', 'GET', root));
    ops.push(op('GET', 'GET', `${root}/{${idName}}`));
    ops.push(op('SEARCH', 'GET', root));
    ops.push(op('POST', 'POST', root));
    ops.push(op('PUT', 'PUT', `${root}/{${idName}}`));
    ops.push(op('DELETE', 'DELETE', `${root}/{${idName}}`));
  }
  ops.push(op('ALL', 'GET', 'banks'));
  ops.push(op('SEARCH', 'GET', 'banks'));
  for (const path of ADDITIONAL_GET_PATHS) ops.push(op('ADDITIONAL_GET', 'GET', path));
  for (const [method, path] of BANK_ACCOUNT_OPERATIONS) ops.push(op('BANK_ACCOUNT', method, path));
  for (const [path] of RECEIPT_OPERATIONS) ops.push(op('RECEIPT', 'POST', path));
  return ops;
}

/** Route shape key: parameter names do not make two routes different. */
function shapeKey(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}/g, '{}').toLowerCase()}`;
}

function groupOf(operation: Operation): BreakerGroup {
  if (operation.kind === 'RECEIPT') return 'receipts';
  if (operation.kind === 'BANK_ACCOUNT' || operation.path.endsWith('/bankaccounts')) return 'bankaccounts';
  return 'resources';
}

function buildRoutes(): Route[] {
  const byShape = new Map<string, { first: Operation; operations: Operation[] }>();
  for (const operation of specOperations()) {
    const key = shapeKey(operation.method, operation.path);
    const existing = byShape.get(key);
    if (existing) existing.operations.push(operation);
    else byShape.set(key, { first: operation, operations: [operation] });
  }
  const bodySchemas = new Map<string, BodySchemaId>();
  for (const [method, path, schema] of BANK_ACCOUNT_OPERATIONS) if (schema) bodySchemas.set(`${method} ${path}`, schema);
  for (const [path, schema] of RECEIPT_OPERATIONS) bodySchemas.set(`POST ${path}`, schema);

  return [...byShape.values()].map(({ first, operations }) => {
    const group = groupOf(first);
    const bodySchema = bodySchemas.get(`${first.method} ${first.path}`) ?? null;
    const isReceipt = group === 'receipts';
    const hasBody = first.method === 'POST' || first.method === 'PUT';
    const search = operations.some((o) => o.kind === 'SEARCH');
    return Object.freeze({
      apiId: `${first.method}${first.path}`,
      method: first.method,
      path: first.path,
      segments: Object.freeze(first.path.split('/')),
      group,
      consumes: Object.freeze(hasBody ? [...(isReceipt ? RECEIPT_MEDIA_TYPES : JSON_TYPES)] : []),
      produces: Object.freeze([...(isReceipt ? RECEIPT_MEDIA_TYPES : JSON_TYPES)]),
      bodySchema,
      search,
      query: search ? SEARCH_QUERY : PERIOD_PATHS.has(first.path) ? PERIOD_QUERY : Object.freeze([]),
      answeredByGateway: first.path === 'bankaccounts/verification',
      movesMoney: isReceipt || first.path === 'bankaccounts/add',
      operations: Object.freeze(operations),
    });
  });
}

/** The routes the gateway serves, one per method + path shape. */
export const ROUTES: readonly Route[] = Object.freeze(buildRoutes());

export const ROUTES_BY_API_ID: ReadonlyMap<string, Route> = new Map(ROUTES.map((r) => [r.apiId, r]));
