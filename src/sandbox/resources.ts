/**
 * The generic resource operations (ALL, SEARCH, GET, POST, PUT, DELETE) over the spec's 16
 * resource roots, and ALL/SEARCH over banks, which always answers the paged envelope.
 *
 * Reads and writes the sandbox data's tables. Each root is bound to its table, field schema and
 * key field; the id segment names come from the catalogue. Writes validate every field by its
 * spec type and check the links the sandbox's own reads follow (an account's customerId, a
 * transaction's AccountId, ...), so navigation never meets a dangling id it created itself.
 * Writes store what they are given and nothing more: posting a transaction records the line
 * but does not move its account's balance (money movement is the receipts' business).
 * /transactions/{memberId} is the exception to "one record by id": the spec names the segment
 * memberId, so GET lists that member's transactions on all their accounts, a POST's Location
 * points there (the new line shows in it), and PUT and DELETE, which would replace or erase a
 * member's whole history, answer 405 (Allow: GET, HEAD): a line is added by POST or a receipt.
 */
import { RESOURCE_ROOTS } from '../catalogue/api-catalogue';
import type { SandboxData } from './data';
import { pathId, sendJson, type Handler } from './handler';
import { BANK_FIELDS, RESOURCE_RECORDS, fieldDefinitions, inSchemaOrder, type Account, type FieldDefinition, type FieldSchema } from './model';
import { SandboxProblem, invalid, notFound, type FieldProblem } from './problems';
import { memberTransactions } from './relations';
import { isSearch, pageLinkBuilder, pageOf, parseSearchQuery, sortRows, type PageLimits } from './search';
import type { Rows } from './table';
import { readFields, readJsonObject } from './validation';

type SandboxRecord = Record<string, unknown>;

interface Link {
  readonly table: { has(key: number): boolean };
  readonly resource: string;
}

interface Binding {
  readonly root: string;
  /** The id segment's name in the catalogue: `accountId`, `memberId`, ... */
  readonly idParam: string;
  readonly schema: FieldSchema;
  readonly fields: readonly FieldDefinition[];
  readonly key: FieldDefinition;
  readonly table: Rows<SandboxRecord>;
  /** True where the client names the key (a person's MemberId is its customer's Number). */
  readonly clientKey: boolean;
  readonly links: Readonly<Record<string, Link>>;
  /** Where a POST's Location points: the record's own path, unless the resource says otherwise. */
  readonly locationOf: (record: SandboxRecord) => string;
}

export function resourceHandlers(data: SandboxData, limits: PageLimits): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  for (const binding of bindings(data)) {
    const { root, idParam } = binding;
    handlers.set(`GET${root}`, listHandler(binding, limits));
    handlers.set(`GET${root}/{${idParam}}`, getHandler(binding));
    handlers.set(`POST${root}`, createHandler(binding));
    handlers.set(`PUT${root}/{${idParam}}`, updateHandler(binding));
    handlers.set(`DELETE${root}/{${idParam}}`, deleteHandler(binding));
  }
  handlers.set('GETtransactions/{memberId}', ({ res, params }) => sendJson(res, 200, memberTransactions(data, pathId(params, 'memberId'))));
  const historyIsAppendOnly: Handler = ({ req }) => {
    throw new SandboxProblem(
      405,
      `${req.method} would change a member's whole transaction history; add a line with POST /transactions or a receipt operation`,
      undefined,
      { Allow: 'GET, HEAD' },
    );
  };
  handlers.set('PUTtransactions/{memberId}', historyIsAppendOnly);
  handlers.set('DELETEtransactions/{memberId}', historyIsAppendOnly);
  handlers.set('GETbanks', banksHandler(data, limits));
  return handlers;
}

function bindings(data: SandboxData): Binding[] {
  const idParams = new Map(RESOURCE_ROOTS);
  const bind = (
    root: string,
    table: Rows<SandboxRecord>,
    links: Readonly<Record<string, Link>> = {},
    locationOf?: (record: SandboxRecord) => string,
  ): Binding => {
    const idParam = idParams.get(root);
    const records = RESOURCE_RECORDS.get(root);
    const fields = records ? fieldDefinitions(records.fields) : [];
    const keyField = fields.find((f) => f.name === records?.key);
    if (idParam === undefined || records === undefined || !keyField) throw new Error(`bad sandbox binding for ${root}`);
    const key = keyField.name;
    return {
      root,
      idParam,
      schema: records.fields,
      fields,
      key: keyField,
      table,
      clientKey: records.clientKey,
      links,
      locationOf: locationOf ?? ((record) => `/${root}/${String(record[key])}`),
    };
  };
  const customers: Link = { table: data.customers, resource: 'customers' };
  return [
    bind('accounts', data.accounts, { customerId: customers }),
    bind('addresses', data.addresses),
    bind('branches', data.branches, { AddressId: { table: data.addresses, resource: 'addresses' } }),
    bind('countrycodes', data.countryCodes),
    bind('customers', data.customers),
    bind('employers', data.employers),
    bind('genders', data.genders),
    bind('loanproducts', data.loanProducts),
    bind('loanreasons', data.loanReasons),
    bind('loanrepaymentperiods', data.loanRepaymentPeriods),
    bind('messages', data.messages, { MessageThreadId: { table: data.messageThreads, resource: 'messagethread' } }),
    bind('messagethread', data.messageThreads, { CustomerId: customers }),
    bind('people', data.people, { MemberId: customers }),
    bind('productshares', data.productShares),
    bind('titles', data.titles),
    bind(
      'transactions',
      data.transactions,
      { AccountId: { table: data.accounts, resource: 'accounts' } },
      (line) => `/transactions/${(data.accounts.get(line.AccountId as number) as Account).customerId}`,
    ),
  ];
}

/** ALL without SEARCH parameters; with them, sorted (by the key unless `sort` says) and maybe paged. */
function listHandler(binding: Binding, limits: PageLimits): Handler {
  return ({ req, res, query }) => {
    const rows = binding.table.list();
    if (!isSearch(query)) return sendJson(res, 200, rows);
    const search = parseSearchQuery(query, binding.fields, limits);
    const sorted = sortRows(rows, search.sort ?? binding.key, search.ascending);
    sendJson(res, 200, search.paged ? pageOf(sorted, search, pageLinkBuilder(req)) : sorted);
  };
}

function banksHandler(data: SandboxData, limits: PageLimits): Handler {
  const fields = fieldDefinitions(BANK_FIELDS);
  const key = fields.find((f) => f.name === 'id') as FieldDefinition;
  return ({ req, res, query }) => {
    const search = parseSearchQuery(query, fields, limits);
    const sorted = sortRows(data.banks.list(), search.sort ?? key, search.ascending);
    sendJson(res, 200, pageOf(sorted, search, pageLinkBuilder(req)));
  };
}

function existing(binding: Binding, key: number): SandboxRecord {
  const row = binding.table.get(key);
  if (!row) throw notFound(`no ${binding.root} record with ${binding.key.name} ${key}`);
  return row;
}

function getHandler(binding: Binding): Handler {
  return ({ res, params }) => sendJson(res, 200, existing(binding, pathId(params, binding.idParam)));
}

function createHandler(binding: Binding): Handler {
  const keyName = binding.key.name;
  return ({ req, res }) => {
    const body = readJsonObject(req);
    if (!binding.clientKey && keyName in body) {
      throw invalid([{ field: keyName, message: 'assigned by the sandbox core; leave it out' }]);
    }
    const { values } = readFields(body, binding.fields, { requireAll: true, exempt: binding.clientKey ? [] : [keyName] });
    checkLinks(binding, values);
    const key = binding.clientKey ? (values[keyName] as number) : binding.table.nextKey();
    if (binding.table.has(key)) throw new SandboxProblem(409, `a ${binding.root} record with ${keyName} ${key} already exists`);
    const record = binding.table.insert(inSchemaOrder(binding.schema, { ...values, [keyName]: key }));
    res.location(binding.locationOf(record));
    sendJson(res, 201, record);
  };
}

/** Whole or partial: the fields sent replace the record's; an optional field sent as null is removed. */
function updateHandler(binding: Binding): Handler {
  const keyName = binding.key.name;
  return ({ req, res, params }) => {
    const key = pathId(params, binding.idParam);
    const current = existing(binding, key);
    const { values, cleared } = readFields(readJsonObject(req), binding.fields, { requireAll: false });
    if (keyName in values && values[keyName] !== key) {
      throw invalid([{ field: keyName, message: `does not match the id in the path (${key})` }]);
    }
    checkLinks(binding, values);
    const merged: SandboxRecord = { ...current, ...values };
    for (const name of cleared) delete merged[name];
    sendJson(res, 200, binding.table.replace(inSchemaOrder(binding.schema, merged)));
  };
}

function deleteHandler(binding: Binding): Handler {
  return ({ res, params }) => {
    const key = pathId(params, binding.idParam);
    if (!binding.table.delete(key)) throw notFound(`no ${binding.root} record with ${binding.key.name} ${key}`);
    res.status(204).end();
  };
}

function checkLinks(binding: Binding, values: SandboxRecord): void {
  const errors: FieldProblem[] = [];
  for (const [field, link] of Object.entries(binding.links)) {
    const value = values[field];
    if (typeof value === 'number' && !link.table.has(value)) errors.push({ field, message: `no ${link.resource} record ${value}` });
  }
  if (errors.length > 0) throw invalid(errors);
}
