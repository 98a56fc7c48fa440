/**
 * The success answers of the resource, additional-GET and bank-account routes: OpenAPI 3.1
 * schemas of the spec's records built from src/contracts/resource-fields.ts (the field tables
 * the sandbox core answers from), and which record, list or envelope each route answers.
 *
 * Reads the catalogue's routes and the field tables; fills the `components` map it is given.
 * Types: int → integer/int32, long → integer/int64, decimal → number with format `decimal`
 * (the core writes .NET decimals as JSON numbers and the gateway passes them on as written: a
 * string form would change the core's bytes; a client keeps them exact with a decimal-aware
 * parser), datetime → a string without offset (the core's yyyy-MM-ddTHH:mm:ss; JSON Schema's
 * `date-time` format demands an offset, so a pattern says it instead).
 */
import type { Route } from '../catalogue/api-catalogue';
import type { OpenApiSchema } from '../contracts/body-contract';
import {
  BANK_ACCOUNT_FIELDS,
  BATCH_STATEMENT_FIELDS,
  MARKETING_PREFERENCES_FIELDS,
  PAGE_FIELDS,
  RESOURCE_RECORDS,
  STATEMENT_ACCOUNT_FIELDS,
  TOTAL_PLEDGED_SAVINGS_FIELDS,
  fieldDefinitions,
  type FieldSchema,
  type FieldType,
} from '../contracts/resource-fields';

/** How a route's success is answered: its status, a description and the body's schema (none for 204). */
interface SuccessAnswer {
  readonly status: number;
  readonly description: string;
  readonly schema: OpenApiSchema | null;
  /** True where the answer carries `Location` (a created record's path on the gateway). */
  readonly location: boolean;
}

/** The core's datetime form: no offset, optional fraction (the bank's local time). */
const CORE_DATETIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,7})?$';

const FIELD_TYPE_SCHEMAS: Readonly<Record<FieldType, OpenApiSchema>> = {
  int: { type: 'integer', format: 'int32' },
  long: { type: 'integer', format: 'int64' },
  number: { type: 'number' },
  decimal: { type: 'number', format: 'decimal', description: 'Exact decimal, written with its scale (2017.97); read it with a decimal-preserving JSON parser' },
  string: { type: 'string' },
  bool: { type: 'boolean' },
  datetime: {
    type: 'string',
    pattern: CORE_DATETIME_PATTERN,
    description: 'Date and time without offset, as the core writes it (yyyy-MM-ddTHH:mm:ss)',
    examples: ['2025-06-16T14:44:31'],
  },
};

const ref = (name: string): OpenApiSchema => ({ $ref: `#/components/schemas/${name}` });
const listOf = (name: string): OpenApiSchema => ({ type: 'array', items: ref(name) });

/**
 * The object schema of a field table. `readOnlyKey` marks the key the core assigns, so a POST
 * body leaves it out (OpenAPI: a readOnly property is required only in answers).
 */
function objectSchema(fields: FieldSchema, description: string, readOnlyKey?: string, extra: Record<string, OpenApiSchema> = {}): OpenApiSchema {
  const properties: Record<string, OpenApiSchema> = {};
  const required: string[] = [];
  for (const field of fieldDefinitions(fields)) {
    const base = FIELD_TYPE_SCHEMAS[field.type];
    const schema: OpenApiSchema = field.nullable ? { ...base, type: [base.type as string, 'null'] } : { ...base };
    if (field.name === readOnlyKey) schema.readOnly = true;
    properties[field.name] = schema;
    if (!field.optional) required.push(field.name);
  }
  for (const [name, schema] of Object.entries(extra)) {
    properties[name] = schema;
    required.push(name);
  }
  return { type: 'object', description, properties, required };
}

/** Adds a component once and returns its name. */
function component(components: Record<string, OpenApiSchema>, name: string, build: () => OpenApiSchema): string {
  if (!Object.hasOwn(components, name)) components[name] = build();
  return name;
}

type Casing = 'camelCase' | 'PascalCase';

const casingOfName = (name: string): Casing => (/^[a-z]/.test(name) ? 'camelCase' : 'PascalCase');

/** The casing most of a table's field names have, and the names written otherwise (the spec's, as given). */
function casingOf(fields: FieldSchema): { casing: Casing; exceptions: string[] } {
  const names = Object.keys(fields);
  const camel = names.filter((name) => casingOfName(name) === 'camelCase').length;
  const casing: Casing = camel * 2 > names.length ? 'camelCase' : 'PascalCase';
  return { casing, exceptions: names.filter((name) => casingOfName(name) !== casing) };
}

const fieldsOfRoot = (root: string): FieldSchema | undefined => (root === 'bankaccounts' ? BANK_ACCOUNT_FIELDS : RESOURCE_RECORDS.get(root)?.fields);

/** How a resource root's records name their fields (`bankaccounts` too), or null for a root without records. */
export function recordCasing(root: string): Casing | null {
  const fields = fieldsOfRoot(root);
  return fields ? casingOf(fields).casing : null;
}

/** The sentence a record schema carries on its field names, which differ by resource as the spec gives them. */
function casingSentence(fields: FieldSchema): string {
  const { casing, exceptions } = casingOf(fields);
  const camel = [...RESOURCE_RECORDS].filter(([, r]) => casingOf(r.fields).casing === 'camelCase').map(([root]) => root);
  const except = exceptions.length > 0 ? ` (but ${exceptions.join(', ')}, as the spec writes them)` : '';
  return (
    `Field names are ${casing}${except} and case-sensitive. The casing differs by resource, as the spec's field tables give it: ` +
    `${camel.join(', ')} and the receipts are camelCase; the other records, bank accounts included, PascalCase.`
  );
}

function recordsOf(root: string): { name: string; fields: FieldSchema; key: string; clientKey: boolean } {
  const records = RESOURCE_RECORDS.get(root);
  if (!records) throw new Error(`no record fields for resource root ${root}`);
  return records;
}

function recordSchema(root: string, components: Record<string, OpenApiSchema>): string {
  const records = recordsOf(root);
  return component(components, records.name, () =>
    objectSchema(
      records.fields,
      `A ${root} record: the spec's fields, in its order. ${casingSentence(records.fields)}`,
      records.clientKey ? undefined : records.key,
    ),
  );
}

function bankAccountSchema(components: Record<string, OpenApiSchema>): string {
  return component(components, 'BankAccount', () =>
    objectSchema(
      BANK_ACCOUNT_FIELDS,
      `A customer's bank account at another bank; DateClosed null while it is active. ${casingSentence(BANK_ACCOUNT_FIELDS)}`,
      'Id',
    ),
  );
}

function pageSchema(root: string, components: Record<string, OpenApiSchema>): string {
  const item = recordSchema(root, components);
  return component(components, `${item}Page`, () =>
    objectSchema(
      PAGE_FIELDS,
      `One page of ${root}: nextUrl and previousUrl are absolute links to the neighbouring pages (null at either end). The envelope's fields are camelCase whatever the records' casing`,
      undefined,
      {
        items: listOf(item),
      },
    ),
  );
}

function statementSchema(components: Record<string, OpenApiSchema>): string {
  const transaction = recordSchema('transactions', components);
  const account = component(components, 'StatementAccount', () =>
    objectSchema(STATEMENT_ACCOUNT_FIELDS, 'One account of a batch statement, with its lines in the period', undefined, { Transactions: listOf(transaction) }),
  );
  return component(components, 'BatchStatement', () =>
    objectSchema(
      BATCH_STATEMENT_FIELDS,
      "A member's statement: every account with activity in the period, and every open account; From and To are the period asked for (null where open-ended)",
      undefined,
      {
        Accounts: listOf(account),
      },
    ),
  );
}

/** What the GETs that follow a link list or show (the additional GET paths, a member's transactions, a bank account). */
const ADDITIONAL_ANSWERS: Readonly<Record<string, (components: Record<string, OpenApiSchema>) => OpenApiSchema>> = {
  'accounts/{accountId}/transactions': (c) => listOf(recordSchema('transactions', c)),
  'branches/{branchId}/address': (c) => ref(recordSchema('addresses', c)),
  'customers/{memberId}/accounts': (c) => listOf(recordSchema('accounts', c)),
  'customers/{memberId}/historicalaccounts': (c) => listOf(recordSchema('accounts', c)),
  'customers/{memberId}/bankaccounts': (c) => listOf(bankAccountSchema(c)),
  'customers/{memberId}/productshares': (c) => listOf(recordSchema('productshares', c)),
  'customers/{memberId}/messagethreads': (c) => listOf(recordSchema('messagethread', c)),
  'customers/{memberId}/marketingpreferences': (c) =>
    ref(component(c, 'MarketingPreferences', () => objectSchema(MARKETING_PREFERENCES_FIELDS, "A member's marketing choices and SMS consent"))),
  'customers/{memberId}/totalpledgedsavings': (c) =>
    ref(
      component(c, 'TotalPledgedSavings', () =>
        objectSchema(TOTAL_PLEDGED_SAVINGS_FIELDS, "The savings locked against the member's loans, over their open savings accounts"),
      ),
    ),
  'loanproducts/{id}/reasons': (c) => listOf(recordSchema('loanreasons', c)),
  'messagethreads/{id}/messages': (c) => listOf(recordSchema('messages', c)),
  'transactions/{memberId}/batchstatement': (c) => ref(statementSchema(c)),
  'transactions/{memberId}/between': (c) => listOf(recordSchema('transactions', c)),
  'transactions/{memberId}': (c) => listOf(recordSchema('transactions', c)),
  'bankaccounts/{id}': (c) => ref(bankAccountSchema(c)),
};

const VERIFICATION_ANSWER: OpenApiSchema = {
  type: 'object',
  description: 'The code was sent by SMS to the customer',
  properties: {
    status: { type: 'string', const: 'sent' },
    expiresInSeconds: { type: 'integer', format: 'int32', description: 'How long the code stays valid' },
  },
  required: ['status', 'expiresInSeconds'],
};

const answer = (status: number, description: string, schema: OpenApiSchema | null, location = false): SuccessAnswer => ({
  status,
  description,
  schema,
  location,
});

/** The success answer of a route that is not a receipt. */
export function successAnswer(route: Route, components: Record<string, OpenApiSchema>): SuccessAnswer {
  const [root] = route.segments as [string, ...string[]];
  const isRecordPath = route.segments.length === 2 && route.segments[1]?.startsWith('{') === true;
  if (route.path === 'bankaccounts/verification') return answer(200, 'Code sent', VERIFICATION_ANSWER);
  if (route.path === 'bankaccounts/add') return answer(201, 'Bank account added', ref(bankAccountSchema(components)), true);
  if (route.path === 'bankaccounts/{bankaccountid}') return answer(200, 'Updated: the bank account as it now stands', ref(bankAccountSchema(components)));
  const additional = ADDITIONAL_ANSWERS[route.path];
  if (route.method === 'GET' && additional) return answer(200, 'Success', additional(components));
  if (route.path === 'banks') return answer(200, 'The banks, always as the paged envelope', ref(pageSchema('banks', components)));
  if (route.method === 'GET' && route.segments.length === 1) {
    const item = recordSchema(root, components);
    return answer(
      200,
      'Without paged=true: every record, however many (ALL), sorted with sort and ascending (SEARCH); with paged=true: one page in the paged envelope',
      {
        oneOf: [listOf(item), ref(pageSchema(root, components))],
      },
    );
  }
  if (route.method === 'GET' && isRecordPath) return answer(200, 'The record', ref(recordSchema(root, components)));
  if (route.method === 'POST' && route.segments.length === 1) {
    const where = root === 'transactions' ? "the member's transaction history (/transactions/{memberId}), which holds the new line" : 'the new record';
    return answer(201, `Created: the record as stored; Location points to ${where}`, ref(recordSchema(root, components)), true);
  }
  if (route.method === 'PUT' && isRecordPath) return answer(200, 'Updated: the record as it now stands', ref(recordSchema(root, components)));
  if (route.method === 'DELETE' && isRecordPath) return answer(204, 'Deleted', null);
  throw new Error(`no success answer described for ${route.apiId}`);
}

/** The request body of a resource POST or PUT: the root's record (the key the core assigns is read-only, so a POST leaves it out). */
export function resourceBodySchema(route: Route, components: Record<string, OpenApiSchema>): OpenApiSchema | null {
  const [root] = route.segments as [string, ...string[]];
  if (route.bodySchema !== null || !RESOURCE_RECORDS.has(root) || root === 'banks') return null;
  if (route.method !== 'POST' && route.method !== 'PUT') return null;
  return ref(recordSchema(root, components));
}
