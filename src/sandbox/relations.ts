/**
 * The spec's additional GET paths (a member's accounts, an account's transactions, a thread's
 * messages, statements, ...) and GET /bankaccounts/{id}: reads that follow a link between
 * records.
 *
 * Reads the sandbox data through its indexes, so an answer costs the size of the answer;
 * writes nothing. An unknown member, account, branch, product or thread is a 404. Shapes the
 * spec does not give (marketing preferences, total pledged savings, the batch statement) use
 * PascalCase names like the member-side resources they are built from.
 */
import type { SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { pathId, sendJson, type Handler } from './handler';
import {
  ACCOUNT_STATUS,
  PRODUCT_TYPE,
  type Account,
  type BatchStatement,
  type Customer,
  type MarketingPreferences,
  type StatementAccount,
  type TotalPledgedSavings,
  type Transaction,
} from './model';
import { invalid, notFound } from './problems';
import { queryParameter } from './search';
import { isDateTime } from './validation';

const isOpen = (account: Account): boolean => account.status !== ACCOUNT_STATUS.Closed.value;
const isSavings = (account: Account): boolean => account.productTypeId !== PRODUCT_TYPE.Loan.value;

function byValueDate(a: Transaction, b: Transaction): number {
  return a.ValueDate < b.ValueDate ? -1 : a.ValueDate > b.ValueDate ? 1 : a.ReceiptNumber - b.ReceiptNumber;
}

function customerOf(data: SandboxData, memberId: number): Customer {
  const customer = data.customers.get(memberId);
  if (!customer) throw notFound(`no customer with member number ${memberId}`);
  return customer;
}

function accountTransactions(data: SandboxData, accountId: number): Transaction[] {
  return data.transactions.where('account', accountId).sort(byValueDate);
}

/** A member's transactions on all their accounts, oldest first: GET /transactions/{memberId}. */
export function memberTransactions(data: SandboxData, memberId: number): Transaction[] {
  customerOf(data, memberId);
  return data.accounts
    .where('customer', memberId)
    .flatMap((account) => data.transactions.where('account', account.id))
    .sort(byValueDate);
}

export function relationHandlers(data: SandboxData): Map<string, Handler> {
  const memberAccounts = (params: Readonly<Record<string, string>>): Account[] => {
    const memberId = pathId(params, 'memberId');
    customerOf(data, memberId);
    return data.accounts.where('customer', memberId);
  };

  return new Map<string, Handler>([
    [
      'GETaccounts/{accountId}/transactions',
      ({ res, params }) => {
        const accountId = pathId(params, 'accountId');
        if (!data.accounts.has(accountId)) throw notFound(`no account with id ${accountId}`);
        sendJson(res, 200, accountTransactions(data, accountId));
      },
    ],
    [
      'GETbranches/{branchId}/address',
      ({ res, params }) => {
        const branchId = pathId(params, 'branchId');
        const branch = data.branches.get(branchId);
        if (!branch) throw notFound(`no branch with Id ${branchId}`);
        const address = branch.AddressId === undefined ? undefined : data.addresses.get(branch.AddressId);
        if (!address) throw notFound(`branch ${branchId} has no address`);
        sendJson(res, 200, address);
      },
    ],
    ['GETcustomers/{memberId}/accounts', ({ res, params }) => sendJson(res, 200, memberAccounts(params).filter(isOpen))],
    [
      'GETcustomers/{memberId}/historicalaccounts',
      ({ res, params }) =>
        sendJson(
          res,
          200,
          memberAccounts(params).filter((a) => !isOpen(a)),
        ),
    ],
    [
      'GETcustomers/{memberId}/bankaccounts',
      ({ res, params }) => {
        const memberId = pathId(params, 'memberId');
        customerOf(data, memberId);
        sendJson(
          res,
          200,
          data.bankAccounts.where('customer', memberId).map((h) => h.record),
        );
      },
    ],
    [
      'GETcustomers/{memberId}/productshares',
      ({ res, params }) => {
        const held = new Set(
          memberAccounts(params)
            .filter((a) => isOpen(a) && isSavings(a))
            .map((a) => a.productId),
        );
        const shares = [...held].sort((a, b) => a - b).flatMap((id) => data.productShares.get(id) ?? []);
        sendJson(res, 200, shares);
      },
    ],
    [
      'GETcustomers/{memberId}/messagethreads',
      ({ res, params }) => {
        const memberId = pathId(params, 'memberId');
        customerOf(data, memberId);
        sendJson(res, 200, data.messageThreads.where('customer', memberId));
      },
    ],
    [
      'GETcustomers/{memberId}/marketingpreferences',
      ({ res, params }) => {
        const memberId = pathId(params, 'memberId');
        const customer = customerOf(data, memberId);
        const person = data.people.get(memberId);
        if (!person) throw notFound(`member ${memberId} has no person record to hold marketing preferences`);
        const preferences: MarketingPreferences = {
          CustomerId: memberId,
          MarketingPost: person.MarketingPost,
          MarketingEmail: person.MarketingEmail,
          MarketingTelephone: person.MarketingTelephone,
          MarketingText: person.MarketingText,
          SmsConsentGiven: customer.SmsConsentGiven,
        };
        sendJson(res, 200, preferences);
      },
    ],
    [
      'GETcustomers/{memberId}/totalpledgedsavings',
      ({ res, params }) => {
        const memberId = pathId(params, 'memberId');
        const total = memberAccounts(params)
          .filter((a) => isOpen(a) && isSavings(a))
          .reduce((sum, a) => sum.plus(a.balanceLocked), ScaledDecimal.zero());
        const answer: TotalPledgedSavings = { CustomerId: memberId, TotalPledgedSavings: total };
        sendJson(res, 200, answer);
      },
    ],
    [
      'GETloanproducts/{id}/reasons',
      ({ res, params }) => {
        const productId = pathId(params, 'id');
        if (!data.loanProducts.has(productId)) throw notFound(`no loan product with Id ${productId}`);
        const reasonIds = data.loanProductReasons.get(productId) ?? [];
        sendJson(
          res,
          200,
          reasonIds.flatMap((id) => data.loanReasons.get(id) ?? []),
        );
      },
    ],
    [
      'GETmessagethreads/{id}/messages',
      ({ res, params }) => {
        const threadId = pathId(params, 'id');
        if (!data.messageThreads.has(threadId)) throw notFound(`no message thread with Id ${threadId}`);
        sendJson(res, 200, data.messages.where('thread', threadId));
      },
    ],
    [
      'GETtransactions/{memberId}/batchstatement',
      ({ res, params, query }) => {
        const memberId = pathId(params, 'memberId');
        const customer = customerOf(data, memberId);
        const { from, to } = period(query, false);
        sendJson(res, 200, batchStatement(data, customer, from, to));
      },
    ],
    [
      'GETtransactions/{memberId}/between',
      ({ res, params, query }) => {
        const memberId = pathId(params, 'memberId');
        const { from, to } = period(query, true);
        const inPeriod = (t: Transaction): boolean => (from === null || t.ValueDate >= from) && (to === null || t.ValueDate <= to);
        sendJson(res, 200, memberTransactions(data, memberId).filter(inPeriod));
      },
    ],
    [
      'GETbankaccounts/{id}',
      ({ res, params }) => {
        const id = pathId(params, 'id');
        const holding = data.bankAccounts.get(id);
        if (!holding) throw notFound(`no bank account with Id ${id}`);
        sendJson(res, 200, holding.record);
      },
    ],
  ]);
}

/**
 * The `from` and `to` query parameters as datetimes in the data's format. A date alone means the
 * start of that day for `from` and its end for `to`, so `to=2024-03-31` includes the 31st.
 */
function period(query: URLSearchParams, required: boolean): { from: string | null; to: string | null } {
  const errors: Array<{ field: string; message: string }> = [];
  const read = (name: 'from' | 'to'): string | null => {
    const text = queryParameter(query, name);
    if (text === undefined) {
      if (required) errors.push({ field: name, message: 'required: a date (2024-03-01) or a datetime (2024-03-01T09:30:00)' });
      return null;
    }
    const value = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T${name === 'from' ? '00:00:00' : '23:59:59'}` : text;
    if (!isDateTime(value)) {
      errors.push({ field: name, message: `'${text}' is not a date (2024-03-01) or a datetime without zone offset (2024-03-01T09:30:00)` });
      return null;
    }
    return value;
  };
  const from = read('from');
  const to = read('to');
  if (from !== null && to !== null && from > to) errors.push({ field: 'from', message: 'must not be after to' });
  if (errors.length > 0) throw invalid(errors);
  return { from, to };
}

function batchStatement(data: SandboxData, customer: Customer, from: string | null, to: string | null): BatchStatement {
  const accounts: StatementAccount[] = [];
  for (const account of data.accounts.where('customer', customer.Number)) {
    const history = accountTransactions(data, account.id);
    const before = history.filter((t) => from !== null && t.ValueDate < from);
    const during = history.filter((t) => (from === null || t.ValueDate >= from) && (to === null || t.ValueDate <= to));
    if (during.length === 0 && !isOpen(account)) continue;
    const opening = before[before.length - 1]?.Balance ?? ScaledDecimal.zero();
    const sum = (credit: boolean): ScaledDecimal => during.filter((t) => t.Credit === credit).reduce((total, t) => total.plus(t.Amount), ScaledDecimal.zero());
    accounts.push({
      AccountId: account.id,
      AccountNumber: account.accountNumber,
      Description: account.description,
      OpeningBalance: opening,
      ClosingBalance: during[during.length - 1]?.Balance ?? opening,
      TotalCredits: sum(true),
      TotalDebits: sum(false),
      Transactions: during,
    });
  }
  return {
    CustomerId: customer.Number,
    Name: customer.Name,
    CorrespondenceName: customer.CorrespondenceName,
    From: from,
    To: to,
    Accounts: accounts,
  };
}
