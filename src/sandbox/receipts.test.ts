/**
 * The sandbox core's receipt operations over HTTP: postings move balances exactly and show in
 * the account reads, overrides need a seeded supervisor, reversals undo a loan issue, and bad
 * input, unknown accounts and repeated external references are refused with the receipt.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createSandboxApp } from './app';
import { createSandboxData, type SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { ACCOUNT_STATUS, PRODUCT_TYPE, TRANSACTION_TYPE, type Account } from './model';
import { ADJUSTMENT_RECEIPT_TYPE, LOAN_REVERSAL_OPTION, OVERRIDE_TYPE } from './receipt-records';

/** The sandbox supervisor credentials docs/vendor-guide.md publishes. */
const SUPERVISOR = { overrideUserName: 'supervisor', overridePassword: 'Sandbox-Override-2025' };

type App = ReturnType<typeof createSandboxApp>;

function freshApp(): { app: App; data: SandboxData } {
  const data = createSandboxData(42);
  return { app: createSandboxApp({ data }), data };
}

const post = (app: App, operation: 'savings/deposit' | 'savings/payment' | 'loan/reversal', body: string) =>
  request(app).post(`/api/transaction/${operation}`).set('Content-Type', 'application/json').send(body);

/** An open share account of product 1 (receipt limit 2500.00, daily limit 5000.00). */
function shareAccount(data: SandboxData, skip = 0): Account {
  const account = data.accounts
    .list()
    .filter((a) => a.productId === 1 && a.productTypeId === PRODUCT_TYPE.ShareSavings.value && a.status === ACCOUNT_STATUS.Open.value)[skip];
  if (!account) throw new Error('no open share account in the seed');
  return account;
}

/** A loan whose only lines are its issue and the interest charged since: its issue can be reversed. */
function reversibleLoan(data: SandboxData, skip = 0): { loan: Account; issue: number; amount: string } {
  const found = data.accounts
    .list()
    .filter((a) => a.productTypeId === PRODUCT_TYPE.Loan.value)
    .map((loan) => ({ loan, lines: data.transactions.where('account', loan.id).sort((x, y) => x.ReceiptNumber - y.ReceiptNumber) }))
    .filter(
      ({ lines }) =>
        lines[0]?.TransactionsTypeID === TRANSACTION_TYPE.LoanAdvance.value &&
        lines.slice(1).every((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanInterest.value),
    )[skip];
  if (!found?.lines[0]) throw new Error('no reversible loan in the seed');
  return { loan: found.loan, issue: found.lines[0].ReceiptNumber, amount: found.lines[0].Amount.toString() };
}

async function balanceText(app: App, accountId: number): Promise<string> {
  const text = (await request(app).get(`/accounts/${accountId}`).expect(200)).text;
  return /"balance":(-?[\d.]+)/.exec(text)?.[1] ?? 'missing';
}

describe('sandbox savings deposit and payment', () => {
  it('raises the balance by exactly the amount and lists the new receipt in the account transactions', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const before = account.balance;
    const nextReceipt = data.transactions.nextKey();

    const response = await post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":0.10,"externalRefNo":"DEP-1","notes":"till 4"}`).expect(201);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.text).toBe(
      `{"cuAccountID":${account.id},"amount":0.10,"externalRefNo":"DEP-1","notes":"till 4","receiptNo":${nextReceipt},"hasOverride":false,"transactionOverrides":[]}`,
    );

    expect(await balanceText(app, account.id)).toBe(before.plus(ScaledDecimal.parse('0.10')).toString());
    const lines = (await request(app).get(`/accounts/${account.id}/transactions`).expect(200)).text;
    expect(lines).toContain(`"ReceiptNumber":${nextReceipt},`);
    expect(lines).toContain(`"Amount":0.10,"Balance":${before.plus(ScaledDecimal.parse('0.10')).toString()}`);
    expect((await request(app).get(`/transactions/${account.customerId}`).expect(200)).text).toContain(`"ReceiptNumber":${nextReceipt},`);
  });

  it('answers a payment with the receipt lines, balance date and account status, and numbers receipts in sequence', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const open = account.balance.toString();
    const first = (await post(app, 'savings/payment', `{"accountNumber":"${account.accountNumber}","amount":25}`).expect(201)).body as Record<string, unknown>;
    const second = (await post(app, 'savings/payment', `{"accountNumber":"${account.accountNumber}","amount":1.5}`).expect(201)).body as Record<
      string,
      unknown
    >;
    expect(second.receiptNo).toBe((first.receiptNo as number) + 1);
    const closing = ScaledDecimal.parse(open).plus(ScaledDecimal.parse('25.00'));
    const response = await request(app).get(`/accounts/${account.id}`);
    expect(response.text).toContain(`"balance":${closing.plus(ScaledDecimal.parse('1.50')).toString()}`);
    expect(first).toMatchObject({
      accountNumber: account.accountNumber,
      amount: 25,
      hasOverride: false,
      status: 'Open',
      isLoanAccount: false,
      fingerPrintURL: null,
      principal: {
        name: account.description,
        openBalance: Number(open),
        creditAmount: 25,
        amountPaid: 25,
        closingBalance: Number(closing.toString()),
        id: String(account.id),
      },
    });
    expect(first.totals).toEqual(first.principal);
    expect(first.balanceDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it('needs an override above the product receipt limit: 422 with one TransactionOverrideDto, and nothing posted', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const before = await balanceText(app, account.id);
    const lineCount = data.transactions.size;

    const response = await post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":2500.01}`).expect(422);
    const body = response.body as { hasOverride: boolean; transactionOverrides: Array<Record<string, unknown>>; receiptNo?: number };
    expect(body.hasOverride).toBe(true);
    expect(body.transactionOverrides).toHaveLength(1);
    expect(body.transactionOverrides[0]).toMatchObject({
      cuAccountID: account.id,
      overrideType: OVERRIDE_TYPE.ReceiptLimit.value,
      overrideTypeText: 'ReceiptLimit',
      amount: 2500.01,
      authorised: false,
    });
    expect(String(body.transactionOverrides[0]?.message)).toContain('2500.00');
    expect(body.receiptNo).toBeUndefined();
    expect(await balanceText(app, account.id)).toBe(before);
    expect(data.transactions.size).toBe(lineCount);
  });

  it('posts an over-limit deposit once when a seeded supervisor authorises it, and never echoes the password', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const before = account.balance;
    const response = await post(app, 'savings/deposit', JSON.stringify({ cuAccountID: account.id, amount: 3000, ...SUPERVISOR })).expect(201);
    expect(response.text).not.toContain(SUPERVISOR.overridePassword);
    expect(response.text).not.toContain('overridePassword');
    expect(response.body).toMatchObject({ overrideUserName: 'supervisor', hasOverride: false });
    expect(await balanceText(app, account.id)).toBe(before.plus(ScaledDecimal.parse('3000.00')).toString());
    expect(data.receipts.where('account', account.id)).toEqual([expect.objectContaining({ authorisedBy: 'supervisor' })]);
  });

  it('refuses an override with a wrong password or an unknown supervisor, saying the credentials were not accepted', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    for (const credentials of [
      { ...SUPERVISOR, overridePassword: 'wrong' },
      { overrideUserName: 'nobody', overridePassword: SUPERVISOR.overridePassword },
    ]) {
      const response = await post(app, 'savings/deposit', JSON.stringify({ cuAccountID: account.id, amount: 3000, ...credentials })).expect(422);
      expect(String((response.body as { transactionOverrides: Array<{ message: string }> }).transactionOverrides[0]?.message)).toContain('not accepted');
      expect(response.text).not.toContain('"overridePassword"');
    }
    expect(data.receipts.size).toBe(0);
  });

  it("needs an override once the day's receipts on the account would pass the daily limit", async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    await post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":2500.00}`).expect(201);
    await post(app, 'savings/payment', `{"cuAccountID":${account.id},"amount":2500.00}`).expect(201);
    const over = await post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":0.01}`).expect(422);
    expect((over.body as { transactionOverrides: Array<{ overrideType: number }> }).transactionOverrides[0]?.overrideType).toBe(OVERRIDE_TYPE.DailyLimit.value);
    await post(app, 'savings/deposit', JSON.stringify({ cuAccountID: account.id, amount: 0.01, ...SUPERVISOR })).expect(201);
    // The limit is per account: another account of the same product is unaffected.
    await post(app, 'savings/deposit', `{"cuAccountID":${shareAccount(data, 1).id},"amount":2500.00}`).expect(201);
  });

  it('answers an unknown account with 400, the receipt and errorMessage, keeping every decimal as sent', async () => {
    const { app } = freshApp();
    const response = await post(app, 'savings/payment', '{"cuAccountID":99999999,"amount":1234567890123456789012.3456,"tendered":0.10}').expect(400);
    expect(response.text).toBe(
      '{"cuAccountID":99999999,"amount":1234567890123456789012.3456,"tendered":0.10,"hasOverride":false,"transactionOverrides":[],"errorMessage":"no account with cuAccountID 99999999"}',
    );
    const byNumber = await post(app, 'savings/deposit', '{"accountNumber":"00012345","amount":1}').expect(400);
    expect(byNumber.body).toMatchObject({ accountNumber: '00012345', errorMessage: 'no account with accountNumber 00012345' });
  });

  it('refuses the same externalRefNo twice on one account with 409, but not on another account', async () => {
    const { app, data } = freshApp();
    const [a, b] = [shareAccount(data), shareAccount(data, 1)];
    const first = (await post(app, 'savings/deposit', `{"cuAccountID":${a.id},"amount":10,"externalRefNo":"PAYPOINT-77"}`).expect(201)).body as {
      receiptNo: number;
    };
    const again = await post(app, 'savings/payment', `{"cuAccountID":${a.id},"amount":10,"externalRefNo":"PAYPOINT-77"}`).expect(409);
    expect((again.body as { errorMessage: string }).errorMessage).toContain(`receipt ${first.receiptNo}`);
    await post(app, 'savings/deposit', `{"cuAccountID":${b.id},"amount":10,"externalRefNo":"PAYPOINT-77"}`).expect(201);
    expect(await balanceText(app, a.id)).toBe(a.balance.toString());
    expect(data.receipts.where('account', a.id)).toHaveLength(1);
  });

  it('lists every invalid field in errorMessage and posts nothing', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const response = await post(app, 'savings/deposit', `{"cuAccountID":"${account.id}","amount":"10.00","externalRefNo":7}`).expect(400);
    const message = (response.body as { errorMessage: string }).errorMessage;
    expect(message).toContain('cuAccountID must be a 32-bit integer');
    expect(message).toContain('amount must be a decimal number');
    expect(message).toContain('externalRefNo must be a string');
    for (const [body, expected] of [
      [`{"cuAccountID":${account.id}}`, 'amount is required'],
      [`{"cuAccountID":${account.id},"amount":-5}`, 'amount must be positive'],
      [`{"cuAccountID":${account.id},"amount":1.005}`, 'more than 2 decimal places'],
      ['{"amount":5}', 'cuAccountID or accountNumber is required'],
      [`{"cuAccountID":${account.id},"accountNumber":"${shareAccount(data, 1).accountNumber}","amount":5}`, 'name different accounts'],
    ] as const) {
      expect(((await post(app, 'savings/deposit', body).expect(400)).body as { errorMessage: string }).errorMessage).toContain(expected);
    }
    expect(data.receipts.size).toBe(0);
  });

  it('reads names in any case, writes the core fields under their canonical names, and drops read-only input', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const response = await post(
      app,
      'savings/payment',
      `{"CUAccountID":${account.id},"Amount":5,"ReceiptNo":1,"HasOverride":true,"TempToken":"fingerprint-secret","ErrorMessage":"x"}`,
    ).expect(201);
    expect(response.text).not.toContain('fingerprint-secret');
    expect(response.text).not.toMatch(/"ReceiptNo"|"HasOverride"|"ErrorMessage"|"TempToken"/);
    expect(response.body).toMatchObject({ CUAccountID: account.id, Amount: 5, hasOverride: false, receiptNo: data.transactions.nextKey() - 1 });
  });

  it('refuses what the core would refuse: loan accounts, bonds, closed accounts, and a deposit above the product maximum', async () => {
    const { app, data } = freshApp();
    const loan = data.accounts.list().find((a) => a.productTypeId === PRODUCT_TYPE.Loan.value && a.status === ACCOUNT_STATUS.Open.value)!;
    const bond = data.accounts.list().find((a) => a.productTypeId === PRODUCT_TYPE.TermDeposit.value)!;
    const closed = data.accounts.list().find((a) => a.productTypeId === PRODUCT_TYPE.ShareSavings.value && a.status === ACCOUNT_STATUS.Closed.value)!;
    const account = shareAccount(data);
    for (const [id, amount, expected] of [
      [loan.id, '5', 'is a loan account'],
      [bond.id, '5', 'fixed-term bond'],
      [closed.id, '5', 'is closed'],
      [account.id, '90000', 'above its maximum balance of 85000.00'],
    ] as const) {
      const body = JSON.stringify({ cuAccountID: id, amount: 1, ...SUPERVISOR }).replace('"amount":1', `"amount":${amount}`);
      expect(((await post(app, 'savings/deposit', body).expect(400)).body as { errorMessage: string }).errorMessage).toContain(expected);
    }
  });

  it('answers a body that is not a JSON object with a problem, as every sandbox route does', async () => {
    const { app } = freshApp();
    await request(app).post('/api/transaction/savings/deposit').set('Content-Type', 'application/xml').send('<ReceiptPaymentDto/>').expect(415);
    const malformed = await post(app, 'savings/deposit', '{"amount":').expect(400);
    expect(malformed.headers['content-type']).toMatch(/^application\/problem\+json/);
    await post(app, 'savings/deposit', '[1]').expect(400);
    await request(app).get('/api/transaction/savings/deposit').expect(405);
  });

  it('posts concurrent deposits on one account one after another: every amount counted, every receipt number distinct', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const before = account.balance;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":1.${String(i).padStart(2, '0')}}`)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => (r.body as { receiptNo: number }).receiptNo)).size).toBe(20);
    const total = Array.from({ length: 20 }, (_, i) => ScaledDecimal.parse(`1.${String(i).padStart(2, '0')}`)).reduce((sum, a) => sum.plus(a), before);
    expect(await balanceText(app, account.id)).toBe(total.toString());
  });
});

describe('sandbox loan issue reversal', () => {
  const reversal = (fields: Record<string, unknown>): string =>
    JSON.stringify({ loanIssueReversalNotes: { note: 'issued to the wrong member' }, loanReversalOption: LOAN_REVERSAL_OPTION.Approved.value, ...fields });

  it('reverses the issue and the interest since: the loan owes nothing and goes back to Approved', async () => {
    const { app, data } = freshApp();
    const { loan, issue, amount } = reversibleLoan(data, 1);
    const owed = loan.balance;
    const response = await post(
      app,
      'loan/reversal',
      reversal({ cuAccountID: loan.id, receiptNo: issue, amount: Number(amount), externalRefNo: 'REV-1' }),
    ).expect(201);
    const body = response.body as Record<string, unknown>;
    expect(body).toMatchObject({ isLoanIssueReversal: true, isLoanAccount: true, customerID: loan.customerId, productID: loan.productId, hasOverride: false });
    expect(body.receiptNo).toBe(data.transactions.nextKey() - 1);
    expect(response.text).toContain(
      `"totals":{"name":"${loan.description}","openBalance":${owed.toString()},"debitAmount":0.00,"creditAmount":${owed.toString()},"amountPaid":${owed.toString()},"closingBalance":0.00`,
    );

    const account = (await request(app).get(`/accounts/${loan.id}`).expect(200)).text;
    expect(account).toContain('"balance":0.00');
    expect(account).toContain(`"status":${ACCOUNT_STATUS.Approved.value}`);
    const lines = (await request(app).get(`/accounts/${loan.id}/transactions`).expect(200)).text;
    expect(lines).toContain(`"Description":"Loan issue reversal (receipt ${issue}`);

    const again = await post(app, 'loan/reversal', reversal({ cuAccountID: loan.id, receiptNo: issue, amount: Number(amount) })).expect(400);
    expect((again.body as { errorMessage: string }).errorMessage).toContain('already reversed');
  });

  it('closes the loan when the application is cancelled, moving it to the historical accounts', async () => {
    const { app, data } = freshApp();
    const { loan, issue } = reversibleLoan(data, 0);
    await post(
      app,
      'loan/reversal',
      reversal({ accountNumber: loan.accountNumber, receiptNo: issue, loanReversalOption: LOAN_REVERSAL_OPTION.CancelApplication.value }),
    ).expect(201);
    expect(data.accounts.get(loan.id)).toMatchObject({ status: ACCOUNT_STATUS.Closed.value });
    expect(data.accounts.get(loan.id)?.balance.isZero()).toBe(true);
    const historical = (await request(app).get(`/customers/${loan.customerId}/historicalaccounts`).expect(200)).body as Array<{ id: number }>;
    expect(historical.map((a) => a.id)).toContain(loan.id);
  });

  it('refuses receipts that are not a reversible loan issue, with the reason in errorMessage', async () => {
    const { app, data } = freshApp();
    const { loan, issue, amount } = reversibleLoan(data, 0);
    const repaid = data.accounts
      .list()
      .find(
        (a) =>
          a.productTypeId === PRODUCT_TYPE.Loan.value &&
          data.transactions.where('account', a.id).some((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanRepayment.value),
      )!;
    const repaidIssue = data.transactions.where('account', repaid.id).sort((x, y) => x.ReceiptNumber - y.ReceiptNumber)[0]!;
    const share = shareAccount(data);
    const shareLine = data.transactions.where('account', share.id)[0]!;
    for (const [fields, expected] of [
      [{ cuAccountID: loan.id, receiptNo: 999999999 }, 'no receipt 999999999'],
      [{ cuAccountID: loan.id }, 'receiptNo (the receipt of the loan issue to reverse) is required'],
      [{ cuAccountID: share.id, receiptNo: shareLine.ReceiptNumber }, 'is not a loan issue'],
      [{ cuAccountID: share.id, receiptNo: issue }, 'was not posted on account'],
      [{ cuAccountID: repaid.id, receiptNo: repaidIssue.ReceiptNumber }, 'repayments or top-ups after its issue'],
      [{ cuAccountID: loan.id, receiptNo: issue, amount: Number(amount) + 1 }, 'does not match the issued amount'],
      [{ cuAccountID: loan.id, receiptNo: issue, loanReversalOption: 7 }, 'loanReversalOption 7 is not one of 0 (Approved), 1 (CancelApplication)'],
    ] as const) {
      const response = await post(app, 'loan/reversal', reversal(fields)).expect(400);
      expect((response.body as { errorMessage: string }).errorMessage).toContain(expected);
    }
    expect(data.receipts.size).toBe(0);
    expect(data.accounts.get(loan.id)?.balance.isZero()).toBe(false);
  });
});

describe('sandbox receipt adjustments (ReceiptType SavingsAdjustment, LoanAdjustment)', () => {
  const SAVINGS_ADJUSTMENT = ADJUSTMENT_RECEIPT_TYPE.SavingsAdjustment.value;
  const LOAN_ADJUSTMENT = ADJUSTMENT_RECEIPT_TYPE.LoanAdjustment.value;
  const adjustment = (fields: Record<string, unknown>): string => JSON.stringify({ receiptType: SAVINGS_ADJUSTMENT, ...fields });

  async function deposit(app: App, account: Account, amount: string, ref: string): Promise<number> {
    const response = await post(app, 'savings/deposit', `{"cuAccountID":${account.id},"amount":${amount},"externalRefNo":"${ref}"}`).expect(201);
    return (response.body as { receiptNo: number }).receiptNo;
  }

  it('corrects the named receipt by a signed amount: the balance moves by it, a line of the receipt’s type is listed', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const receiptNo = await deposit(app, account, '50.00', 'ADJ-BASE');
    const afterDeposit = account.balance;

    const down = await post(
      app,
      'savings/payment',
      adjustment({ cuAccountID: account.id, receiptNo, amount: -20.0, externalRefNo: 'ADJ-1', notes: 'keyed 50, was 30' }),
    ).expect(201);
    const downBody = down.body as { receiptNo: number; principal: { debitAmount: number; creditAmount: number; closingBalance: number } };
    expect(downBody.receiptNo).not.toBe(receiptNo);
    expect(downBody.principal).toMatchObject({ debitAmount: 20, creditAmount: 0 });
    expect(await balanceText(app, account.id)).toBe(afterDeposit.minus(ScaledDecimal.parse('20.00')).toString());

    await post(app, 'savings/payment', adjustment({ cuAccountID: account.id, receiptNo, amount: 5.5, externalRefNo: 'ADJ-2', notes: 'and 5.50 more' })).expect(
      201,
    );
    expect(await balanceText(app, account.id)).toBe(afterDeposit.minus(ScaledDecimal.parse('14.50')).toString());

    const lines = data.transactions.where('account', account.id).filter((t) => t.Description.startsWith(`Adjustment of receipt ${receiptNo}`));
    expect(lines.map((t) => [t.Credit, t.Amount.toString(), t.TransactionsTypeID])).toEqual([
      [false, '20.00', TRANSACTION_TYPE.CashDeposit.value],
      [true, '5.50', TRANSACTION_TYPE.CashDeposit.value],
    ]);
  });

  it('takes the whole receipt back when no amount is given, and then refuses to take it below zero', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const before = account.balance;
    const receiptNo = await deposit(app, account, '12.34', 'ADJ-WHOLE');

    await post(app, 'savings/payment', adjustment({ cuAccountID: account.id, receiptNo, externalRefNo: 'ADJ-W1', notes: 'never paid' })).expect(201);
    expect(await balanceText(app, account.id)).toBe(before.toString());

    const again = await post(
      app,
      'savings/payment',
      adjustment({ cuAccountID: account.id, receiptNo, amount: -0.01, externalRefNo: 'ADJ-W2', notes: 'more' }),
    ).expect(400);
    expect((again.body as { errorMessage: string }).errorMessage).toContain(`would take receipt ${receiptNo} below zero (it stands at 0.00)`);
    expect(await balanceText(app, account.id)).toBe(before.toString());
  });

  it('adjusts a loan receipt on a loan: a larger repayment lowers what the member owes', async () => {
    const { app, data } = freshApp();
    const loan = data.accounts
      .list()
      .find(
        (a) =>
          a.productTypeId === PRODUCT_TYPE.Loan.value &&
          a.status !== ACCOUNT_STATUS.Closed.value &&
          data.transactions.where('account', a.id).some((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanRepayment.value && t.Credit),
      )!;
    const repayment = data.transactions.where('account', loan.id).find((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanRepayment.value && t.Credit)!;
    const owed = loan.balance;

    const response = await post(
      app,
      'savings/payment',
      JSON.stringify({
        receiptType: LOAN_ADJUSTMENT,
        cuAccountID: loan.id,
        receiptNo: repayment.ReceiptNumber,
        amount: 1.0,
        externalRefNo: 'LADJ-1',
        notes: 'repaid 1.00 more',
      }),
    ).expect(201);
    expect((response.body as { isLoanAccount: boolean; principal: { creditAmount: number } }).isLoanAccount).toBe(true);
    expect((response.body as { principal: { creditAmount: number } }).principal.creditAmount).toBe(1);
    expect(await balanceText(app, loan.id)).toBe(owed.minus(ScaledDecimal.parse('1.00')).toString());
  });

  it('refuses what cannot be adjusted, with the reason in errorMessage, and posts nothing', async () => {
    const { app, data } = freshApp();
    const account = shareAccount(data);
    const other = shareAccount(data, 1);
    const receiptNo = await deposit(app, account, '10.00', 'ADJ-R');
    const loan = data.accounts.list().find((a) => a.productTypeId === PRODUCT_TYPE.Loan.value && a.status !== ACCOUNT_STATUS.Closed.value)!;
    const before = { account: account.balance.toString(), receipts: data.receipts.size };
    for (const [fields, expected] of [
      [{ cuAccountID: account.id, receiptNo: 999999999, amount: 1 }, 'no receipt 999999999'],
      [{ cuAccountID: other.id, receiptNo, amount: 1 }, 'was not posted on account'],
      [{ cuAccountID: account.id, receiptNo, amount: 0 }, 'an adjustment must change it'],
      [{ cuAccountID: account.id, receiptNo, amount: -10.01 }, 'below zero (it stands at 10.00)'],
      [{ cuAccountID: account.id, receiptNo, amount: 0.001 }, 'more than 2 decimal places'],
      [{ cuAccountID: loan.id, receiptNo, amount: 1 }, 'a SavingsAdjustment corrects a savings receipt'],
      [{ receiptType: LOAN_ADJUSTMENT, cuAccountID: account.id, receiptNo, amount: 1 }, 'a LoanAdjustment corrects a loan receipt'],
      [{ cuAccountID: account.id, amount: 1 }, 'receiptNo (the receipt to correct) is required'],
      [{ cuAccountID: account.id, receiptNo, amount: 1, externalRefNo: 'ADJ-R' }, 'already posted'],
    ] as const) {
      const response = await post(app, 'savings/payment', adjustment({ notes: 'test', ...fields }));
      expect([400, 409]).toContain(response.status);
      expect((response.body as { errorMessage: string }).errorMessage).toContain(expected);
    }
    expect({ account: account.balance.toString(), receipts: data.receipts.size }).toEqual(before);
  });

  it('uses the AWReceiptType numbers of config/receipt-enums.yaml', () => {
    const file = readFileSync(path.join(__dirname, '../../config/receipt-enums.yaml'), 'utf8');
    for (const [name, { value }] of Object.entries(ADJUSTMENT_RECEIPT_TYPE)) {
      expect(file).toMatch(new RegExp(`\\{ value: ${value}, name: ${name}, .*adjustment: true \\}`));
    }
  });
});
