/**
 * Every GET of the catalogue, called through the gateway in sandbox mode with the README's
 * sandbox key: status 200 and records carrying exactly the spec's field names with the spec's
 * JSON types (plus the fields the sandbox documents as added), HEAD answered like the GET without
 * its body, and every answer marked Cache-Control: no-store (customer data). A GET route without a case
 * here fails the suite, so a new endpoint cannot go untested.
 */
import { ROUTES } from '../../src/catalogue/api-catalogue';
import { SANDBOX_ADDED_FIELDS } from '../../src/sandbox/data';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';
import { BANKS_ENVELOPE_FIELDS, SPEC_FIELDS, type SpecField } from '../support/spec-fields';
import { call } from '../support/http-call';

type Json = Record<string, unknown>;
const ISO_NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

let gateway: TestGateway;

async function get(path: string): Promise<{ status: number; body: unknown; raw: string }> {
  const res = await fetch(`${gateway.url}${path}`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
  const raw = await res.text();
  return { status: res.status, body: raw ? JSON.parse(raw) : null, raw };
}

function typeMatches(field: SpecField, value: unknown): boolean {
  if (value === null) return field.nullable === true;
  switch (field.type) {
    case 'int':
    case 'long':
      return Number.isInteger(value);
    case 'decimal':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'datetime':
      return typeof value === 'string' && ISO_NO_OFFSET.test(value);
    case 'array':
      return Array.isArray(value);
  }
}

/** Field-name and type problems of one record against the spec's list for `resource`. */
function recordProblems(resource: string, record: Json): string[] {
  const spec = SPEC_FIELDS[resource];
  if (!spec) return [`no spec fields for ${resource}`];
  const problems: string[] = [];
  const allowed = new Set([...spec.map((f) => f.name), ...Object.keys(SANDBOX_ADDED_FIELDS[resource] ?? {})]);
  for (const field of spec) {
    if (!(field.name in record)) {
      if (!field.optional) problems.push(`${resource}.${field.name} missing`);
    } else if (!typeMatches(field, record[field.name])) {
      problems.push(`${resource}.${field.name} is ${JSON.stringify(record[field.name])}, not ${field.type}`);
    }
  }
  for (const name of Object.keys(record)) if (!allowed.has(name)) problems.push(`${resource}.${name} is not in the spec`);
  return problems;
}

function expectRecords(resource: string, body: unknown, options: { nonEmpty?: boolean } = {}): void {
  const records = Array.isArray(body) ? (body as Json[]) : [body as Json];
  if (options.nonEmpty !== false) expect(records.length).toBeGreaterThan(0);
  expect(records.flatMap((r) => recordProblems(resource, r))).toEqual([]);
}

/** Ids to call with, read through the gateway like a vendor would. */
interface Ids {
  accountId: number;
  addressId: number;
  branchId: number;
  countryCodeId: number;
  memberId: number;
  employerId: number;
  genderId: number;
  loanProductId: number;
  loanReasonId: number;
  repaymentPeriodId: number;
  messageId: number;
  threadId: number;
  productShareId: number;
  titleId: number;
  bankAccountId: number;
  memberWithHistory: number;
  memberWithBankAccounts: number;
}

async function first(path: string, idField: string): Promise<number> {
  const { body } = await get(path);
  return (body as Json[])[0]?.[idField] as number;
}

async function findMember(memberIds: number[], subPath: string): Promise<number> {
  for (const id of memberIds) {
    const { body } = await get(`/customers/${id}/${subPath}`);
    if (Array.isArray(body) && body.length > 0) return id;
  }
  throw new Error(`no member has ${subPath}`);
}

let ids: Ids;

beforeAll(async () => {
  gateway = await startTestGateway();
  const customers = (await get('/customers')).body as Json[];
  const memberIds = customers.map((c) => c.Number as number);
  const memberWithBankAccounts = await findMember(memberIds, 'bankaccounts');
  const bankAccounts = (await get(`/customers/${memberWithBankAccounts}/bankaccounts`)).body as Json[];
  ids = {
    accountId: await first('/accounts', 'id'),
    addressId: await first('/addresses', 'id'),
    branchId: await first('/branches', 'Id'),
    countryCodeId: await first('/countrycodes', 'Id'),
    memberId: memberIds[0] as number,
    employerId: await first('/employers', 'Id'),
    genderId: await first('/genders', 'Value'),
    loanProductId: await first('/loanproducts', 'Id'),
    loanReasonId: await first('/loanreasons', 'Id'),
    repaymentPeriodId: await first('/loanrepaymentperiods', 'Value'),
    messageId: await first('/messages', 'Id'),
    threadId: await first('/messagethread', 'Id'),
    productShareId: await first('/productshares', 'ProductId'),
    titleId: await first('/titles', 'Value'),
    bankAccountId: bankAccounts[0]?.Id as number,
    memberWithHistory: await findMember(memberIds, 'historicalaccounts'),
    memberWithBankAccounts,
  };
}, 30_000);

afterAll(async () => {
  await gateway.stop();
});

/** API id → the call to make and what its answer must hold. */
const CASES: Record<string, { path: (i: Ids) => string; check: (body: unknown) => void }> = {
  GETaccounts: { path: () => '/accounts', check: (b) => expectRecords('accounts', b) },
  'GETaccounts/{accountId}': { path: (i) => `/accounts/${i.accountId}`, check: (b) => expectRecords('accounts', b) },
  GETaddresses: { path: () => '/addresses', check: (b) => expectRecords('addresses', b) },
  'GETaddresses/{id}': { path: (i) => `/addresses/${i.addressId}`, check: (b) => expectRecords('addresses', b) },
  GETbranches: { path: () => '/branches', check: (b) => expectRecords('branches', b) },
  'GETbranches/{branchId}': { path: (i) => `/branches/${i.branchId}`, check: (b) => expectRecords('branches', b) },
  GETcountrycodes: { path: () => '/countrycodes', check: (b) => expectRecords('countrycodes', b) },
  'GETcountrycodes/{countryCodesId}': { path: (i) => `/countrycodes/${i.countryCodeId}`, check: (b) => expectRecords('countrycodes', b) },
  GETcustomers: { path: () => '/customers', check: (b) => expectRecords('customers', b) },
  'GETcustomers/{id}': { path: (i) => `/customers/${i.memberId}`, check: (b) => expectRecords('customers', b) },
  GETemployers: { path: () => '/employers', check: (b) => expectRecords('employers', b) },
  'GETemployers/{employersId}': { path: (i) => `/employers/${i.employerId}`, check: (b) => expectRecords('employers', b) },
  GETgenders: { path: () => '/genders', check: (b) => expectRecords('genders', b) },
  'GETgenders/{genderId}': { path: (i) => `/genders/${i.genderId}`, check: (b) => expectRecords('genders', b) },
  GETloanproducts: { path: () => '/loanproducts', check: (b) => expectRecords('loanproducts', b) },
  'GETloanproducts/{id}': { path: (i) => `/loanproducts/${i.loanProductId}`, check: (b) => expectRecords('loanproducts', b) },
  GETloanreasons: { path: () => '/loanreasons', check: (b) => expectRecords('loanreasons', b) },
  'GETloanreasons/{id}': { path: (i) => `/loanreasons/${i.loanReasonId}`, check: (b) => expectRecords('loanreasons', b) },
  GETloanrepaymentperiods: { path: () => '/loanrepaymentperiods', check: (b) => expectRecords('loanrepaymentperiods', b) },
  'GETloanrepaymentperiods/{id}': { path: (i) => `/loanrepaymentperiods/${i.repaymentPeriodId}`, check: (b) => expectRecords('loanrepaymentperiods', b) },
  GETmessages: { path: () => '/messages', check: (b) => expectRecords('messages', b) },
  'GETmessages/{id}': { path: (i) => `/messages/${i.messageId}`, check: (b) => expectRecords('messages', b) },
  GETmessagethread: { path: () => '/messagethread', check: (b) => expectRecords('messagethread', b) },
  'GETmessagethread/{id}': { path: (i) => `/messagethread/${i.threadId}`, check: (b) => expectRecords('messagethread', b) },
  GETpeople: { path: () => '/people', check: (b) => expectRecords('people', b) },
  'GETpeople/{memberId}': { path: (i) => `/people/${i.memberId}`, check: (b) => expectRecords('people', b) },
  GETproductshares: { path: () => '/productshares', check: (b) => expectRecords('productshares', b) },
  'GETproductshares/{productSharesId}': { path: (i) => `/productshares/${i.productShareId}`, check: (b) => expectRecords('productshares', b) },
  GETtitles: { path: () => '/titles', check: (b) => expectRecords('titles', b) },
  'GETtitles/{titleId}': { path: (i) => `/titles/${i.titleId}`, check: (b) => expectRecords('titles', b) },
  GETtransactions: { path: () => '/transactions', check: (b) => expectRecords('transactions', b) },
  'GETtransactions/{memberId}': { path: (i) => `/transactions/${i.memberId}`, check: (b) => expectRecords('transactions', b) },
  GETbanks: {
    path: () => '/banks',
    check: (b) => {
      const envelope = b as Json;
      expect(Object.keys(envelope).sort()).toEqual(BANKS_ENVELOPE_FIELDS.map((f) => f.name).sort());
      expectRecords('banks', envelope.items);
    },
  },
  'GETaccounts/{accountId}/transactions': { path: (i) => `/accounts/${i.accountId}/transactions`, check: (b) => expectRecords('transactions', b) },
  'GETbranches/{branchId}/address': { path: (i) => `/branches/${i.branchId}/address`, check: (b) => expectRecords('addresses', b) },
  'GETcustomers/{memberId}/accounts': { path: (i) => `/customers/${i.memberId}/accounts`, check: (b) => expectRecords('accounts', b) },
  'GETcustomers/{memberId}/historicalaccounts': {
    path: (i) => `/customers/${i.memberWithHistory}/historicalaccounts`,
    check: (b) => expectRecords('accounts', b),
  },
  'GETcustomers/{memberId}/bankaccounts': {
    path: (i) => `/customers/${i.memberWithBankAccounts}/bankaccounts`,
    check: (b) => expectRecords('bankaccounts', b),
  },
  'GETcustomers/{memberId}/productshares': { path: (i) => `/customers/${i.memberId}/productshares`, check: (b) => expectRecords('productshares', b) },
  'GETcustomers/{memberId}/messagethreads': {
    path: (i) => `/customers/${i.memberId}/messagethreads`,
    check: (b) => expectRecords('messagethread', b, { nonEmpty: false }),
  },
  'GETcustomers/{memberId}/marketingpreferences': {
    path: (i) => `/customers/${i.memberId}/marketingpreferences`,
    check: (b) =>
      expect(b).toMatchObject({
        MarketingPost: expect.any(Boolean),
        MarketingEmail: expect.any(Boolean),
        MarketingTelephone: expect.any(Boolean),
        MarketingText: expect.any(Boolean),
      }),
  },
  'GETcustomers/{memberId}/totalpledgedsavings': {
    path: (i) => `/customers/${i.memberId}/totalpledgedsavings`,
    check: (b) => expect(b).toMatchObject({ CustomerId: expect.any(Number), TotalPledgedSavings: expect.any(Number) }),
  },
  'GETloanproducts/{id}/reasons': { path: (i) => `/loanproducts/${i.loanProductId}/reasons`, check: (b) => expectRecords('loanreasons', b) },
  'GETmessagethreads/{id}/messages': { path: (i) => `/messagethreads/${i.threadId}/messages`, check: (b) => expectRecords('messages', b) },
  'GETtransactions/{memberId}/batchstatement': {
    path: (i) => `/transactions/${i.memberId}/batchstatement`,
    check: (b) => expect(b).toMatchObject({ Accounts: expect.any(Array) }),
  },
  'GETtransactions/{memberId}/between': {
    path: (i) => `/transactions/${i.memberId}/between?from=2000-01-01&to=2025-06-30`,
    check: (b) => expectRecords('transactions', b),
  },
  'GETbankaccounts/{id}': { path: (i) => `/bankaccounts/${i.bankAccountId}`, check: (b) => expectRecords('bankaccounts', b) },
};

describe('every catalogue GET through the gateway', () => {
  it('has a case for every GET route of the catalogue', () => {
    const getRoutes = ROUTES.filter((r) => r.method === 'GET')
      .map((r) => r.apiId)
      .sort();
    expect(Object.keys(CASES).sort()).toEqual(getRoutes);
  });

  it.each(Object.keys(CASES))('%s answers 200 with the spec field names and types', async (apiId) => {
    const testCase = CASES[apiId]!;
    const { status, body } = await get(testCase.path(ids));
    expect(status).toBe(200);
    testCase.check(body);
  });
});

describe('HEAD and Cache-Control on every catalogue GET', () => {
  it.each(Object.keys(CASES))("%s answers HEAD with the GET's status and headers and no body, both Cache-Control: no-store", async (apiId) => {
    const path = CASES[apiId]!.path(ids);
    const headers = { 'X-Vendor-Token': SANDBOX_KEYS.demo };
    const got = await call(`${gateway.url}${path}`, { headers });
    const head = await call(`${gateway.url}${path}`, { method: 'HEAD', headers });
    expect(head.status).toBe(got.status);
    expect(head.body).toBe('');
    for (const name of ['content-type', 'content-length', 'cache-control'])
      expect({ name, value: head.headers[name] }).toEqual({ name, value: got.headers[name] });
    expect(got.headers['cache-control']).toBe('no-store');
  });
});

describe('SEARCH through the gateway', () => {
  it('sorts by the named field in either direction', async () => {
    const asc = (await get('/customers?sort=Name&ascending=true')).body as Json[];
    const desc = (await get('/customers?sort=Name&ascending=false')).body as Json[];
    const names = asc.map((c) => c.Name as string);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    expect(desc.map((c) => c.Name)).toEqual([...names].reverse());
  });

  it('pages with the banks envelope, and its nextUrl leads through the gateway to the last page', async () => {
    let page = (await get('/customers?paged=true&pageSize=40&sort=Number')).body as Json;
    const seen: number[] = [];
    let pages = 0;
    for (;;) {
      pages++;
      seen.push(...(page.items as Json[]).map((c) => c.Number as number));
      if (!page.nextUrl) break;
      const next = new URL(page.nextUrl as string);
      expect(next.host).toBe(`127.0.0.1:${gateway.vendorPort}`);
      page = (await get(`${next.pathname}${next.search}`)).body as Json;
      expect(page.previousUrl).toEqual(expect.stringContaining(`127.0.0.1:${gateway.vendorPort}`));
    }
    expect(pages).toBe(page.totalPages);
    expect(seen).toHaveLength(page.totalItems as number);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('serves banks on more than one page', async () => {
    const banks = (await get('/banks')).body as Json;
    expect(banks.totalPages).toBeGreaterThan(1);
    expect(banks.previousUrl).toBeNull();
    expect(banks.nextUrl).toEqual(expect.any(String));
  });

  it.each(['sort=NoSuchField', 'paged=maybe', 'page=0', 'pageSize=100000', 'ascending=sideways', 'page=abc&paged=true'])(
    "passes on the core's 400 for %s",
    async (query) => {
      const { status, body } = await get(`/accounts?${query}`);
      expect(status).toBe(400);
      expect(JSON.stringify(body)).toMatch(new RegExp(query.split('=')[0] as string, 'i'));
    },
  );
});
