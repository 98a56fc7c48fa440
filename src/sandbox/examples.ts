/**
 * Examples for the OpenAPI document, taken from the sandbox's data: the first record of each
 * resource, by the record schema's name (`Account`, `Customer`, ..., `BankAccount`).
 *
 * Reads the sandbox data once at start-up (the gateway in sandbox mode); writes nothing. Values
 * are as the sandbox core writes them (decimals as JSON numbers), except the personal details
 * the document would publish to anyone without a key: those are swapped for values no person or
 * bank holds (HMRC's example National Insurance number, a 00-00-00 sort code, ...).
 */
import { RESOURCE_RECORDS } from '../contracts/resource-fields';
import type { SandboxData } from './data';
import { writeJson } from './json';

/** Personal details replaced in the keyless document, by schema: the sandbox's are realistic by design. */
const FICTIONAL: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  Person: {
    SocialSecurityNumber: 'QQ123456C',
    DrivingLicenceNumber: 'EXAMPLE000000XX0XX',
    DateOfBirth: '1980-01-01T00:00:00',
    HealthDetails: '',
    DebtOther: '',
    Email: 'member@example.com',
  },
  Customer: { DateOfBirth: '1980-01-01T00:00:00', Email: 'member@example.com', PostalCode: 'ZZ99 9ZZ' },
  BankAccount: { SortCode: '000000', AccountNumber: '00000000' },
  Address: { postalCode: 'ZZ99 9ZZ' },
};

export function openApiExamples(data: SandboxData): ReadonlyMap<string, unknown> {
  const tables: Readonly<Record<string, { list(): readonly unknown[] }>> = {
    accounts: data.accounts,
    addresses: data.addresses,
    banks: data.banks,
    branches: data.branches,
    countrycodes: data.countryCodes,
    customers: data.customers,
    employers: data.employers,
    genders: data.genders,
    loanproducts: data.loanProducts,
    loanreasons: data.loanReasons,
    loanrepaymentperiods: data.loanRepaymentPeriods,
    messages: data.messages,
    messagethread: data.messageThreads,
    people: data.people,
    productshares: data.productShares,
    titles: data.titles,
    transactions: data.transactions,
  };
  const examples = new Map<string, unknown>();
  const add = (name: string, record: unknown): void => {
    if (record !== undefined) examples.set(name, { ...(JSON.parse(writeJson(record)) as object), ...FICTIONAL[name] });
  };
  for (const [root, records] of RESOURCE_RECORDS) add(records.name, tables[root]?.list()[0]);
  add('BankAccount', data.bankAccounts.list()[0]?.record);
  return examples;
}
