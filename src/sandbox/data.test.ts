import { createSandboxData, type SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { writeJson } from './json';
import { ACCOUNT_STATUS, PRODUCT_TYPE } from './model';

function snapshot(data: SandboxData): string {
  const tables = Object.entries(data).map(([name, value]) => [name, value instanceof Map ? [...value] : typeof value === 'string' ? value : value.list()]);
  return writeJson(Object.fromEntries(tables));
}

describe('sandbox data', () => {
  const data = createSandboxData(42);

  it('is identical for the same seed and different for another', () => {
    const first = snapshot(data);
    expect(snapshot(createSandboxData(42))).toBe(first);
    expect(snapshot(createSandboxData(7))).not.toBe(first);
  });

  it('defaults to seed 42', () => {
    expect(snapshot(createSandboxData())).toBe(snapshot(data));
  });

  it('holds at least 200 customers with one person each and at least 500 accounts', () => {
    expect(data.customers.size).toBeGreaterThanOrEqual(200);
    expect(data.people.size).toBe(data.customers.size);
    for (const customer of data.customers.list()) expect(data.people.get(customer.Number)?.MemberId).toBe(customer.Number);
    expect(data.accounts.size).toBeGreaterThanOrEqual(500);
  });

  it('has savings and loan accounts, closed ones among them, each pointing at an existing customer and product', () => {
    const accounts = data.accounts.list();
    const loans = accounts.filter((a) => a.productTypeId === PRODUCT_TYPE.Loan.value);
    const savings = accounts.filter((a) => a.productTypeId !== PRODUCT_TYPE.Loan.value);
    expect(loans.length).toBeGreaterThan(50);
    expect(savings.length).toBeGreaterThan(300);
    expect(accounts.filter((a) => a.status === ACCOUNT_STATUS.Closed.value).length).toBeGreaterThan(20);
    for (const account of accounts) expect(data.customers.has(account.customerId)).toBe(true);
    for (const loan of loans) expect(data.loanProducts.has(loan.productId)).toBe(true);
    for (const saving of savings) expect(data.productShares.has(saving.productId)).toBe(true);
  });

  it('gives every account a transaction history whose running balance ends at the account balance', () => {
    const problems: string[] = [];
    for (const account of data.accounts.list()) {
      const history = data.transactions.where('account', account.id);
      if (history.length === 0) problems.push(`${account.id}: no transactions`);
      let balance = ScaledDecimal.zero();
      const isLoan = account.productTypeId === PRODUCT_TYPE.Loan.value;
      for (const t of history) {
        balance = t.Credit !== isLoan ? balance.plus(t.Amount) : balance.minus(t.Amount);
        if (t.Balance.compare(balance) !== 0) problems.push(`${t.ReceiptNumber}: running balance ${t.Balance} where ${balance} was due`);
      }
      if (account.balance.compare(balance) !== 0) problems.push(`${account.id}: balance ${account.balance}, transactions say ${balance}`);
      if (account.status === ACCOUNT_STATUS.Closed.value && !account.balance.isZero()) problems.push(`${account.id}: closed with a balance`);
    }
    expect(problems).toEqual([]);
  });

  it('numbers receipts uniquely, in posting order across the whole core', () => {
    const transactions = data.transactions.list();
    expect(transactions.length).toBeGreaterThan(5000);
    const outOfOrder = transactions.filter((current, i) => {
      const previous = transactions[i - 1];
      return previous && (current.ReceiptNumber !== previous.ReceiptNumber + 1 || current.ValueDate < previous.ValueDate);
    });
    expect(outOfOrder).toEqual([]);
  });

  it('dates nothing after its as-at moment', () => {
    expect(data.transactions.list().filter((t) => t.ValueDate > data.asAt)).toEqual([]);
    expect(data.customers.list().filter((c) => c.OpenDate > data.asAt)).toEqual([]);
    expect(data.messages.list().filter((m) => m.Date > data.asAt)).toEqual([]);
  });

  it('keeps money at two decimal places', () => {
    const wrong = data.transactions.list().filter((t) => t.Amount.scale !== 2 || t.Balance.scale !== 2 || t.Amount.compare(ScaledDecimal.zero()) <= 0);
    expect(wrong).toEqual([]);
    expect(data.accounts.list().filter((a) => a.balance.scale !== 2 || a.interest.scale !== 2)).toEqual([]);
  });

  it('has more banks than fit on one default page, and reference lists of realistic size', () => {
    expect(data.banks.size).toBeGreaterThan(20);
    expect(data.branches.size).toBe(10);
    expect(data.countryCodes.size).toBeGreaterThanOrEqual(30);
    expect(data.employers.size).toBeGreaterThanOrEqual(40);
    expect(data.loanProducts.size).toBe(6);
    expect(data.loanReasons.size).toBe(12);
    expect(data.productShares.size).toBe(8);
    expect(data.titles.list().map((t) => t.Name)).toEqual(expect.arrayContaining(['Mr', 'Mrs', 'Miss', 'Ms', 'Dr']));
    expect(data.loanRepaymentPeriods.list().map((p) => p.Name)).toEqual(expect.arrayContaining(['Weekly', 'Fortnightly', 'Monthly']));
  });

  it('links every loan product to reasons, every branch to an address, every thread to messages', () => {
    for (const product of data.loanProducts.list()) expect(data.loanProductReasons.get(product.Id)?.length).toBeGreaterThan(0);
    for (const branch of data.branches.list()) expect(data.addresses.has(branch.AddressId ?? -1)).toBe(true);
    for (const thread of data.messageThreads.list()) {
      expect(data.customers.has(thread.CustomerId)).toBe(true);
      expect(data.messages.where('thread', thread.Id).length).toBeGreaterThan(0);
    }
  });

  it('gives some customers bank accounts with 8-digit account numbers and 6-digit sort codes, some closed', () => {
    const holdings = data.bankAccounts.list();
    expect(holdings.length).toBeGreaterThan(50);
    for (const { record, customerId } of holdings) {
      expect(record.AccountNumber).toMatch(/^\d{8}$/);
      expect(record.SortCode).toMatch(/^\d{6}$/);
      expect(data.customers.has(customerId)).toBe(true);
    }
    expect(holdings.some((h) => h.record.DateClosed !== null)).toBe(true);
    expect(holdings.some((h) => h.record.DateClosed === null)).toBe(true);
  });

  it('pledges share savings against open loans, never more than the shares hold', () => {
    const pledged = data.accounts.list().filter((a) => !a.balanceLocked.isZero());
    expect(pledged.length).toBeGreaterThan(10);
    for (const account of pledged) {
      expect(account.balanceLocked.compare(account.balance)).toBeLessThanOrEqual(0);
      expect(data.loanProducts.has(account.lockedLoanProductId)).toBe(true);
    }
  });

  it('sets realistic vendor receipt limits on every product share', () => {
    for (const share of data.productShares.list()) {
      expect(share.vendorConnectReceiptLimit.scale).toBe(2);
      expect(share.vendorConnectReceiptLimit.compare(share.vendorConnectDailyLimit)).toBeLessThanOrEqual(0);
      expect(share.vendorConnectReceiptLimit.isZero()).toBe(false);
    }
  });
});
