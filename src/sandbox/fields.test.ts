import request from 'supertest';
import { BANKS_ENVELOPE_FIELDS, SPEC_FIELDS, type SpecField } from '../../test/support/spec-fields';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';
import { SANDBOX_ADDED_FIELDS } from './model';

const data = createSandboxData(42);
const app = createSandboxApp({ data });

const DATETIME_WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Resource name in SPEC_FIELDS → the list path that returns all its records. */
const LIST_PATHS: Readonly<Record<string, string>> = {
  accounts: '/accounts',
  addresses: '/addresses',
  branches: '/branches',
  countrycodes: '/countrycodes',
  customers: '/customers',
  employers: '/employers',
  genders: '/genders',
  titles: '/titles',
  loanproducts: '/loanproducts',
  loanreasons: '/loanreasons',
  loanrepaymentperiods: '/loanrepaymentperiods',
  messages: '/messages',
  messagethread: '/messagethread',
  people: '/people',
  productshares: '/productshares',
  transactions: '/transactions',
};

/** Rate fields may carry more than two decimal places; every other decimal is money. */
const RATE_FIELDS = new Set(['lockedPercentage', 'Interest', 'DefaultRate', 'InterestRate', 'TaxRate', 'PercentageLocked']);

function typeProblem(field: SpecField, value: unknown): string | null {
  if (value === null) return field.nullable ? null : 'is null';
  const ok: Record<SpecField['type'], boolean> = {
    int: Number.isInteger(value),
    long: Number.isInteger(value),
    number: typeof value === 'number' && Number.isFinite(value),
    decimal: typeof value === 'number',
    string: typeof value === 'string',
    bool: typeof value === 'boolean',
    datetime: typeof value === 'string' && DATETIME_WITHOUT_OFFSET.test(value),
    array: Array.isArray(value),
  };
  return ok[field.type] ? null : `is ${JSON.stringify(value)}, not a ${field.type}`;
}

/** Everything wrong with `record` against the spec's fields plus the sandbox's documented additions. */
function recordProblems(resource: string, record: Record<string, unknown>, fields: readonly SpecField[]): string[] {
  const added = Object.keys(SANDBOX_ADDED_FIELDS[resource] ?? {});
  const problems: string[] = [];
  for (const field of fields) {
    if (!(field.name in record)) {
      if (!field.optional) problems.push(`${field.name} missing`);
      continue;
    }
    const problem = typeProblem(field, record[field.name]);
    if (problem) problems.push(`${field.name} ${problem}`);
  }
  for (const name of added) if (!Number.isInteger(record[name])) problems.push(`added field ${name} is not an integer id`);
  const known = new Set([...fields.map((f) => f.name), ...added]);
  for (const name of Object.keys(record)) if (!known.has(name)) problems.push(`unexpected field ${name}`);
  return problems;
}

describe('sandbox records against the spec', () => {
  it.each(Object.entries(LIST_PATHS))('every %s record carries exactly the spec fields, with their JSON types', async (resource, path) => {
    const response = await request(app).get(path).expect(200);
    const records = response.body as Array<Record<string, unknown>>;
    expect(records.length).toBeGreaterThan(0);
    const fields = SPEC_FIELDS[resource] ?? [];
    const problems = records.flatMap((record) => recordProblems(resource, record, fields).map((p) => `${JSON.stringify(record).slice(0, 60)}: ${p}`));
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('answers banks as the spec envelope whose items carry the spec bank fields', async () => {
    const response = await request(app).get('/banks').expect(200);
    const envelope = response.body as Record<string, unknown>;
    expect(recordProblems('banks-envelope', envelope, BANKS_ENVELOPE_FIELDS)).toEqual([]);
    for (const item of envelope.items as Array<Record<string, unknown>>) expect(recordProblems('banks', item, SPEC_FIELDS.banks ?? [])).toEqual([]);
  });

  it('answers bank account records with the spec fields, DateClosed null or a datetime', async () => {
    const ids = data.bankAccounts.list().map((h) => h.record.Id);
    for (const id of ids) {
      const response = await request(app).get(`/bankaccounts/${id}`).expect(200);
      expect(recordProblems('bankaccounts', response.body as Record<string, unknown>, SPEC_FIELDS.bankaccounts ?? [])).toEqual([]);
    }
  });

  it('lets optional fields be absent, as the spec allows', async () => {
    const threads = (await request(app).get('/messagethread')).body as Array<Record<string, unknown>>;
    expect(threads.some((t) => !('ClosedDate' in t))).toBe(true);
    expect(threads.some((t) => 'ClosedDate' in t)).toBe(true);
    const customers = (await request(app).get('/customers')).body as Array<Record<string, unknown>>;
    expect(customers.some((c) => !('Telephone3' in c))).toBe(true);
    expect(customers.some((c) => 'Telephone3' in c)).toBe(true);
  });

  it('writes decimals as JSON numbers keeping their scale: money with exactly two places', async () => {
    for (const [resource, path] of Object.entries(LIST_PATHS)) {
      const decimals = (SPEC_FIELDS[resource] ?? []).filter((f) => f.type === 'decimal');
      if (decimals.length === 0) continue;
      const text = (await request(app).get(path)).text;
      for (const field of decimals) {
        const values = [...text.matchAll(new RegExp(`"${field.name}":(-?\\d+(?:\\.\\d+)?)[,}]`, 'g'))].map((m) => m[1] as string);
        expect(values.length).toBeGreaterThan(0);
        const wrong = values.filter((v) => (RATE_FIELDS.has(field.name) ? !/\.\d{2,}$/.test(v) : !/\.\d{2}$/.test(v)));
        expect({ resource, field: field.name, wrong: wrong.slice(0, 3) }).toEqual({ resource, field: field.name, wrong: [] });
      }
    }
  });

  it('documents a reason for every field it adds, and adds none that the spec already has', () => {
    for (const [resource, added] of Object.entries(SANDBOX_ADDED_FIELDS)) {
      const specNames = new Set((SPEC_FIELDS[resource] ?? []).map((f) => f.name));
      expect(SPEC_FIELDS[resource]).toBeDefined();
      for (const [name, reason] of Object.entries(added)) {
        expect(specNames.has(name)).toBe(false);
        expect(reason.length).toBeGreaterThan(10);
      }
    }
  });
});
