/**
 * The sandbox core's data model: the fields of every resource with their spec types, the
 * record types derived from them, the fields the sandbox adds to the spec's, and the code
 * tables (account status, product type, ...) whose values the spec leaves unstated.
 *
 * Reads nothing. The field schemas are the single source for the record types, for request
 * body validation and for type-aware sorting; they follow the spec's names and order, with
 * the sandbox's added fields first. A field spec is a type name, `type?` when the spec marks
 * the field optional (it may be absent), or `type|null` when the value may be null.
 */
import type { ScaledDecimal } from './decimal';

export type FieldType = 'int' | 'long' | 'number' | 'decimal' | 'string' | 'bool' | 'datetime';
export type FieldSpec = FieldType | `${FieldType}?` | `${FieldType}|null`;
export type FieldSchema = Readonly<Record<string, FieldSpec>>;

type ValueOfType<T extends string> = T extends 'decimal'
  ? ScaledDecimal
  : T extends 'string' | 'datetime'
    ? string
    : T extends 'bool'
      ? boolean
      : number;
type ValueOfSpec<S extends string> = S extends `${infer T}?`
  ? ValueOfType<T>
  : S extends `${infer T}|null`
    ? ValueOfType<T> | null
    : ValueOfType<S>;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The record a schema describes: optional fields are optional properties. */
export type RecordOf<F extends FieldSchema> = Flatten<
  { -readonly [K in keyof F as F[K] extends `${string}?` ? never : K]: ValueOfSpec<F[K]> } & {
    -readonly [K in keyof F as F[K] extends `${string}?` ? K : never]?: ValueOfSpec<F[K]>;
  }
>;

export interface FieldDefinition {
  readonly name: string;
  readonly type: FieldType;
  readonly optional: boolean;
  readonly nullable: boolean;
}

export function fieldDefinitions(schema: FieldSchema): FieldDefinition[] {
  return Object.entries(schema).map(([name, spec]) => ({
    name,
    type: spec.replace(/\?$|\|null$/, '') as FieldType,
    optional: spec.endsWith('?'),
    nullable: spec.endsWith('|null'),
  }));
}

/** The same record with its properties in schema order, so JSON lists fields as the spec does. */
export function inSchemaOrder<R extends object>(schema: FieldSchema, row: R): R {
  const out: Record<string, unknown> = {};
  const source = row as Record<string, unknown>;
  for (const name of Object.keys(schema)) if (source[name] !== undefined) out[name] = source[name];
  return out as R;
}

export const ACCOUNT_FIELDS = {
  id: 'int',
  parentId: 'int',
  productId: 'int',
  productTypeId: 'int',
  customerId: 'int',
  balanceDate: 'datetime',
  accountNumber: 'string',
  description: 'string',
  code: 'string',
  balance: 'decimal',
  interest: 'decimal',
  unclearedAmount: 'decimal',
  minimumShareBalance: 'decimal',
  balanceLocked: 'decimal',
  issueDate: 'datetime',
  approveAmountTotal: 'decimal',
  lockedPercentage: 'decimal',
  lockedAgainstNetShares: 'bool',
  lockedLoanProductId: 'int',
  status: 'int',
  overdraftLimit: 'decimal',
  loanArrears: 'decimal',
  loanTopUps: 'int',
  loanRepaymentsMade: 'int',
  paymentPeriodId: 'int',
  paymentPeriodNumber: 'int',
  normalPayment: 'decimal',
} as const satisfies FieldSchema;

export const ADDRESS_FIELDS = {
  id: 'int',
  countryId: 'int',
  address1: 'string',
  address2: 'string',
  address3: 'string',
  townCity: 'string',
  county: 'string',
  state: 'string',
  postalCode: 'string',
} as const satisfies FieldSchema;

export const BANK_FIELDS = { addressId: 'int', name: 'string', id: 'int' } as const satisfies FieldSchema;

export const BANK_ACCOUNT_FIELDS = {
  Id: 'int',
  Name: 'string',
  AccountNumber: 'string',
  DateClosed: 'datetime|null',
  SortCode: 'string',
} as const satisfies FieldSchema;

export const BRANCH_FIELDS = {
  Id: 'int',
  AddressId: 'number?',
  Name: 'string',
  Description: 'string',
  Code: 'string',
  PhoneNumber: 'number',
  FaxNumber: 'number',
  Email: 'string',
} as const satisfies FieldSchema;

export const COUNTRY_CODE_FIELDS = { Id: 'int', Code: 'string', Country: 'string' } as const satisfies FieldSchema;

export const CUSTOMER_FIELDS = {
  BranchId: 'number',
  Number: 'number',
  OrganisationOfficer: 'number',
  Address1: 'string',
  Address2: 'string',
  Address3: 'string',
  TownCity: 'string',
  State: 'string',
  PostalCode: 'string',
  County: 'string',
  Country: 'string',
  Name: 'string',
  CorrespondenceName: 'string',
  DateOfBirth: 'datetime',
  Email: 'string',
  Telephone1: 'number',
  Telephone2: 'number',
  Telephone3: 'number?',
  SmsConsentGiven: 'bool',
  OpenDate: 'datetime',
} as const satisfies FieldSchema;

export const EMPLOYER_FIELDS = {
  Id: 'number',
  CorrespondenceId: 'number',
  MainOfficeId: 'number?',
  AddressId: 'number?',
  CompanyName: 'string',
  ContactName: 'string',
  PhoneNumber: 'string',
  RegNumber: 'string',
  NumberOfEmployees: 'number',
  Positions: 'number',
} as const satisfies FieldSchema;

/** Genders, titles and loan repayment periods share this shape. */
export const VALUE_NAME_FIELDS = { Value: 'int', Name: 'string' } as const satisfies FieldSchema;

export const LOAN_PRODUCT_FIELDS = {
  Id: 'int',
  Description: 'string',
  Code: 'string',
  Interest: 'decimal',
  MinimumChequeAmount: 'decimal',
  MaximumChequeAmount: 'decimal',
  MinimumBalance: 'decimal',
  MaximumBalance: 'decimal',
  MinimumTerm: 'int',
  MaximumTerm: 'int',
  DefaultRate: 'decimal',
  MinimumAge: 'int',
  MaximumAge: 'int',
} as const satisfies FieldSchema;

export const LOAN_REASON_FIELDS = { Id: 'int', Code: 'string', Description: 'string' } as const satisfies FieldSchema;

export const MESSAGE_FIELDS = {
  Id: 'int',
  MessageThreadId: 'long',
  Content: 'string',
  FromCustomer: 'bool?',
  UserId: 'string?',
  Date: 'datetime',
} as const satisfies FieldSchema;

export const MESSAGE_THREAD_FIELDS = {
  Id: 'int',
  CustomerId: 'long',
  Closed: 'bool?',
  OpenDate: 'datetime?',
  ClosedDate: 'datetime?',
  MessageTypeId: 'int',
  Subject: 'string',
} as const satisfies FieldSchema;

export const PERSON_FIELDS = {
  MemberId: 'int',
  Forename: 'string',
  Surname: 'string',
  CorrespondenceName: 'string',
  Email: 'string',
  SocialSecurityNumber: 'string',
  DrivingLicenceNumber: 'string',
  Telephone1: 'string',
  Telephone2: 'string',
  Telephone3: 'string',
  DebtOther: 'string',
  DependantsAges: 'string',
  HealthDetails: 'string',
  Title: 'int',
  Gender: 'int',
  MaritalStatus: 'int',
  OrganisationOfficer: 'int',
  CreditRating: 'int',
  DependantsNumber: 'int',
  HealthGood: 'int',
  CountryResidencyId: 'int',
  TaxResidencyId: 'int',
  DateOfBirth: 'datetime',
  MonthlyPension: 'decimal',
  ApprovedBenefits: 'decimal',
  OtherIncome: 'decimal',
  MonthlyPensionPartner: 'decimal',
  ApprovedBenefitsPartner: 'decimal',
  OtherIncomePartner: 'decimal',
  RelatedParty: 'bool',
  CCJ: 'bool',
  IVA: 'bool',
  Bankruptcy: 'bool',
  DRO: 'bool',
  CircumstancesChange: 'bool',
  MarketingPost: 'bool',
  MarketingEmail: 'bool',
  MarketingTelephone: 'bool',
  MarketingText: 'bool',
} as const satisfies FieldSchema;

export const PRODUCT_SHARE_FIELDS = {
  ProductId: 'long',
  RequiredPaymentPeriodID: 'long',
  EarlyCloseFeeID: 'long',
  InterestPaymentPeriodID: 'long',
  CalculationPeriodID: 'long',
  vendorConnectDestWithFeeID: 'long',
  vendorConnectDestDepFeeID: 'long',
  MinimumMemberAge: 'int',
  MaximumMemberAge: 'int',
  SavingsType: 'int',
  TermMin: 'int',
  TermMax: 'int',
  RequiredPaymentPeriodNumber: 'int',
  RolloverProductID: 'int',
  InterestPaymentPeriodNumber: 'int',
  CalculationMethod: 'int',
  CalculationPeriodNumber: 'int',
  DayCount: 'int',
  MinimumInterestAge: 'int',
  MaximumInterestAge: 'int',
  LockedLoanProductID: 'int',
  DebitCardType: 'int',
  MinimumBalance: 'decimal',
  MaximumBalance: 'decimal',
  RequiredPaymentMinimum: 'decimal',
  RequiredPaymentMaximum: 'decimal',
  EarlyClosePenalty: 'decimal',
  InterestRate: 'decimal',
  TaxRate: 'decimal',
  MinInterestBalance: 'decimal',
  MaxInterestBalance: 'decimal',
  ATMCardLimit: 'decimal',
  ATMDailyLimit: 'decimal',
  ISAYearlyLimit: 'decimal',
  PercentageLocked: 'decimal',
  vendorConnectReceiptLimit: 'decimal',
  vendorConnectDailyLimit: 'decimal',
  SCV_ProductShare: 'string',
  InterestTransactionMessage: 'string',
  InterestNextPaymentDate: 'string',
  CalculationStartDate: 'string',
  ErrorBalanceRange: 'string',
  ErrorAgeRange: 'string',
  DeferredShares: 'bool',
  ExcludeFromNetSavings: 'bool',
  TermDeposit: 'bool',
  Annuity: 'bool',
  NonWorkDayForward: 'bool',
  PaidOnMaturity: 'bool',
  CalculationEndDate: 'bool',
  ClearedBalanceNetOfGuarantees: 'bool',
  ATMEnabled: 'bool',
  ISAProduct: 'bool',
  AllowAutoWithdrawal: 'bool',
  AddReceipt: 'bool',
} as const satisfies FieldSchema;

export const TRANSACTION_FIELDS = {
  AccountId: 'int',
  ReceiptNumber: 'long',
  ValueDate: 'datetime',
  Description: 'string',
  Credit: 'bool',
  Amount: 'decimal',
  Balance: 'decimal',
  IsFee: 'bool',
  TransactionsTypeID: 'int',
} as const satisfies FieldSchema;

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

/**
 * Fields the sandbox adds to the spec's, per resource, with the reason for each. The spec
 * gives these resources no id field, yet addresses them by id (GET/PUT/DELETE `R/{id}`), or
 * leaves a link out that a vendor needs to read the data.
 */
export const SANDBOX_ADDED_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  bankaccounts: { Id: 'the bank account id of GET /bankaccounts/{id} and PUT /bankaccounts/{bankaccountid}' },
  branches: { Id: 'the {branchId} of /branches/{branchId}; customers.BranchId refers to it' },
  countrycodes: { Id: 'the {countryCodesId} of /countrycodes/{countryCodesId}; addresses.countryId refers to it' },
  loanproducts: { Id: 'the {id} of /loanproducts/{id}; loan accounts\' productId refers to it' },
  loanreasons: { Id: 'the {id} of /loanreasons/{id}' },
  messages: { Id: 'the {id} of /messages/{id}' },
  messagethread: { Id: 'the {id} of /messagethread/{id}; messages.MessageThreadId refers to it' },
  people: { MemberId: 'the {memberId} of /people/{memberId}: the Number of the customer the person belongs to' },
  transactions: { AccountId: 'the account the transaction was posted to (a member\'s transactions span accounts)' },
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
  PayrollDeduction: { value: 4, meaning: 'paid in by the member\'s employer from salary' },
  StandingOrder: { value: 5, meaning: 'regular payment in from the member\'s bank account' },
  BankTransferIn: { value: 6, meaning: 'one-off Faster Payment in' },
  BankTransferOut: { value: 7, meaning: 'withdrawal paid to the member\'s bank account' },
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
  Shares: { value: 1, meaning: 'the member\'s share account' },
  InstantAccess: { value: 2, meaning: 'withdraw at any time' },
  Club: { value: 3, meaning: 'saving towards a date (Christmas, holidays); withdrawals restricted' },
  FixedTerm: { value: 4, meaning: 'locked for a term' },
  Isa: { value: 5, meaning: 'cash ISA' },
  Junior: { value: 6, meaning: 'for members under 18' },
} as const satisfies CodeTable;

/** productshares.CalculationMethod */
export const CALCULATION_METHOD = {
  DailyBalance: { value: 1, meaning: 'interest on each day\'s closing balance' },
  MinimumMonthlyBalance: { value: 2, meaning: 'interest on the lowest balance of each month' },
  Declared: { value: 3, meaning: 'dividend declared by the board at the year end' },
} as const satisfies CodeTable;

/** productshares.DebitCardType */
export const DEBIT_CARD_TYPE = {
  None: { value: 0, meaning: 'no card' },
  PrepaidDebit: { value: 1, meaning: 'prepaid debit card drawing on the account' },
} as const satisfies CodeTable;
