import request from 'supertest';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { ACCOUNT_STATUS, PRODUCT_TYPE } from './model';

const data = createSandboxData(42);
const app = createSandboxApp({ data });

/** A seeded member who has something behind every customer path: closed accounts, bank accounts, threads, pledged shares. */
const member = data.customers.list().find((c) => {
  const accounts = data.accounts.where('customer', c.Number);
  return (
    accounts.some((a) => a.status === ACCOUNT_STATUS.Closed.value) &&
    accounts.some((a) => !a.balanceLocked.isZero()) &&
    data.bankAccounts.where('customer', c.Number).length > 0 &&
    data.messageThreads.where('customer', c.Number).length > 0
  );
})!;
const memberId = member.Number;
const memberAccounts = data.accounts.where('customer', memberId);
const thread = data.messageThreads.where('customer', memberId)[0]!;

describe('additional GET paths', () => {
  it('has a seeded member with something behind every path', () => {
    expect(member).toBeDefined();
  });

  it.each([
    `/accounts/${memberAccounts[0]!.id}/transactions`,
    '/branches/1/address',
    `/customers/${memberId}/accounts`,
    `/customers/${memberId}/historicalaccounts`,
    `/customers/${memberId}/bankaccounts`,
    `/customers/${memberId}/productshares`,
    `/customers/${memberId}/messagethreads`,
    `/customers/${memberId}/marketingpreferences`,
    `/customers/${memberId}/totalpledgedsavings`,
    '/loanproducts/101/reasons',
    `/messagethreads/${thread.Id}/messages`,
    `/transactions/${memberId}/batchstatement`,
    `/transactions/${memberId}/between?from=2024-01-01&to=2025-06-30`,
    `/bankaccounts/${data.bankAccounts.where('customer', memberId)[0]!.record.Id}`,
  ])('answers %s with 200 and JSON', async (path) => {
    const response = await request(app).get(path).expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(Array.isArray(response.body) ? response.body.length : Object.keys(response.body as object).length).toBeGreaterThan(0);
  });

  it("lists an account's transactions oldest first", async () => {
    const account = memberAccounts[0]!;
    const body = (await request(app).get(`/accounts/${account.id}/transactions`)).body as Array<{ AccountId: number; ValueDate: string }>;
    expect(body).toHaveLength(data.transactions.where('account', account.id).length);
    expect(body.every((t) => t.AccountId === account.id)).toBe(true);
    expect(body.map((t) => t.ValueDate)).toEqual(body.map((t) => t.ValueDate).sort());
  });

  it("splits a member's accounts into open (accounts) and closed (historicalaccounts)", async () => {
    const open = (await request(app).get(`/customers/${memberId}/accounts`)).body as Array<{ id: number; status: number }>;
    const closed = (await request(app).get(`/customers/${memberId}/historicalaccounts`)).body as Array<{ id: number; status: number }>;
    expect(open.every((a) => a.status !== ACCOUNT_STATUS.Closed.value)).toBe(true);
    expect(closed.length).toBeGreaterThan(0);
    expect(closed.every((a) => a.status === ACCOUNT_STATUS.Closed.value)).toBe(true);
    expect([...open, ...closed].map((a) => a.id).sort()).toEqual(memberAccounts.map((a) => a.id).sort());
  });

  it("gives the branch's address record", async () => {
    const body = (await request(app).get('/branches/3/address')).body as { id: number };
    expect(body.id).toBe(data.branches.get(3)?.AddressId);
  });

  it("lists the product shares behind the member's open savings accounts", async () => {
    const body = (await request(app).get(`/customers/${memberId}/productshares`)).body as Array<{ ProductId: number }>;
    const held = new Set(
      memberAccounts.filter((a) => a.status !== ACCOUNT_STATUS.Closed.value && a.productTypeId !== PRODUCT_TYPE.Loan.value).map((a) => a.productId),
    );
    expect(body.map((p) => p.ProductId)).toEqual([...held].sort((a, b) => a - b));
  });

  it('derives marketing preferences from the person and the customer', async () => {
    const person = data.people.get(memberId)!;
    const body = (await request(app).get(`/customers/${memberId}/marketingpreferences`)).body as Record<string, unknown>;
    expect(body).toEqual({
      CustomerId: memberId,
      MarketingPost: person.MarketingPost,
      MarketingEmail: person.MarketingEmail,
      MarketingTelephone: person.MarketingTelephone,
      MarketingText: person.MarketingText,
      SmsConsentGiven: member.SmsConsentGiven,
    });
  });

  it('totals the pledged savings exactly, as a decimal with two places', async () => {
    const expected = memberAccounts
      .filter((a) => a.status !== ACCOUNT_STATUS.Closed.value && a.productTypeId !== PRODUCT_TYPE.Loan.value)
      .reduce((sum, a) => sum.plus(a.balanceLocked), ScaledDecimal.zero());
    const response = await request(app).get(`/customers/${memberId}/totalpledgedsavings`);
    expect(response.text).toBe(`{"CustomerId":${memberId},"TotalPledgedSavings":${expected.toString()}}`);
    expect(expected.isZero()).toBe(false);
  });

  it("lists a product's loan reasons and a thread's messages", async () => {
    const reasons = (await request(app).get('/loanproducts/102/reasons')).body as Array<{ Code: string }>;
    expect(reasons.map((r) => r.Code)).toEqual(['CAR', 'CARREP']);
    const messages = (await request(app).get(`/messagethreads/${thread.Id}/messages`)).body as Array<{ MessageThreadId: number; Date: string }>;
    expect(messages.every((m) => m.MessageThreadId === thread.Id)).toBe(true);
    expect(messages.map((m) => m.Date)).toEqual(messages.map((m) => m.Date).sort());
  });

  it("answers between with the member's transactions inside the period, a bare date meaning the whole day", async () => {
    const body = (await request(app).get(`/transactions/${memberId}/between?from=2025-01-01&to=2025-03-31`).expect(200)).body as Array<{ ValueDate: string }>;
    expect(body.every((t) => t.ValueDate >= '2025-01-01T00:00:00' && t.ValueDate <= '2025-03-31T23:59:59')).toBe(true);
    const all = (await request(app).get(`/transactions/${memberId}`).expect(200)).body as Array<{ ValueDate: string }>;
    expect(body).toHaveLength(all.filter((t) => t.ValueDate.startsWith('2025-0') && t.ValueDate < '2025-04').length);
  });

  it.each([
    ['', 'from'],
    ['from=2025-01-01', 'to'],
    ['from=2025-13-01&to=2025-12-31', 'from'],
    ['from=2025-01-01&to=2025-01-01T10:00:00Z', 'to'],
    ['from=2025-02-01&to=2025-01-01', 'from'],
  ])('answers between?%s with a 400 naming %s', async (query, parameter) => {
    const response = await request(app).get(`/transactions/${memberId}/between?${query}`).expect(400);
    expect((response.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain(parameter);
  });

  it('balances the batch statement: opening plus credits less debits is closing, on savings', async () => {
    const body = (await request(app).get(`/transactions/${memberId}/batchstatement?from=2024-07-01&to=2025-06-30`).expect(200)).body as {
      CustomerId: number;
      From: string;
      To: string;
      Accounts: Array<{
        AccountId: number;
        OpeningBalance: number;
        ClosingBalance: number;
        TotalCredits: number;
        TotalDebits: number;
        Transactions: unknown[];
      }>;
    };
    expect(body).toMatchObject({ CustomerId: memberId, From: '2024-07-01T00:00:00', To: '2025-06-30T23:59:59' });
    expect(body.Accounts.length).toBeGreaterThan(0);
    for (const account of body.Accounts) {
      const isLoan = data.accounts.get(account.AccountId)?.productTypeId === PRODUCT_TYPE.Loan.value;
      const movement = isLoan ? account.TotalDebits - account.TotalCredits : account.TotalCredits - account.TotalDebits;
      expect(account.OpeningBalance + movement).toBeCloseTo(account.ClosingBalance, 2);
    }
  });

  it.each([
    `/customers/1/accounts`,
    `/customers/1/historicalaccounts`,
    `/customers/1/bankaccounts`,
    `/customers/1/productshares`,
    `/customers/1/messagethreads`,
    `/customers/1/marketingpreferences`,
    `/customers/1/totalpledgedsavings`,
    `/transactions/1`,
    `/transactions/1/batchstatement`,
    `/transactions/1/between?from=2025-01-01&to=2025-01-02`,
    '/accounts/1/transactions',
    '/branches/99/address',
    '/loanproducts/1/reasons',
    '/messagethreads/999999/messages',
    '/bankaccounts/999999',
  ])('answers %s for an unknown id with 404', async (path) => {
    const response = await request(app).get(path).expect(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
