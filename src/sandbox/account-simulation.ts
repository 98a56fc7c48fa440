/**
 * The parts of an account's simulated history: its running balance and staged transaction
 * lines, a schedule that runs events in date order, and the loan arithmetic (repayment
 * instalments, due dates, shares pledged against a loan).
 *
 * Pure: works on the values and accounts it is given.
 */
import Decimal from 'decimal.js';
import { addDays, addMonths } from './calendar';
import { ScaledDecimal } from './decimal';
import { ACCOUNT_STATUS, type Account } from './model';
import { LOAN, PERIOD, ZERO, fraction, rate } from './products';

/** A staged transaction line: receipt numbers are given once every account's history is known. */
export interface PostedLine {
  readonly accountId: number;
  readonly at: Date;
  readonly description: string;
  readonly credit: boolean;
  readonly amount: ScaledDecimal;
  readonly balance: ScaledDecimal;
  readonly isFee: boolean;
  readonly typeId: number;
}

/**
 * One account's running balance. On savings a credit adds to the balance; on a loan the
 * balance is what the member owes, so a credit (a repayment) reduces it.
 */
export class AccountLedger {
  balance = ZERO;
  readonly lines: PostedLine[] = [];

  constructor(
    private readonly accountId: number,
    private readonly isLoan: boolean,
  ) {}

  post(at: Date, typeId: number, description: string, credit: boolean, amount: ScaledDecimal, isFee = false): void {
    const increases = credit !== this.isLoan;
    this.balance = increases ? this.balance.plus(amount) : this.balance.minus(amount);
    this.lines.push({ accountId: this.accountId, at, description, credit, amount, balance: this.balance, isFee, typeId });
  }

  lastDate(): Date | undefined {
    return this.lines[this.lines.length - 1]?.at;
  }
}

/** Things that happen to an account, run in date order so that each sees the balance so far. */
export class Schedule {
  private readonly events: Array<{ at: Date; seq: number; run: () => void }> = [];

  add(at: Date, run: () => void): void {
    this.events.push({ at, seq: this.events.length, run });
  }

  runUntil(end: Date): void {
    this.events.sort((a, b) => a.at.getTime() - b.at.getTime() || a.seq - b.seq);
    for (const event of this.events) if (event.at.getTime() <= end.getTime()) event.run();
  }
}

/** Shares locked against an ordinary loan, as a percentage of the loan balance. */
const SHARE_PLEDGE_PERCENTAGE = rate('10.00');

/**
 * Shares pledged against the member's largest open loan: all of the loan for a share-secured
 * loan, otherwise SHARE_PLEDGE_PERCENTAGE of it, never more than the shares hold.
 */
export function pledgeSavings(shareAccount: Account, loanAccounts: readonly Account[]): void {
  const largest = loanAccounts.filter((a) => a.status !== ACCOUNT_STATUS.Closed.value).sort((a, b) => b.balance.compare(a.balance))[0];
  if (!largest || shareAccount.status === ACCOUNT_STATUS.Closed.value) return;
  const secured = largest.productId === LOAN.ShareSecured;
  const percentage = secured ? rate('100.00') : SHARE_PLEDGE_PERCENTAGE;
  const pledged = largest.balance.times(fraction(percentage), 2);
  shareAccount.balanceLocked = pledged.compare(shareAccount.balance) > 0 ? shareAccount.balance : pledged;
  shareAccount.lockedPercentage = percentage;
  shareAccount.lockedAgainstNetShares = !secured;
  shareAccount.lockedLoanProductId = largest.productId;
}

export function nextDue(date: Date, period: number): Date {
  if (period === PERIOD.Weekly) return addDays(date, 7);
  if (period === PERIOD.Fortnightly) return addDays(date, 14);
  return addMonths(date, 1);
}

/**
 * The instalment that repays `principal` over `termMonths` at `monthlyRate` (annuity formula),
 * scaled to the payment period and rounded up to whole pounds, as credit unions quote it.
 */
export function repayment(principal: ScaledDecimal, monthlyRate: Decimal, termMonths: number, period: number): ScaledDecimal {
  const growth = monthlyRate.plus(1).pow(-termMonths);
  const monthly = principal.value.times(monthlyRate).dividedBy(growth.negated().plus(1));
  const perPeriod = period === PERIOD.Weekly ? monthly.times(12).dividedBy(52) : period === PERIOD.Fortnightly ? monthly.times(12).dividedBy(26) : monthly;
  return ScaledDecimal.of(perPeriod.toDecimalPlaces(0, Decimal.ROUND_UP), 2);
}
