/**
 * Request examples for the OpenAPI document in sandbox mode, taken from the sandbox's data so
 * that each one, sent as it stands with the demo key to a fresh sandbox, succeeds, and sending
 * them all in the document's order leaves every one working:
 * - path ids of records that exist (one showcase member for everything about a member: a
 *   customer who consented to SMS and holds a mobile, with accounts, threads and bank accounts);
 * - `sort` limited to the fields the sandbox sorts each list by, `paged=true` with page 1 of a
 *   page size within the sandbox's bounds (an unpaged list answers every record);
 * - receipts on accounts that take them, each amount within the product's receipt and daily
 *   limits and its maximum balance, each with an ExternalRefNo and Idempotency-Key of its own;
 *   the reversal reverses a loan issue that a fresh sandbox holds, for its issued amount;
 * - the bank-account flow: verification sends a chosen Code (sandbox only) to the showcase
 *   customer's own mobile for the destination the add then names with that code as its
 *   TwoFactorCode; the update renames the account the add creates (same number and sort
 *   code, so it needs no code).
 * Values are fixed by the data (itself fixed by the seed), and so are the keys: a second run on
 * the same sandbox replays each money movement's first answer (its Idempotency-Key), and its
 * verification within the minute meets the SMS send limit: one run per fresh sandbox.
 *
 * Reads the sandbox data once at start-up, before any request changes it; writes nothing.
 */
import { RESOURCE_ROOTS, ROUTES } from '../catalogue/api-catalogue';
import { normaliseUkMobileNumber } from '../contracts/bank-accounts';
import type { OperationExamples, RequestExamples } from '../openapi/request-examples';
import type { SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { ACCOUNT_STATUS, BANK_FIELDS, PRODUCT_TYPE, RESOURCE_RECORDS, TRANSACTION_TYPE, fieldDefinitions, type Account, type Customer } from './model';
import { LOAN_REVERSAL_OPTION } from './receipt-records';
import type { PageLimits } from './search';

/** The code the verification example asks the sandbox to send, and the add example then gives. */
const EXAMPLE_CODE = '246810';
/** The destination of the add example: no bank's account (the record examples use the same). */
const EXAMPLE_DESTINATION = { AccountNumber: '00000000', SortCode: '00-00-00' } as const;
const DEPOSIT_AMOUNT = ScaledDecimal.parse('25.10');
const PAYMENT_AMOUNT = ScaledDecimal.parse('40.00');
const PAGE_SIZE = 10;

/** The customer's first number the gateway takes as a UK mobile (its own rule), written as a vendor would (07700 900756); or null. */
function mobileOf(customer: Customer): string | null {
  for (const phone of [customer.Telephone1, customer.Telephone2, customer.Telephone3]) {
    if (phone === null || phone === undefined) continue;
    const number = normaliseUkMobileNumber(String(phone));
    if (number.ok) return `0${number.e164.slice(3, 7)} ${number.e164.slice(7)}`;
  }
  return null;
}

/** Whether the account takes a credit of `amount` now: open share or savings, under every limit of its product. */
function takesCredit(data: SandboxData, account: Account, amount: ScaledDecimal): boolean {
  if (account.productTypeId !== PRODUCT_TYPE.ShareSavings.value || account.status === ACCOUNT_STATUS.Closed.value) return false;
  const product = data.productShares.get(account.productId);
  if (!product) return false;
  return (
    amount.compare(product.vendorConnectReceiptLimit) <= 0 &&
    amount.plus(amount).compare(product.vendorConnectDailyLimit) <= 0 &&
    amount.compare(product.MaximumBalance.minus(account.balance)) <= 0
  );
}

/** A member who can do every example: consented to SMS, holds a mobile, two accounts that take credits, a thread, a bank account. */
function showcaseMember(data: SandboxData): { customer: Customer; mobile: string; deposit: Account; payment: Account } {
  const fits = (customer: Customer, strict: boolean) => {
    const mobile = customer.SmsConsentGiven ? mobileOf(customer) : null;
    const credits = data.accounts.where('customer', customer.Number).filter((a) => takesCredit(data, a, PAYMENT_AMOUNT));
    const rich = data.messageThreads.where('customer', customer.Number).length > 0 && data.bankAccounts.where('customer', customer.Number).length > 0;
    if (mobile === null || credits.length === 0 || (strict && (credits.length < 2 || !rich))) return null;
    return { customer, mobile, deposit: credits[0] as Account, payment: credits[1] ?? (credits[0] as Account) };
  };
  const customers = data.customers.list();
  const found = customers.map((c) => fits(c, true)).find((f) => f !== null) ?? customers.map((c) => fits(c, false)).find((f) => f !== null);
  if (!found) throw new Error('the sandbox data has no customer with SMS consent, a mobile and an account that takes deposits');
  return found;
}

/** A loan issue a fresh sandbox can reverse: the loan's first advance, with nothing but interest since. */
function reversibleLoanIssue(data: SandboxData): { account: Account; receiptNo: number; amount: ScaledDecimal } {
  for (const account of data.accounts.list()) {
    if (account.productTypeId !== PRODUCT_TYPE.Loan.value || account.status === ACCOUNT_STATUS.Closed.value) continue;
    const history = data.transactions.where('account', account.id).sort((a, b) => a.ReceiptNumber - b.ReceiptNumber);
    const issue = history.find((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanAdvance.value && !t.Credit);
    if (!issue) continue;
    const since = history.filter((t) => t.ReceiptNumber > issue.ReceiptNumber);
    if (since.every((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanInterest.value))
      return { account, receiptNo: issue.ReceiptNumber, amount: issue.Amount };
  }
  throw new Error('the sandbox data has no loan issue that can be reversed');
}

const firstKey = <R>(rows: readonly R[], key: (row: R) => number): number => {
  const row = rows[0];
  if (row === undefined) throw new Error('a sandbox table the examples need is empty');
  return key(row);
};

/** A JSON number for a decimal amount (the examples' amounts have at most two decimals). */
const amountOf = (amount: ScaledDecimal): number => Number(amount.toString());

export function sandboxRequestExamples(data: SandboxData, limits: PageLimits): RequestExamples {
  const { customer, mobile, deposit, payment } = showcaseMember(data);
  const member = customer.Number;
  const loan = reversibleLoanIssue(data);
  const thread = data.messageThreads.where('customer', member)[0] ?? data.messageThreads.list()[0];
  const bankAccount = data.bankAccounts.where('customer', member)[0] ?? data.bankAccounts.list()[0];
  const branch = data.branches.list().find((b) => typeof b.AddressId === 'number' && data.addresses.has(b.AddressId));
  const loanProduct = data.loanProducts.list().find((p) => (data.loanProductReasons.get(p.Id)?.length ?? 0) > 0);
  // The id the add example's account gets on a fresh sandbox, which the update example renames.
  const addedBankAccountId = data.bankAccounts.nextKey();
  const lastTransaction = data.accounts
    .where('customer', member)
    .flatMap((a) => data.transactions.where('account', a.id))
    .reduce<string | null>((latest, t) => (latest === null || t.ValueDate > latest ? t.ValueDate : latest), null);
  const to = (lastTransaction ?? data.asAt).slice(0, 10);

  const ids: Record<string, number> = {
    accounts: deposit.id,
    addresses: firstKey(data.addresses.list(), (a) => a.id),
    branches: firstKey(branch ? [branch] : data.branches.list(), (b) => b.Id),
    countrycodes: firstKey(data.countryCodes.list(), (c) => c.Id),
    customers: member,
    employers: firstKey(data.employers.list(), (e) => e.Id),
    genders: firstKey(data.genders.list(), (g) => g.Value),
    loanproducts: firstKey(loanProduct ? [loanProduct] : data.loanProducts.list(), (p) => p.Id),
    loanreasons: firstKey(data.loanReasons.list(), (r) => r.Id),
    loanrepaymentperiods: firstKey(data.loanRepaymentPeriods.list(), (p) => p.Value),
    messages: firstKey(thread ? data.messages.where('thread', thread.Id) : data.messages.list(), (m) => m.Id),
    messagethread: firstKey(thread ? [thread] : [], (t) => t.Id),
    people: member,
    productshares: deposit.productId,
    titles: firstKey(data.titles.list(), (t) => t.Value),
    transactions: member,
  };
  // Every path parameter the catalogue names, by its segment name within each root.
  const pathIds = (path: string): Record<string, number> => {
    const [root, , sub] = path.split('/');
    if (root === 'messagethreads') return { id: ids.messagethread as number };
    if (root === 'bankaccounts') return { id: firstKey(bankAccount ? [bankAccount] : [], (h) => h.record.Id), bankaccountid: addedBankAccountId };
    if (root === 'customers' && sub !== undefined) return { memberId: member, id: member };
    const idName = RESOURCE_ROOTS.find(([r]) => r === root)?.[1];
    return idName && root !== undefined ? { [idName]: ids[root] as number } : {};
  };

  const sortFields = new Map<string, string[]>();
  const operations = new Map<string, OperationExamples>();
  for (const route of ROUTES) {
    const records = RESOURCE_RECORDS.get(route.path);
    // The fields the sandbox sorts each list by (resources.ts): the record's own; banks answer their three.
    const fields = fieldDefinitions(route.path === 'banks' ? BANK_FIELDS : route.search && records ? records.fields : {}).map((f) => f.name);
    const parameters: Record<string, string | number | boolean> = { ...pathIds(route.path) };
    if (route.search && fields.length > 0) {
      sortFields.set(route.apiId, fields);
      const sort = route.path !== 'banks' && records ? records.key : (fields[0] as string);
      Object.assign(parameters, { sort, ascending: true, paged: true, page: 1, pageSize: Math.min(PAGE_SIZE, limits.maxPageSize) });
    }
    if (route.query.some((q) => q.name === 'from')) Object.assign(parameters, { from: `${to.slice(0, 7)}-01`, to });
    if (route.movesMoney) parameters['Idempotency-Key'] = `example-${route.path.replaceAll('/', '-')}-1`;
    operations.set(route.apiId, { parameters });
  }

  const reference = (what: string): string => `EXAMPLE-${what}-1`;
  const replays =
    'Sandbox example: its Idempotency-Key and externalRefNo are fixed, so sent again it replays the first answer (Idempotent-Replayed: true); change both to post again.';
  const body = (apiId: string, value: Record<string, unknown>, note = replays): void => {
    const existing = operations.get(apiId);
    if (existing) operations.set(apiId, { ...existing, body: value, note });
  };
  body('POSTapi/transaction/savings/deposit', {
    cuAccountID: deposit.id,
    amount: amountOf(DEPOSIT_AMOUNT),
    notes: 'Counter 2',
    externalRefNo: reference('DEPOSIT'),
  });
  body('POSTapi/transaction/savings/payment', {
    cuAccountID: payment.id,
    amount: amountOf(PAYMENT_AMOUNT),
    receiptType: 0,
    notes: 'Standing order',
    externalRefNo: reference('PAYMENT'),
  });
  body('POSTapi/transaction/loan/reversal', {
    cuAccountID: loan.account.id,
    amount: amountOf(loan.amount),
    receiptNo: loan.receiptNo,
    loanReversalOption: LOAN_REVERSAL_OPTION.Approved.value,
    loanIssueReversalNotes: { note: 'Issued in error' },
    externalRefNo: reference('REVERSAL'),
  });
  const holder = { CustomerId: member, PersonId: member };
  const name = customer.CorrespondenceName || customer.Name;
  body(
    'POSTbankaccounts/verification',
    { CustomerId: member, MobileNumber: mobile, Code: EXAMPLE_CODE, ...EXAMPLE_DESTINATION },
    `Sandbox example, step 1 of 3: this sends the code ${EXAMPLE_CODE} (the sandbox takes a chosen Code; with a real core the gateway makes it) ` +
      `by SMS to customer ${member}'s own mobile, for the destination ${EXAMPLE_DESTINATION.SortCode} ${EXAMPLE_DESTINATION.AccountNumber}; ` +
      'step 2 is the POST /bankaccounts/add example, step 3 the PUT /bankaccounts/{id} example. One send a minute per number and customer.',
  );
  body(
    'POSTbankaccounts/add',
    { ...holder, Name: name, ...EXAMPLE_DESTINATION, TwoFactorCode: EXAMPLE_CODE },
    `Sandbox example, step 2 of 3: run the POST /bankaccounts/verification example first; this adds its destination with its code ${EXAMPLE_CODE} ` +
      `as TwoFactorCode (a code works once) and answers the new account's Id (${addedBankAccountId} on a fresh sandbox).`,
  );
  body(
    'PUTbankaccounts/{bankaccountid}',
    { ...holder, Name: `${name} (joint)`, ...EXAMPLE_DESTINATION },
    `Sandbox example, step 3 of 3: renames the account the POST /bankaccounts/add example created (Id ${addedBankAccountId} on a fresh sandbox); ` +
      'the number and sort code stay as they are, so no TwoFactorCode is needed.',
  );

  return {
    operations,
    sortFields,
    pageSize: { default: limits.defaultPageSize, max: limits.maxPageSize },
    pathsBefore: [['/bankaccounts/verification', '/bankaccounts/add']],
  };
}
