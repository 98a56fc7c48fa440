/**
 * The sandbox core's receipt ledger: posts savings deposits and payments, reverses loan
 * issues and adjusts earlier receipts, on the sandbox data with exact decimal arithmetic.
 *
 * Reads and changes the data's accounts, transactions and receipts tables (receipts: what was
 * posted here, by account), and reads its supervisors, who may authorise overrides.
 * Every operation runs to the end synchronously, so two postings never interleave. A credit
 * above the product share's vendorConnectReceiptLimit, or one that takes the day's receipts on
 * the account above its vendorConnectDailyLimit, or one whose externalRefNo starts
 * SANDBOX-OVERRIDE, needs an override by a supervisor; the ledger
 * answers in domain terms (posted, override required, rejected, duplicate) and receipts.ts
 * turns that into the wire format.
 */
import { iso } from './calendar';
import type { SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { ACCOUNT_STATUS, PRODUCT_TYPE, TRANSACTION_TYPE, type Account, type Transaction } from './model';
import { LOAN_REVERSAL_OPTION, authorisingSupervisor, type CreditKind, type OverrideTypeName, type Supervisor } from './receipt-records';
import { OVERRIDE_REHEARSAL_PREFIX } from './rehearsals';

/** What a receipt asks of the ledger, already typed; absent fields are null. */
export interface CreditInstruction {
  readonly accountId: number | null;
  readonly accountNumber: string | null;
  readonly amount: ScaledDecimal | null;
  readonly externalRefNo: string | null;
  readonly overrideUserName: string | null;
  readonly overridePassword: string | null;
}

export interface ReversalInstruction extends CreditInstruction {
  /** The loan issue to reverse. */
  readonly receiptNo: number | null;
  readonly loanReversalOption: number | null;
}

/** A correction of an earlier receipt on the named account (AWReceiptType SavingsAdjustment, LoanAdjustment). */
export interface AdjustmentInstruction extends CreditInstruction {
  /** The receipt to correct. */
  readonly receiptNo: number | null;
  /** The side of the books it corrects: a savings or a loan receipt. */
  readonly books: 'savings' | 'loan';
}

export interface OverrideNeeded {
  readonly type: OverrideTypeName;
  readonly account: Account;
  readonly amount: ScaledDecimal;
  readonly limit: ScaledDecimal;
  readonly message: string;
}

export interface Posting {
  readonly receiptNo: number;
  readonly account: Account;
  readonly valueDate: string;
  readonly amount: ScaledDecimal;
  readonly openBalance: ScaledDecimal;
  readonly closingBalance: ScaledDecimal;
  /** A loan issue reversal: the advance and the interest charged since, both taken back. */
  readonly reversal?: { readonly issue: Transaction; readonly principal: ScaledDecimal; readonly interest: ScaledDecimal };
  /** An adjustment's line: a credit (it raised what a saver holds, or lowered what a borrower owes) or a debit. */
  readonly adjustment?: { readonly credit: boolean };
}

export type LedgerResult =
  | { readonly kind: 'posted'; readonly posting: Posting }
  | { readonly kind: 'override_required'; readonly override: OverrideNeeded }
  | { readonly kind: 'rejected'; readonly message: string }
  | { readonly kind: 'duplicate'; readonly receiptNo: number; readonly message: string };

const rejected = (message: string): LedgerResult => ({ kind: 'rejected', message });

/**
 * A receipt whose externalRefNo asks to rehearse an override (rehearsals.ts) needs a supervisor
 * whatever its amount, so a vendor can walk the 422 → authorise → 201 path with a small deposit.
 */
function rehearsedOverride(account: Account, amount: ScaledDecimal, externalRefNo: string | null): OverrideNeeded | null {
  if (externalRefNo === null || !externalRefNo.toUpperCase().startsWith(OVERRIDE_REHEARSAL_PREFIX)) return null;
  return {
    type: 'Rehearsal',
    account,
    amount,
    limit: ScaledDecimal.zero(),
    message: `Rehearsed override (externalRefNo ${externalRefNo}): a supervisor must authorise this receipt.`,
  };
}
const MONEY_SCALE = 2;

export class ReceiptLedger {
  constructor(
    private readonly data: SandboxData,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A savings deposit or payment: raises the balance of a share or savings account. */
  credit(kind: CreditKind, instruction: CreditInstruction): LedgerResult {
    const found = this.namedAccount(instruction);
    if (typeof found === 'string') return rejected(found);
    const account = found;
    const amount = moneyAmount(instruction.amount);
    if (typeof amount === 'string') return rejected(amount);
    if (account.productTypeId === PRODUCT_TYPE.Loan.value)
      return rejected(`account ${account.accountNumber} is a loan account; deposits go to share or savings accounts`);
    if (account.productTypeId === PRODUCT_TYPE.TermDeposit.value)
      return rejected(`account ${account.accountNumber} is a fixed-term bond, which takes no deposits after it opens`);
    if (account.status === ACCOUNT_STATUS.Closed.value) return rejected(`account ${account.accountNumber} is closed`);
    // A repeat is told as a repeat (409) before any rule its first posting changed the outcome of.
    const duplicate = this.duplicateOf(account, instruction.externalRefNo);
    if (duplicate) return duplicate;
    const product = this.data.productShares.get(account.productId);
    if (!product) return rejected(`account ${account.accountNumber} has no product share ${account.productId}`);
    // Compared as headroom rather than as a sum, so that no amount can overflow the balance.
    if (amount.compare(product.MaximumBalance.minus(account.balance)) > 0) {
      return rejected(
        `a deposit of ${amount.toString()} would take account ${account.accountNumber} above its maximum balance of ${product.MaximumBalance.toString()}`,
      );
    }

    const valueDate = iso(this.now());
    const needed =
      rehearsedOverride(account, amount, instruction.externalRefNo) ??
      this.overrideNeeded(account, amount, product.vendorConnectReceiptLimit, product.vendorConnectDailyLimit, valueDate);
    let authorisedBy: string | null = null;
    if (needed) {
      const supervisor = this.supervisorFor(instruction);
      if (!supervisor) {
        const refused = instruction.overrideUserName !== null ? ' The override user name or password was not accepted.' : '';
        return { kind: 'override_required', override: { ...needed, message: `${needed.message}${refused}` } };
      }
      authorisedBy = supervisor.userName;
    }

    const openBalance = account.balance;
    const closingBalance = openBalance.plus(amount);
    const description = kind === 'deposit' ? 'Savings deposit' : 'Savings payment';
    const receiptNo = this.appendLine(
      account,
      valueDate,
      `${description}${instruction.externalRefNo ? ` ref ${instruction.externalRefNo}` : ''}`,
      amount,
      closingBalance,
    );
    account.balance = closingBalance;
    account.balanceDate = valueDate;
    // A member paying in is activity: a dormant account wakes up.
    if (account.status === ACCOUNT_STATUS.Dormant.value) account.status = ACCOUNT_STATUS.Open.value;
    this.data.receipts.insert({
      receiptNo,
      accountId: account.id,
      kind,
      amount,
      valueDate,
      externalRefNo: instruction.externalRefNo,
      reverses: null,
      adjusts: null,
      authorisedBy,
    });
    return { kind: 'posted', posting: { receiptNo, account, valueDate, amount, openBalance, closingBalance } };
  }

  /**
   * Reverses a loan issue: the loan's first advance, on a loan with nothing but interest
   * charged since. The advance and that interest are credited back in one line, so the loan
   * owes nothing; its status follows loanReversalOption.
   */
  reverseLoanIssue(instruction: ReversalInstruction): LedgerResult {
    const { receiptNo, loanReversalOption } = instruction;
    if (receiptNo === null) return rejected('receiptNo (the receipt of the loan issue to reverse) is required');
    const option = Object.values(LOAN_REVERSAL_OPTION).find((o) => o.value === loanReversalOption);
    if (!option) {
      const known = Object.entries(LOAN_REVERSAL_OPTION)
        .map(([name, o]) => `${o.value} (${name})`)
        .join(', ');
      return rejected(
        loanReversalOption === null ? `loanReversalOption is required: ${known}` : `loanReversalOption ${loanReversalOption} is not one of ${known}`,
      );
    }
    const found = this.namedAccount(instruction);
    if (typeof found === 'string') return rejected(found);
    const issue = this.data.transactions.get(receiptNo);
    if (!issue) return rejected(`no receipt ${receiptNo}`);
    if (issue.AccountId !== found.id) return rejected(`receipt ${receiptNo} was not posted on account ${found.accountNumber}`);
    const loan = found;
    const history = this.data.transactions.where('account', loan.id).sort((a, b) => a.ReceiptNumber - b.ReceiptNumber);
    const firstAdvance = history.find((t) => t.TransactionsTypeID === TRANSACTION_TYPE.LoanAdvance.value && !t.Credit);
    if (loan.productTypeId !== PRODUCT_TYPE.Loan.value || firstAdvance?.ReceiptNumber !== receiptNo) {
      return rejected(`receipt ${receiptNo} is not a loan issue`);
    }
    const earlier = this.data.receipts.where('account', loan.id).find((r) => r.reverses === receiptNo);
    if (earlier) return rejected(`the loan issue of receipt ${receiptNo} was already reversed by receipt ${earlier.receiptNo}`);
    const since = history.filter((t) => t.ReceiptNumber > receiptNo);
    if (since.some((t) => t.TransactionsTypeID !== TRANSACTION_TYPE.LoanInterest.value)) {
      return rejected(`loan ${loan.accountNumber} has repayments or top-ups after its issue; a loan issue can be reversed only before them`);
    }
    if (instruction.amount !== null && instruction.amount.compare(issue.Amount) !== 0) {
      return rejected(`amount ${instruction.amount.toString()} does not match the issued amount ${issue.Amount.toString()} of receipt ${receiptNo}`);
    }
    const duplicate = this.duplicateOf(loan, instruction.externalRefNo);
    if (duplicate) return duplicate;

    const interest = since.reduce((sum, t) => sum.plus(t.Amount), ScaledDecimal.zero(MONEY_SCALE));
    const amount = issue.Amount.plus(interest);
    const openBalance = loan.balance;
    // On a loan the balance is what the member owes: a credit reduces it.
    const closingBalance = openBalance.minus(amount);
    const valueDate = iso(this.now());
    const interestNote = interest.isZero() ? '' : `, with ${interest.toString()} interest`;
    const reversalNo = this.appendLine(
      loan,
      valueDate,
      `Loan issue reversal (receipt ${receiptNo}${interestNote})`,
      amount,
      closingBalance,
      TRANSACTION_TYPE.LoanAdvance.value,
    );
    loan.balance = closingBalance;
    loan.balanceDate = valueDate;
    loan.interest = ScaledDecimal.zero(MONEY_SCALE);
    loan.loanArrears = ScaledDecimal.zero(MONEY_SCALE);
    if (option === LOAN_REVERSAL_OPTION.CancelApplication) {
      loan.status = ACCOUNT_STATUS.Closed.value;
      loan.approveAmountTotal = ScaledDecimal.zero(MONEY_SCALE);
    } else {
      loan.status = ACCOUNT_STATUS.Approved.value;
    }
    this.data.receipts.insert({
      receiptNo: reversalNo,
      accountId: loan.id,
      kind: 'reversal',
      amount,
      valueDate,
      externalRefNo: instruction.externalRefNo,
      reverses: receiptNo,
      adjusts: null,
      authorisedBy: null,
    });
    return {
      kind: 'posted',
      posting: { receiptNo: reversalNo, account: loan, valueDate, amount, openBalance, closingBalance, reversal: { issue, principal: issue.Amount, interest } },
    };
  }

  /**
   * Corrects an earlier receipt on the account by a signed amount in the receipt's own direction
   * (+10.00 on a deposit: 10.00 more was paid in), or, with no amount, takes the receipt back
   * whole. The receipt, with the corrections before this one, never stands below zero; a savings
   * balance never goes below zero or above the product's maximum, and a loan never owes less
   * than nothing. Posted as a line of the receipt's own transaction type.
   */
  adjust(instruction: AdjustmentInstruction): LedgerResult {
    const { receiptNo, books } = instruction;
    if (receiptNo === null) return rejected('receiptNo (the receipt to correct) is required for an adjustment');
    const found = this.namedAccount(instruction);
    if (typeof found === 'string') return rejected(found);
    const account = found;
    const isLoan = account.productTypeId === PRODUCT_TYPE.Loan.value;
    if (isLoan !== (books === 'loan')) {
      return rejected(
        `a ${books === 'loan' ? 'LoanAdjustment' : 'SavingsAdjustment'} corrects a ${books} receipt, and account ${account.accountNumber} is ${isLoan ? 'a loan' : 'not a loan'}`,
      );
    }
    if (account.status === ACCOUNT_STATUS.Closed.value) return rejected(`account ${account.accountNumber} is closed`);
    const receipt = this.data.transactions.get(receiptNo);
    if (!receipt) return rejected(`no receipt ${receiptNo}`);
    if (receipt.AccountId !== account.id) return rejected(`receipt ${receiptNo} was not posted on account ${account.accountNumber}`);
    const standing = this.data.receipts
      .where('account', account.id)
      .filter((r) => r.kind === 'adjustment' && r.adjusts === receiptNo)
      .reduce((sum, r) => sum.plus(r.amount), ScaledDecimal.of(receipt.Amount.value, MONEY_SCALE));
    const correction = instruction.amount === null ? ScaledDecimal.zero(MONEY_SCALE).minus(standing) : signedMoney(instruction.amount);
    if (typeof correction === 'string') return rejected(correction);
    if (correction.isZero()) return rejected(`receipt ${receiptNo} stands at ${standing.toString()}; an adjustment must change it`);
    if (standing.plus(correction).value.isNegative()) {
      return rejected(`an adjustment of ${correction.toString()} would take receipt ${receiptNo} below zero (it stands at ${standing.toString()})`);
    }
    const duplicate = this.duplicateOf(account, instruction.externalRefNo);
    if (duplicate) return duplicate;

    // A savings balance is what the member holds, a loan's what they owe: a credit raises the one and lowers the other.
    const raisesBalance = receipt.Credit !== isLoan;
    const openBalance = account.balance;
    const closingBalance = raisesBalance ? openBalance.plus(correction) : openBalance.minus(correction);
    if (closingBalance.value.isNegative()) {
      return rejected(
        isLoan
          ? `an adjustment of ${correction.toString()} would leave loan ${account.accountNumber} owing less than nothing`
          : `an adjustment of ${correction.toString()} would take account ${account.accountNumber} below zero`,
      );
    }
    const product = isLoan ? undefined : this.data.productShares.get(account.productId);
    if (product && closingBalance.compare(product.MaximumBalance) > 0) {
      return rejected(
        `an adjustment of ${correction.toString()} would take account ${account.accountNumber} above its maximum balance of ${product.MaximumBalance.toString()}`,
      );
    }
    const valueDate = iso(this.now());
    // A credit raises what a saver holds and lowers what a borrower owes.
    const balanceRose = raisesBalance !== correction.value.isNegative();
    const credit = balanceRose !== isLoan;
    const line = this.appendLine(
      account,
      valueDate,
      `Adjustment of receipt ${receiptNo}${instruction.externalRefNo ? ` ref ${instruction.externalRefNo}` : ''}`,
      correction.abs(),
      closingBalance,
      receipt.TransactionsTypeID,
      credit,
    );
    account.balance = closingBalance;
    account.balanceDate = valueDate;
    this.data.receipts.insert({
      receiptNo: line,
      accountId: account.id,
      kind: 'adjustment',
      amount: correction,
      valueDate,
      externalRefNo: instruction.externalRefNo,
      reverses: null,
      adjusts: receiptNo,
      authorisedBy: null,
    });
    return { kind: 'posted', posting: { receiptNo: line, account, valueDate, amount: correction, openBalance, closingBalance, adjustment: { credit } } };
  }

  /** The account the receipt names by cuAccountID, accountNumber or both; a message when it names none. */
  private namedAccount(instruction: CreditInstruction): Account | string {
    const { accountId, accountNumber } = instruction;
    if (accountId === null && accountNumber === null) return 'cuAccountID or accountNumber is required';
    const byId = accountId === null ? undefined : this.data.accounts.get(accountId);
    if (accountId !== null && !byId) return `no account with cuAccountID ${accountId}`;
    const byNumber = accountNumber === null ? undefined : this.data.accounts.list().find((a) => a.accountNumber === accountNumber);
    if (accountNumber !== null && !byNumber) return `no account with accountNumber ${accountNumber}`;
    if (byId && byNumber && byId !== byNumber) return `cuAccountID ${accountId} and accountNumber ${accountNumber} name different accounts`;
    return (byId ?? byNumber) as Account;
  }

  private duplicateOf(account: Account, externalRefNo: string | null): LedgerResult | null {
    if (externalRefNo === null) return null;
    const earlier = this.data.receipts.where('account', account.id).find((r) => r.externalRefNo === externalRefNo);
    if (!earlier) return null;
    return {
      kind: 'duplicate',
      receiptNo: earlier.receiptNo,
      message: `externalRefNo ${externalRefNo} was already posted on account ${account.accountNumber} as receipt ${earlier.receiptNo}`,
    };
  }

  private overrideNeeded(
    account: Account,
    amount: ScaledDecimal,
    receiptLimit: ScaledDecimal,
    dailyLimit: ScaledDecimal,
    valueDate: string,
  ): OverrideNeeded | null {
    if (amount.compare(receiptLimit) > 0) {
      return {
        type: 'ReceiptLimit',
        account,
        amount,
        limit: receiptLimit,
        message: `The amount ${amount.toString()} is above the receipt limit of ${receiptLimit.toString()} for ${account.description}; a supervisor must authorise it.`,
      };
    }
    const day = valueDate.slice(0, 10);
    const today = this.data.receipts
      .where('account', account.id)
      .filter((r) => (r.kind === 'deposit' || r.kind === 'payment') && r.valueDate.startsWith(day))
      .reduce((sum, r) => sum.plus(r.amount), amount);
    if (today.compare(dailyLimit) > 0) {
      return {
        type: 'DailyLimit',
        account,
        amount,
        limit: dailyLimit,
        message: `Today's receipts on account ${account.accountNumber} would total ${today.toString()}, above the daily limit of ${dailyLimit.toString()}; a supervisor must authorise it.`,
      };
    }
    return null;
  }

  private supervisorFor(instruction: CreditInstruction): Supervisor | null {
    const { overrideUserName, overridePassword } = instruction;
    if (overrideUserName === null || overridePassword === null) return null;
    return authorisingSupervisor(this.data.supervisors, overrideUserName, overridePassword);
  }

  /** Appends one line (a credit unless told) with the core's next receipt number, which it returns. */
  private appendLine(
    account: Account,
    valueDate: string,
    description: string,
    amount: ScaledDecimal,
    balance: ScaledDecimal,
    typeId: number = TRANSACTION_TYPE.CashDeposit.value,
    credit = true,
  ): number {
    const receiptNo = this.data.transactions.nextKey();
    this.data.transactions.insert({
      AccountId: account.id,
      ReceiptNumber: receiptNo,
      ValueDate: valueDate,
      Description: description,
      Credit: credit,
      Amount: amount,
      Balance: balance,
      IsFee: false,
      TransactionsTypeID: typeId,
    });
    return receiptNo;
  }
}

/** An amount of either sign in pounds and pence, at scale 2; a message otherwise. */
function signedMoney(amount: ScaledDecimal): ScaledDecimal | string {
  if (amount.value.decimalPlaces() > MONEY_SCALE) return `amount ${amount.toString()} has more than ${MONEY_SCALE} decimal places`;
  return ScaledDecimal.of(amount.value, MONEY_SCALE);
}

/** A positive amount in pounds and pence, at scale 2; a message otherwise. */
function moneyAmount(amount: ScaledDecimal | null): ScaledDecimal | string {
  if (amount === null) return 'amount is required';
  if (amount.value.isNegative() || amount.isZero()) return `amount must be positive, not ${amount.toString()}`;
  return signedMoney(amount);
}
