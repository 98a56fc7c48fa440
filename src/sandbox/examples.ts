/**
 * Examples for the OpenAPI document, taken from the sandbox's data: the first record of each
 * resource, by the record schema's name (`Account`, `Customer`, ..., `BankAccount`).
 *
 * Reads the sandbox data once at start-up (the gateway in sandbox mode); writes nothing. Values
 * are as the sandbox core writes them (decimals as JSON numbers), so an example is an answer a
 * vendor can get.
 */
import { RESOURCE_RECORDS } from '../contracts/resource-fields';
import type { SandboxData } from './data';
import { writeJson } from './json';

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
    if (record !== undefined) examples.set(name, JSON.parse(writeJson(record)));
  };
  for (const [root, records] of RESOURCE_RECORDS) add(records.name, tables[root]?.list()[0]);
  add('BankAccount', data.bankAccounts.list()[0]?.record);
  return examples;
}
