/**
 * The accounts of each member and two years of their history: share and savings accounts with
 * regular saving, withdrawals, dividends, fees and closures; loans with advances, top-ups,
 * interest, repayments and arrears.
 *
 * Reads the seeded random source and the products; collects accounts and transaction lines,
 * then numbers the lines as receipts in posting order across the core. Each account's history
 * is simulated in date order on an exact running balance, so every balance, arrears figure
 * and pledge agrees with the transactions.
 */
import { addDays, addMonths, atTime, businessMoment, daysBetween, endOfMonth, iso } from './calendar';
import { ScaledDecimal } from './decimal';
import type { Member } from './members';
import {
  ACCOUNT_FIELDS,
  ACCOUNT_STATUS,
  PRODUCT_TYPE,
  SAVINGS_TYPE,
  TRANSACTION_TYPE,
  inSchemaOrder,
  type Account,
  type LoanProduct,
  type ProductShare,
  type Transaction,
} from './model';
import { LOAN, PERIOD, SHARE, ZERO, fraction, money, productShareName } from './products';
import { AccountLedger, Schedule, nextDue, pledgeSavings, repayment, type PostedLine } from './account-simulation';
import type { SeededRandom } from './random';
import type { Table } from './table';

const HISTORY_MONTHS = 24;
const FIRST_ACCOUNT_ID = 50001;
const FIRST_RECEIPT_NUMBER = 1000001;

export class AccountBook {
  readonly accounts: Account[] = [];
  private readonly lines: PostedLine[] = [];
  private readonly historyStart: Date;
  private nextAccountId = FIRST_ACCOUNT_ID;

  constructor(
    private readonly rng: SeededRandom,
    private readonly asAt: Date,
    private readonly productShares: Table<ProductShare>,
    private readonly loanProducts: Table<LoanProduct>,
  ) {
    this.historyStart = addMonths(asAt, -HISTORY_MONTHS);
  }

  /** Opens the member's accounts (a share account always, savings and loans by chance) with their histories. */
  openAccounts(member: Member): void {
    const { rng, productShares } = this;
    const shareProduct = productShares.get(SHARE.Share);
    if (!shareProduct) throw new Error('share product missing');
    const shareAccount = this.savingsAccount(member, shareProduct, 1, member.openDate, false);
    const loanAccounts: Account[] = [];

    const extras: Array<readonly [number, number]> = [
      [SHARE.Christmas, 0.3],
      [SHARE.InstantAccess, 0.35],
      [SHARE.Isa, 0.12],
      [SHARE.Bond, 0.08],
      [SHARE.Payroll, member.employerName ? 0.35 : 0],
      [SHARE.Holiday, 0.12],
    ];
    let savings = 1;
    let loans = 0;
    const openSince = (lead: number): Date => addDays(member.openDate, rng.int(lead, Math.max(lead, daysBetween(member.openDate, this.asAt) - 20)));
    for (const [productId, probability] of extras) {
      if (!rng.chance(probability)) continue;
      const product = productShares.get(productId);
      if (!product) throw new Error(`product share ${productId} missing`);
      // Bonds run for a year, so only recent ones are still on the book or have just matured.
      const issued = productId === SHARE.Bond ? openSince(Math.max(7, daysBetween(member.openDate, addMonths(this.asAt, -20)))) : openSince(7);
      this.savingsAccount(member, product, ++savings, atTime(issued, rng.int(9, 16), rng.int(0, 59)), rng.chance(0.12));
    }
    const loanCount = rng.weighted([
      [0, 55],
      [1, 35],
      [2, 10],
    ]);
    for (let i = 0; i < loanCount; i++) loanAccounts.push(this.loanAccount(member, ++loans));
    // Every member holds at least two accounts: what keeps the book above 500 accounts for any seed.
    if (savings + loans === 1) {
      const instant = productShares.get(SHARE.InstantAccess);
      if (!instant) throw new Error('instant access product missing');
      this.savingsAccount(member, instant, ++savings, atTime(openSince(7), rng.int(9, 16), rng.int(0, 59)), false);
    }
    pledgeSavings(shareAccount, loanAccounts);
  }

  private newAccount(id: number, member: Member, fields: Omit<Account, 'id' | 'parentId' | 'customerId' | 'overdraftLimit'>): Account {
    // No seeded account has a parent product or an overdraft: credit unions offer neither.
    const account = inSchemaOrder(ACCOUNT_FIELDS, { ...fields, id, parentId: 0, customerId: member.customer.Number, overdraftLimit: ZERO });
    this.accounts.push(account);
    return account;
  }

  private savingsAccount(member: Member, product: ProductShare, sequence: number, issued: Date, closes: boolean): Account {
    const { rng } = this;
    const id = this.nextAccountId++;
    const ledger = new AccountLedger(id, false);
    const schedule = new Schedule();
    const start = issued > this.historyStart ? issued : this.historyStart;
    const isBond = product.TermDeposit;
    const isClub = product.SavingsType === SAVINGS_TYPE.Club.value;
    const interestRate = product.InterestRate;
    const minimum = product.MinimumBalance;
    let closedAt: Date | null = closes && !isBond ? addDays(start, rng.int(60, Math.max(60, daysBetween(start, this.asAt) - 14))) : null;
    if (closedAt && closedAt > this.asAt) closedAt = null;
    const dormant = !isBond && !isClub && !closedAt && sequence > 1 && issued < this.historyStart && rng.chance(0.08);
    const end = closedAt ?? this.asAt;
    const regular = !isBond && !dormant && rng.chance(product.ProductId === SHARE.Payroll ? 1 : 0.6);
    const regularAmount = regular ? money(rng.pick([5, 10, 10, 15, 20, 25, 25, 30, 40, 50, 50, 75, 100, 150, 200])) : ZERO;
    const viaPayroll = regular && member.employerName !== null && (product.ProductId === SHARE.Payroll || rng.chance(0.5));

    // History older than the window is archived: the window opens with the balance carried over.
    if (issued < this.historyStart) {
      const broughtForward = isBond ? money(rng.int(10, 200) * 50) : money(rng.int(5, 4000), rng.int(0, 99));
      schedule.add(atTime(start, 0, 5), () =>
        ledger.post(atTime(start, 0, 5), TRANSACTION_TYPE.BroughtForward.value, 'Balance brought forward', true, broughtForward),
      );
    } else {
      const opening = isBond ? money(rng.int(10, 200) * 50) : money(rng.pick([1, 10, 20, 25, 50, 100, 250, 500]));
      const openingType = rng.chance(0.5) ? TRANSACTION_TYPE.CashDeposit : TRANSACTION_TYPE.BankTransferIn;
      schedule.add(issued, () => ledger.post(issued, openingType.value, 'Opening deposit', true, opening));
    }

    if (regular) {
      const payDay = viaPayroll ? 25 : rng.int(1, 28);
      for (let month = addMonths(start, 1); month <= end; month = addMonths(month, 1)) {
        const at = atTime(new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), payDay)), 6, 30);
        if (at <= start || at > end) continue;
        const [typeId, description] = viaPayroll
          ? [TRANSACTION_TYPE.PayrollDeduction.value, `Payroll deduction - ${member.employerName}`]
          : [TRANSACTION_TYPE.StandingOrder.value, 'Standing order'];
        schedule.add(at, () => ledger.post(at, typeId, description, true, regularAmount));
      }
    }

    // Occasional deposits and withdrawals; a withdrawal the balance cannot cover is not made.
    if (!isBond && !isClub && !dormant && daysBetween(start, end) > 2) {
      const adHocCount = rng.int(1, Math.max(1, Math.floor(daysBetween(start, end) / 60)));
      for (let i = 0; i < adHocCount; i++) {
        const at = businessMoment(this.rng, addDays(start, rng.int(1, daysBetween(start, end) - 1)));
        if (rng.chance(0.55)) {
          const wanted = money(rng.pick([20, 30, 50, 60, 100, 150, 200, 250, 300, 500]));
          const cash = rng.chance(0.3);
          schedule.add(at, () => {
            const available = ledger.balance.minus(minimum);
            if (available.compare(wanted) < 0) return;
            ledger.post(
              at,
              cash ? TRANSACTION_TYPE.CashWithdrawal.value : TRANSACTION_TYPE.BankTransferOut.value,
              cash ? 'Cash withdrawal' : 'Withdrawal to bank account',
              false,
              wanted,
            );
          });
        } else {
          const amount = money(rng.int(2, 60) * 5);
          const cash = rng.chance(0.4);
          schedule.add(at, () =>
            ledger.post(
              at,
              cash ? TRANSACTION_TYPE.CashDeposit.value : TRANSACTION_TYPE.BankTransferIn.value,
              cash ? 'Cash deposit' : 'Faster Payment received',
              true,
              amount,
            ),
          );
        }
      }
    }

    if (isClub) {
      // Club savings are paid out once a year, in time for Christmas or the summer holidays.
      const payout =
        product.ProductId === SHARE.Christmas ? { month: 10, day: 15, text: 'Christmas Saver payout' } : { month: 5, day: 1, text: 'Holiday Saver payout' };
      for (let year = start.getUTCFullYear(); year <= end.getUTCFullYear(); year++) {
        const at = new Date(Date.UTC(year, payout.month, payout.day, 7, 0));
        if (at <= start || at > end) continue;
        schedule.add(at, () => {
          if (ledger.balance.isZero()) return;
          ledger.post(at, TRANSACTION_TYPE.BankTransferOut.value, payout.text, false, ledger.balance);
        });
      }
    }

    if (isBond) {
      const maturity = addMonths(issued, product.TermMax);
      if (maturity <= this.asAt) {
        closedAt = atTime(maturity, 7, 0);
        const maturityAt = closedAt;
        schedule.add(maturityAt, () => {
          if (ledger.balance.isZero()) return;
          const interest = ledger.balance.times(fraction(interestRate), 2);
          ledger.post(maturityAt, TRANSACTION_TYPE.Dividend.value, `Interest at maturity at ${interestRate.toString()}%`, true, interest);
          ledger.post(maturityAt, TRANSACTION_TYPE.BankTransferOut.value, 'Bond matured - paid to bank account', false, ledger.balance);
        });
      }
    } else {
      // Dividends and interest are paid once a year, at the year end.
      for (let year = start.getUTCFullYear(); year <= end.getUTCFullYear(); year++) {
        const at = new Date(Date.UTC(year, 11, 31, 23, 0));
        if (at <= start || at > end) continue;
        schedule.add(at, () => {
          const dividend = ledger.balance.times(fraction(interestRate), 2);
          if (dividend.isZero()) return;
          ledger.post(at, TRANSACTION_TYPE.Dividend.value, `${product.InterestTransactionMessage} ${year} at ${interestRate.toString()}%`, true, dividend);
        });
      }
    }

    if (!isBond && rng.chance(0.05)) {
      const at = businessMoment(this.rng, addDays(start, rng.int(1, Math.max(1, daysBetween(start, end) - 1))));
      const fee = money(5);
      schedule.add(at, () => {
        if (ledger.balance.compare(fee) < 0) return;
        ledger.post(at, TRANSACTION_TYPE.Fee.value, 'Replacement card fee', false, fee, true);
      });
    }

    // A cheque paid in during the last few days has not cleared yet.
    let uncleared = ZERO;
    if (!closedAt && !isBond && !dormant && rng.chance(0.05)) {
      const at = businessMoment(this.rng, addDays(this.asAt, -rng.int(1, 3)));
      const cheque = money(rng.int(20, 800));
      uncleared = cheque;
      schedule.add(at, () => ledger.post(at, TRANSACTION_TYPE.ChequeDeposit.value, 'Cheque deposit', true, cheque));
    }

    if (closedAt && !isBond) {
      const at = businessMoment(this.rng, closedAt);
      closedAt = at;
      schedule.add(at, () => {
        if (ledger.balance.isZero()) return;
        ledger.post(at, TRANSACTION_TYPE.BankTransferOut.value, 'Account closed - balance paid to bank account', false, ledger.balance);
      });
    }

    schedule.runUntil(this.asAt);
    this.lines.push(...ledger.lines);
    const isClosed = closedAt !== null && ledger.balance.isZero();
    const lastDividend = new Date(Date.UTC(this.asAt.getUTCFullYear() - 1, 11, 31, 23, 0));
    const accrualFrom = start > lastDividend ? start : lastDividend;
    const accrued = isClosed || isBond ? ZERO : ledger.balance.times(fraction(interestRate).times(daysBetween(accrualFrom, this.asAt)).dividedBy(365), 2);
    const status = isClosed ? ACCOUNT_STATUS.Closed.value : dormant ? ACCOUNT_STATUS.Dormant.value : ACCOUNT_STATUS.Open.value;
    return this.newAccount(id, member, {
      productId: product.ProductId,
      productTypeId: isBond ? PRODUCT_TYPE.TermDeposit.value : PRODUCT_TYPE.ShareSavings.value,
      balanceDate: iso(ledger.lastDate() ?? issued),
      accountNumber: `${member.customer.Number}-S${sequence}`,
      description: productShareName(product.ProductId).description,
      code: productShareName(product.ProductId).code,
      balance: ledger.balance,
      interest: accrued,
      unclearedAmount: uncleared,
      minimumShareBalance: minimum,
      balanceLocked: ZERO,
      issueDate: iso(issued),
      approveAmountTotal: ZERO,
      lockedPercentage: ZERO,
      lockedAgainstNetShares: false,
      lockedLoanProductId: 0,
      status,
      loanArrears: ZERO,
      loanTopUps: 0,
      loanRepaymentsMade: 0,
      paymentPeriodId: regular ? PERIOD.Monthly : 0,
      paymentPeriodNumber: regular ? 1 : 0,
      normalPayment: regularAmount,
    });
  }

  private loanAccount(member: Member, sequence: number): Account {
    const { rng } = this;
    const product = this.loanProducts.get(
      rng.weighted<number>([
        [LOAN.Personal, 35],
        [LOAN.Car, 15],
        [LOAN.HomeImprovement, 10],
        [LOAN.ShareSecured, 10],
        [LOAN.CreditBuilder, 15],
        [LOAN.Budget, 15],
      ]),
    );
    if (!product) throw new Error('loan product missing');
    const id = this.nextAccountId++;
    const ledger = new AccountLedger(id, true);
    const schedule = new Schedule();

    const earliestIssue = addDays(member.openDate, 30);
    const windowStart = addMonths(this.asAt, -48);
    const from = earliestIssue > windowStart ? earliestIssue : windowStart;
    const issued = businessMoment(this.rng, addDays(from, rng.int(0, Math.max(0, daysBetween(from, this.asAt) - 10))));
    const step = 50;
    const steps = (amount: ScaledDecimal): number => amount.value.dividedToIntegerBy(step).toNumber();
    const principal = money(step * rng.int(steps(product.MinimumChequeAmount), steps(product.MaximumChequeAmount)));
    const termMonths = rng.int(product.MinimumTerm, product.MaximumTerm);
    const monthlyRate = fraction(product.DefaultRate);
    const period = rng.weighted<number>([
      [PERIOD.Monthly, 70],
      [PERIOD.Fortnightly, 20],
      [PERIOD.Weekly, 10],
    ]);
    const payment = repayment(principal, monthlyRate, termMonths, period);
    const arrearsCount = rng.weighted([
      [0, 85],
      [1, 6],
      [2, 4],
      [3, 2],
      [8, 3],
    ]);
    const topUp = product.Id !== LOAN.CreditBuilder && rng.chance(0.1);
    let approved = principal;
    let repayments = 0;
    let topUps = 0;

    schedule.add(issued, () => ledger.post(issued, TRANSACTION_TYPE.LoanAdvance.value, `${product.Description} advance`, false, principal));

    const dueDates: Date[] = [];
    for (let due = nextDue(issued, period); due <= this.asAt; due = nextDue(due, period)) dueDates.push(atTime(due, 6, 0));
    // Members in arrears have missed their most recent repayments.
    const missedFrom = dueDates.length - arrearsCount;
    dueDates.forEach((due, index) => {
      if (index >= missedFrom) return;
      schedule.add(due, () => {
        if (ledger.balance.isZero()) return;
        const amount = ledger.balance.compare(payment) < 0 ? ledger.balance : payment;
        ledger.post(due, TRANSACTION_TYPE.LoanRepayment.value, 'Loan repayment', true, amount);
        repayments++;
      });
    });

    // Interest is charged on the balance at each month end.
    for (let month = endOfMonth(issued); month <= this.asAt; month = endOfMonth(addDays(month, 1))) {
      const at = atTime(month, 23, 0);
      schedule.add(at, () => {
        if (ledger.balance.isZero()) return;
        const interest = ledger.balance.times(monthlyRate, 2);
        if (!interest.isZero()) ledger.post(at, TRANSACTION_TYPE.LoanInterest.value, 'Loan interest', false, interest);
      });
    }

    if (topUp && dueDates.length > 6) {
      const midpoint = dueDates[Math.floor(dueDates.length / 2)];
      if (midpoint) {
        const at = addDays(midpoint, 3);
        const extra = money(step * rng.int(4, 20));
        schedule.add(at, () => {
          if (ledger.balance.isZero()) return;
          ledger.post(at, TRANSACTION_TYPE.LoanAdvance.value, `${product.Description} top-up`, false, extra);
          approved = approved.plus(extra);
          topUps++;
        });
      }
    }

    schedule.runUntil(this.asAt);
    this.lines.push(...ledger.lines);
    const closed = ledger.balance.isZero();
    const missed = closed ? 0 : arrearsCount;
    const arrearsTotal = payment.times(missed, 2);
    const arrears = arrearsTotal.compare(ledger.balance) > 0 ? ledger.balance : arrearsTotal;
    const lastInterest = atTime(endOfMonth(addMonths(this.asAt, -1)), 23, 0);
    const accrualFrom = issued > lastInterest ? issued : lastInterest;
    const accrued = closed ? ZERO : ledger.balance.times(monthlyRate.times(12).times(daysBetween(accrualFrom, this.asAt)).dividedBy(365), 2);
    const status = closed ? ACCOUNT_STATUS.Closed.value : missed >= 6 ? ACCOUNT_STATUS.BadDebt.value : ACCOUNT_STATUS.Open.value;
    return this.newAccount(id, member, {
      productId: product.Id,
      productTypeId: PRODUCT_TYPE.Loan.value,
      balanceDate: iso(ledger.lastDate() ?? issued),
      accountNumber: `${member.customer.Number}-L${sequence}`,
      description: product.Description,
      code: product.Code,
      balance: ledger.balance,
      interest: accrued,
      unclearedAmount: ZERO,
      minimumShareBalance: ZERO,
      balanceLocked: ZERO,
      issueDate: iso(issued),
      approveAmountTotal: approved,
      lockedPercentage: ZERO,
      lockedAgainstNetShares: false,
      lockedLoanProductId: 0,
      status,
      loanArrears: arrears,
      loanTopUps: topUps,
      loanRepaymentsMade: repayments,
      paymentPeriodId: period,
      paymentPeriodNumber: 1,
      normalPayment: payment,
    });
  }

  /** Receipt numbers follow posting order across the core, as the real core issues them. */
  transactions(): Transaction[] {
    const ordered = this.lines.map((line, seq) => ({ line, seq })).sort((a, b) => a.line.at.getTime() - b.line.at.getTime() || a.seq - b.seq);
    return ordered.map(({ line }, i) => ({
      AccountId: line.accountId,
      ReceiptNumber: FIRST_RECEIPT_NUMBER + i,
      ValueDate: iso(line.at),
      Description: line.description,
      Credit: line.credit,
      Amount: line.amount,
      Balance: line.balance,
      IsFee: line.isFee,
      TransactionsTypeID: line.typeId,
    }));
  }
}
