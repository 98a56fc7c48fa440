/**
 * The sandbox core's data model: the record types derived from the spec's resource fields
 * (src/contracts/resource-fields.ts, re-exported here), the fields the sandbox adds to the
 * spec's, and the code tables (account status, product type, ...) whose values the spec
 * leaves unstated.
 *
 * Reads nothing. The field schemas are the single source for the record types, for request
 * body validation and for type-aware sorting, and for the gateway's OpenAPI document.
 */
import type {
  ACCOUNT_FIELDS,
  ADDRESS_FIELDS,
  BANK_FIELDS,
  BANK_ACCOUNT_FIELDS,
  BRANCH_FIELDS,
  COUNTRY_CODE_FIELDS,
  CUSTOMER_FIELDS,
  EMPLOYER_FIELDS,
  VALUE_NAME_FIELDS,
  LOAN_PRODUCT_FIELDS,
  LOAN_REASON_FIELDS,
  MESSAGE_FIELDS,
  MESSAGE_THREAD_FIELDS,
  PERSON_FIELDS,
  PRODUCT_SHARE_FIELDS,
  TRANSACTION_FIELDS,
  MARKETING_PREFERENCES_FIELDS,
  TOTAL_PLEDGED_SAVINGS_FIELDS,
  STATEMENT_ACCOUNT_FIELDS,
  BATCH_STATEMENT_FIELDS,
  FieldSchema,
} from '../contracts/resource-fields';
import type { ScaledDecimal } from './decimal';

export * from '../contracts/resource-fields';

type ValueOfType<T extends string> = T extends 'decimal' ? ScaledDecimal : T extends 'string' | 'datetime' ? string : T extends 'bool' ? boolean : number;
type ValueOfSpec<S extends string> = S extends `${infer T}?` ? ValueOfType<T> : S extends `${infer T}|null` ? ValueOfType<T> | null : ValueOfType<S>;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The record a schema describes: optional fields are optional properties. */
export type RecordOf<F extends FieldSchema> = Flatten<
  { -readonly [K in keyof F as F[K] extends `${string}?` ? never : K]: ValueOfSpec<F[K]> } & {
    -readonly [K in keyof F as F[K] extends `${string}?` ? K : never]?: ValueOfSpec<F[K]>;
  }
>;

/** The same record with its properties in schema order, so JSON lists fields as the spec does. */
export function inSchemaOrder<R extends object>(schema: FieldSchema, row: R): R {
  const out: Record<string, unknown> = {};
  const source = row as Record<string, unknown>;
  for (const name of Object.keys(schema)) if (source[name] !== undefined) out[name] = source[name];
  return out as R;
}

export type Account = RecordOf<typeof ACCOUNT_FIELDS>;
export type Address = RecordOf<typeof ADDRESS_FIELDS>;
export type Bank = RecordOf<typeof BANK_FIELDS>;
export type BankAccount = RecordOf<typeof BANK_ACCOUNT_FIELDS>;
export type Branch = RecordOf<typeof BRANCH_FIELDS>;
export type CountryCode = RecordOf<typeof COUNTRY_CODE_FIELDS>;
export type Customer = RecordOf<typeof CUSTOMER_FIELDS>;
export type Employer = RecordOf<typeof EMPLOYER_FIELDS>;
export type ValueName = RecordOf<typeof VALUE_NAME_FIELDS>;
export type LoanProduct = RecordOf<typeof LOAN_PRODUCT_FIELDS>;
export type LoanReason = RecordOf<typeof LOAN_REASON_FIELDS>;
export type Message = RecordOf<typeof MESSAGE_FIELDS>;
export type MessageThread = RecordOf<typeof MESSAGE_THREAD_FIELDS>;
export type Person = RecordOf<typeof PERSON_FIELDS>;
export type ProductShare = RecordOf<typeof PRODUCT_SHARE_FIELDS>;
export type Transaction = RecordOf<typeof TRANSACTION_FIELDS>;
export type MarketingPreferences = RecordOf<typeof MARKETING_PREFERENCES_FIELDS>;
export type TotalPledgedSavings = RecordOf<typeof TOTAL_PLEDGED_SAVINGS_FIELDS>;
export type StatementAccount = RecordOf<typeof STATEMENT_ACCOUNT_FIELDS> & { Transactions: Transaction[] };
/** The batch statement: every account with activity in the period, and every open account. */
export type BatchStatement = RecordOf<typeof BATCH_STATEMENT_FIELDS> & { Accounts: StatementAccount[] };

/**
 * Fields the sandbox adds to the spec's, per resource, with the reason for each. The spec
 * gives these resources no id field, yet addresses them by id (GET/PUT/DELETE `R/{id}`), or
 * leaves a link out that a vendor needs to read the data.
 */
export const SANDBOX_ADDED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  bankaccounts: { Id: 'the bank account id of GET /bankaccounts/{id} and PUT /bankaccounts/{bankaccountid}' },
  branches: { Id: 'the {branchId} of /branches/{branchId}; customers.BranchId refers to it' },
  countrycodes: { Id: 'the {countryCodesId} of /countrycodes/{countryCodesId}; addresses.countryId refers to it' },
  loanproducts: { Id: "the {id} of /loanproducts/{id}; loan accounts' productId refers to it" },
  loanreasons: { Id: 'the {id} of /loanreasons/{id}' },
  messages: { Id: 'the {id} of /messages/{id}' },
  messagethread: { Id: 'the {id} of /messagethread/{id}; messages.MessageThreadId refers to it' },
  people: { MemberId: 'the {memberId} of /people/{memberId}: the Number of the customer the person belongs to' },
  transactions: { AccountId: "the account the transaction was posted to (a member's transactions span accounts)" },
};

/** A code table: the meaning of each value of an int field whose values the spec does not list. */
export type CodeTable = Readonly<Record<string, { readonly value: number; readonly meaning: string }>>;

/** accounts.status */
export const ACCOUNT_STATUS = {
  Open: { value: 0, meaning: 'transacting normally' },
  Dormant: { value: 1, meaning: 'no member-initiated transaction for two years; still open' },
  Closed: { value: 2, meaning: 'balance cleared and closed; listed under historicalaccounts' },
  BadDebt: { value: 3, meaning: 'loan written off; still open for recovery payments' },
  Approved: { value: 4, meaning: 'loan approved but not issued: its issue was reversed and it may be issued again' },
} as const satisfies CodeTable;

/** accounts.productTypeId: says which table accounts.productId points into. */
export const PRODUCT_TYPE = {
  ShareSavings: { value: 1, meaning: 'share or savings account; productId is a productshares ProductId' },
  Loan: { value: 2, meaning: 'loan account; productId is a loanproducts Id' },
  TermDeposit: { value: 3, meaning: 'fixed-term savings bond; productId is a productshares ProductId' },
} as const satisfies CodeTable;

/** transactions.TransactionsTypeID */
export const TRANSACTION_TYPE = {
  BroughtForward: { value: 1, meaning: 'balance carried over from the archived history' },
  CashDeposit: { value: 2, meaning: 'cash paid in at a branch' },
  CashWithdrawal: { value: 3, meaning: 'cash paid out at a branch' },
  PayrollDeduction: { value: 4, meaning: "paid in by the member's employer from salary" },
  StandingOrder: { value: 5, meaning: "regular payment in from the member's bank account" },
  BankTransferIn: { value: 6, meaning: 'one-off Faster Payment in' },
  BankTransferOut: { value: 7, meaning: "withdrawal paid to the member's bank account" },
  ChequeDeposit: { value: 8, meaning: 'cheque paid in; uncleared for a few days' },
  Dividend: { value: 9, meaning: 'dividend or interest paid on savings' },
  Fee: { value: 10, meaning: 'a fee charged to the account' },
  LoanAdvance: { value: 11, meaning: 'loan paid out, or topped up' },
  LoanRepayment: { value: 12, meaning: 'repayment of a loan' },
  LoanInterest: { value: 13, meaning: 'interest charged on a loan' },
} as const satisfies CodeTable;

/** messagethread.MessageTypeId */
export const MESSAGE_TYPE = {
  GeneralEnquiry: { value: 1, meaning: 'general enquiry' },
  LoanEnquiry: { value: 2, meaning: 'question about a loan or a loan application' },
  AccountQuery: { value: 3, meaning: 'question about a transaction or balance' },
  ChangeOfDetails: { value: 4, meaning: 'change of address, phone or employer' },
  Complaint: { value: 5, meaning: 'formal complaint' },
  StatementRequest: { value: 6, meaning: 'request for a statement or a letter' },
} as const satisfies CodeTable;

/** people.MaritalStatus */
export const MARITAL_STATUS = {
  Single: { value: 1, meaning: 'single' },
  Married: { value: 2, meaning: 'married' },
  CivilPartnership: { value: 3, meaning: 'in a civil partnership' },
  Cohabiting: { value: 4, meaning: 'living with a partner' },
  Separated: { value: 5, meaning: 'separated' },
  Divorced: { value: 6, meaning: 'divorced or civil partnership dissolved' },
  Widowed: { value: 7, meaning: 'widowed' },
} as const satisfies CodeTable;

/** productshares.SavingsType */
export const SAVINGS_TYPE = {
  Shares: { value: 1, meaning: "the member's share account" },
  InstantAccess: { value: 2, meaning: 'withdraw at any time' },
  Club: { value: 3, meaning: 'saving towards a date (Christmas, holidays); withdrawals restricted' },
  FixedTerm: { value: 4, meaning: 'locked for a term' },
  Isa: { value: 5, meaning: 'cash ISA' },
  Junior: { value: 6, meaning: 'for members under 18' },
} as const satisfies CodeTable;

/** productshares.CalculationMethod */
export const CALCULATION_METHOD = {
  DailyBalance: { value: 1, meaning: "interest on each day's closing balance" },
  MinimumMonthlyBalance: { value: 2, meaning: 'interest on the lowest balance of each month' },
  Declared: { value: 3, meaning: 'dividend declared by the board at the year end' },
} as const satisfies CodeTable;

/** productshares.DebitCardType */
export const DEBIT_CARD_TYPE = {
  None: { value: 0, meaning: 'no card' },
  PrepaidDebit: { value: 1, meaning: 'prepaid debit card drawing on the account' },
} as const satisfies CodeTable;
