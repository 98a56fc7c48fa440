/**
 * The sandbox core's three receipt operations: POST api/transaction/savings/deposit
 * (ReceiptPaymentDto), api/transaction/savings/payment (ReceiptSavingsDepositWebDto; with a
 * ReceiptType of SavingsAdjustment or LoanAdjustment, a correction of the receipt ReceiptNo
 * names) and api/transaction/loan/reversal (ReceiptReversalWebDto).
 *
 * Reads the canonical JSON the gateway sends (camelCase names, matched case-insensitively as
 * the .NET core does; decimals kept exact) and posts through the ledger. Answers with the
 * receipt it was sent, completed by the core: 201 posted (receiptNo of the new receipt, and
 * balance lines where the DTO has them), 422 override required (hasOverride true and one
 * TransactionOverrideDto), 400 invalid input (errorMessage), 409 an externalRefNo already
 * posted on the account (errorMessage). A body that is not a JSON object is a problem+json
 * 415/400, as on every sandbox route. overridePassword and tempToken are never echoed.
 */
import type { SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { sendJson, type Handler } from './handler';
import { JsonNumber, type JsonObject, type JsonValue } from './json';
import {
  ReceiptLedger,
  type AdjustmentInstruction,
  type CreditInstruction,
  type LedgerResult,
  type OverrideNeeded,
  type Posting,
  type ReversalInstruction,
} from './ledger';
import { ACCOUNT_STATUS, PRODUCT_TYPE } from './model';
import { ADJUSTMENT_RECEIPT_TYPE, OVERRIDE_TYPE, type CreditKind } from './receipt-records';
import { invalid } from './problems';
import { readJsonObject } from './validation';

/** ISO 4217 numeric code of the pound: every sandbox account is in GBP. */
const GBP = 826;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Read-only fields the core writes (a client's values are dropped) and secrets it never echoes; lower-case. */
const NOT_ECHOED = new Set(['hasoverride', 'transactionoverrides', 'errormessage', 'fingerprinturl', 'overridepassword', 'temptoken']);

type Fields = Record<string, unknown>;

export function receiptHandlers(data: SandboxData, now?: () => Date): Map<string, Handler> {
  const ledger = new ReceiptLedger(data, now);
  // Overrides are answers, not records: their ids need only be distinct within this core.
  let lastOverrideId = 0;
  const answer = (result: LedgerResult, postedFields: (posting: Posting) => Fields): [number, Fields] =>
    answerFor(result, postedFields, () => ++lastOverrideId);
  const credit =
    (kind: CreditKind): Handler =>
    ({ req, res }) => {
      const body = new ReceiptBody(readJsonObject(req));
      const instruction = creditInstruction(body);
      // ReceiptPaymentDto has no receiptType: only a payment can be an adjustment.
      const books = kind === 'payment' ? adjustedBooks(body.int('receiptType')) : null;
      if (books) {
        const adjustment: AdjustmentInstruction = { ...instruction, receiptNo: body.int('receiptNo'), books };
        const result = body.problems.length > 0 ? rejected(body.problems) : ledger.adjust(adjustment);
        const [status, fields] = answer(result, adjustmentFields);
        sendJson(res, status, body.echo(fields));
        return;
      }
      const result = body.problems.length > 0 ? rejected(body.problems) : ledger.credit(kind, instruction);
      const [status, fields] = answer(result, kind === 'deposit' ? paymentDtoFields : savingsDepositFields);
      sendJson(res, status, body.echo(fields));
    };
  return new Map<string, Handler>([
    ['POSTapi/transaction/savings/deposit', credit('deposit')],
    ['POSTapi/transaction/savings/payment', credit('payment')],
    [
      'POSTapi/transaction/loan/reversal',
      ({ req, res }) => {
        const body = new ReceiptBody(readJsonObject(req));
        const instruction: ReversalInstruction = {
          ...creditInstruction(body),
          receiptNo: body.int('receiptNo'),
          loanReversalOption: body.int('loanReversalOption'),
        };
        const result = body.problems.length > 0 ? rejected(body.problems) : ledger.reverseLoanIssue(instruction);
        const [status, fields] = answer(result, reversalFields);
        sendJson(res, status, body.echo(fields));
      },
    ],
  ]);
}

function creditInstruction(body: ReceiptBody): CreditInstruction {
  return {
    accountId: body.int('cuAccountID'),
    accountNumber: body.string('accountNumber'),
    amount: body.decimal('amount'),
    externalRefNo: body.string('externalRefNo'),
    overrideUserName: body.string('overrideUserName'),
    overridePassword: body.string('overridePassword'),
  };
}

/** Which books a receipt of this AWReceiptType corrects, or null when it is not an adjustment. */
function adjustedBooks(receiptType: number | null): AdjustmentInstruction['books'] | null {
  if (receiptType === ADJUSTMENT_RECEIPT_TYPE.SavingsAdjustment.value) return 'savings';
  if (receiptType === ADJUSTMENT_RECEIPT_TYPE.LoanAdjustment.value) return 'loan';
  return null;
}

const rejected = (problems: readonly string[]): LedgerResult => ({ kind: 'rejected', message: problems.join('; ') });

/** The status and the fields the core fills in, for each outcome. */
function answerFor(result: LedgerResult, postedFields: (posting: Posting) => Fields, overrideId: () => number): [number, Fields] {
  switch (result.kind) {
    case 'posted':
      return [201, { receiptNo: result.posting.receiptNo, hasOverride: false, transactionOverrides: [], ...postedFields(result.posting) }];
    case 'override_required':
      return [422, { hasOverride: true, transactionOverrides: [transactionOverride(result.override, overrideId())] }];
    case 'rejected':
      return [400, { hasOverride: false, transactionOverrides: [], errorMessage: result.message }];
    case 'duplicate':
      return [409, { hasOverride: false, transactionOverrides: [], errorMessage: result.message }];
  }
}

function transactionOverride(needed: OverrideNeeded, id: number): Fields {
  const type = OVERRIDE_TYPE[needed.type];
  return {
    cuTransactionOverrideID: id,
    receiptNo: 0,
    cuAccountID: needed.account.id,
    overrideType: type.value,
    userId: 0,
    terminalID: 0,
    currencyID: GBP,
    splitHeaderID: 0,
    accountInfo: `${needed.account.accountNumber} ${needed.account.description}`,
    description: `Override needed: ${type.meaning}`,
    message: needed.message,
    overrideTypeText: needed.type,
    userName: null,
    terminalName: null,
    password: null,
    amount: needed.amount,
    checked: false,
    authorised: false,
  };
}

/** ReceiptLineDto: one account's movement on the receipt (a credit, or a debit given apart). */
function receiptLine(
  name: string,
  id: string,
  openBalance: ScaledDecimal,
  credit: ScaledDecimal,
  closingBalance: ScaledDecimal,
  debit = ScaledDecimal.zero(credit.scale),
): Fields {
  return {
    name,
    openBalance,
    debitAmount: debit,
    creditAmount: credit,
    amountPaid: credit.minus(debit),
    closingBalance,
    canEditAmount: false,
    id,
  };
}

/** ReceiptPaymentDto has no balance lines: the receipt number is the answer. */
const paymentDtoFields = (): Fields => ({});

function savingsDepositFields({ account, amount, openBalance, closingBalance, valueDate }: Posting): Fields {
  const line = receiptLine(account.description, String(account.id), openBalance, amount, closingBalance);
  const statusName = Object.entries(ACCOUNT_STATUS).find(([, s]) => s.value === account.status)?.[0];
  return {
    principal: line,
    accounts: [line],
    totals: line,
    status: statusName,
    balanceDate: valueDate,
    clearedFunds: closingBalance.minus(account.unclearedAmount).toString(),
    isLoanAccount: false,
    fingerPrintURL: null,
  };
}

/** An adjustment's receipt: its one line a credit or a debit, as it moved the account's balance. */
function adjustmentFields(posting: Posting): Fields {
  const { account, amount, openBalance, closingBalance, adjustment } = posting;
  const size = amount.abs();
  const zero = ScaledDecimal.zero(size.scale);
  const credited = adjustment?.credit ?? true;
  const line = receiptLine(account.description, String(account.id), openBalance, credited ? size : zero, closingBalance, credited ? zero : size);
  return {
    ...savingsDepositFields(posting),
    principal: line,
    accounts: [line],
    totals: line,
    isLoanAccount: account.productTypeId === PRODUCT_TYPE.Loan.value,
  };
}

function reversalFields({ account, amount, openBalance, closingBalance, valueDate, reversal }: Posting): Fields {
  const principal = reversal?.principal ?? amount;
  const interest = reversal?.interest ?? ScaledDecimal.zero();
  const principalLine = receiptLine(account.description, String(account.id), openBalance, principal, openBalance.minus(principal));
  return {
    principal: principalLine,
    interest: receiptLine('Loan interest', String(account.id), interest, interest, ScaledDecimal.zero(interest.scale)),
    accounts: [principalLine],
    totals: receiptLine(account.description, String(account.id), openBalance, amount, closingBalance),
    balanceDate: valueDate,
    isLoanAccount: true,
    isLoanIssueReversal: true,
    customerID: account.customerId,
    productID: account.productId,
    fingerPrintURL: null,
  };
}

/** The receipt as sent: fields read by name regardless of case, and echoed back with the core's fields. */
class ReceiptBody {
  /** Type errors found while reading, one message per field. */
  readonly problems: string[] = [];
  private readonly nameByLowerCase = new Map<string, string>();
  /** The sent fields as the JSON writer takes them, converted before anything is posted. */
  private readonly echoable: Fields = Object.create(null) as Fields;

  constructor(private readonly sent: JsonObject) {
    for (const [name, value] of Object.entries(sent)) {
      this.nameByLowerCase.set(name.toLowerCase(), name);
      this.echoable[name] = echoValue(value, name);
    }
  }

  int(name: string): number | null {
    const raw = this.raw(name);
    if (raw === null) return null;
    const n = raw instanceof JsonNumber && /^-?\d+$/.test(raw.text) ? Number(raw.text) : NaN;
    if (Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX) return n;
    return this.problem(name, 'must be a 32-bit integer');
  }

  string(name: string): string | null {
    const raw = this.raw(name);
    if (raw === null || typeof raw === 'string') return raw;
    return this.problem(name, 'must be a string');
  }

  decimal(name: string): ScaledDecimal | null {
    const raw = this.raw(name);
    if (raw === null) return null;
    if (!(raw instanceof JsonNumber)) return this.problem(name, 'must be a decimal number');
    try {
      return ScaledDecimal.parse(raw.text);
    } catch (error) {
      return this.problem(name, (error as Error).message);
    }
  }

  /** The sent receipt with the core's fields set (under their canonical names) and the never-echoed ones left out. */
  echo(fields: Fields): Fields {
    const replaced = new Set(Object.keys(fields).map((name) => name.toLowerCase()));
    const out = Object.create(null) as Fields;
    for (const [name, value] of Object.entries(this.echoable)) {
      const lower = name.toLowerCase();
      if (!NOT_ECHOED.has(lower) && !replaced.has(lower)) out[name] = value;
    }
    return Object.assign(out, fields);
  }

  /** Absent and null read alike: the field was not given. */
  private raw(name: string): JsonValue {
    const sentName = this.nameByLowerCase.get(name.toLowerCase());
    return sentName === undefined ? null : (this.sent[sentName] ?? null);
  }

  private problem(name: string, message: string): null {
    this.problems.push(`${name} ${message}`);
    return null;
  }
}

/**
 * A sent value as the JSON writer takes it: numbers as exact decimals, objects without a
 * prototype to pollute. A number no .NET decimal could hold is a 400 problem.
 */
function echoValue(value: JsonValue, path: string): unknown {
  if (value instanceof JsonNumber) {
    try {
      return ScaledDecimal.parse(value.text);
    } catch (error) {
      throw invalid([{ field: path, message: `a number the core cannot hold: ${(error as Error).message}` }]);
    }
  }
  if (Array.isArray(value)) return value.map((item, i) => echoValue(item, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    const out = Object.create(null) as Fields;
    for (const [name, item] of Object.entries(value)) out[name] = echoValue(item, `${path}.${name}`);
    return out;
  }
  return value;
}
