/**
 * The spec's resources as data: the fields of every resource with their spec types, in the
 * spec's order (with the sandbox's added id fields first), and the shapes the sandbox gives
 * where the spec shows none (marketing preferences, total pledged savings, the batch
 * statement, the paged envelope).
 *
 * Reads nothing. One source for the sandbox core (record types, body validation, sorting) and
 * for the gateway's OpenAPI document (src/openapi/resource-schemas.ts), so the document
 * describes exactly what the sandbox answers. A field spec is a type name, `type?` when the
 * spec marks the field optional (it may be absent), or `type|null` when the value may be null.
 */
export type FieldType = 'int' | 'long' | 'number' | 'decimal' | 'string' | 'bool' | 'datetime';
type ResourceFieldSpec = FieldType | `${FieldType}?` | `${FieldType}|null`;
export type FieldSchema = Readonly<Record<string, ResourceFieldSpec>>;

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

/** GET customers/{memberId}/marketingpreferences (the spec shows no shape). */
export const MARKETING_PREFERENCES_FIELDS = {
  CustomerId: 'int',
  MarketingPost: 'bool',
  MarketingEmail: 'bool',
  MarketingTelephone: 'bool',
  MarketingText: 'bool',
  SmsConsentGiven: 'bool',
} as const satisfies FieldSchema;

/** GET customers/{memberId}/totalpledgedsavings (the spec shows no shape). */
export const TOTAL_PLEDGED_SAVINGS_FIELDS = { CustomerId: 'int', TotalPledgedSavings: 'decimal' } as const satisfies FieldSchema;

/** One account of a batch statement; its `Transactions` are TRANSACTION_FIELDS records. */
export const STATEMENT_ACCOUNT_FIELDS = {
  AccountId: 'int',
  AccountNumber: 'string',
  Description: 'string',
  OpeningBalance: 'decimal',
  ClosingBalance: 'decimal',
  TotalCredits: 'decimal',
  TotalDebits: 'decimal',
} as const satisfies FieldSchema;

/** GET transactions/{memberId}/batchstatement; its `Accounts` are STATEMENT_ACCOUNT_FIELDS records. From/To: the period asked for, null where open-ended. */
export const BATCH_STATEMENT_FIELDS = {
  CustomerId: 'int',
  Name: 'string',
  CorrespondenceName: 'string',
  From: 'datetime|null',
  To: 'datetime|null',
} as const satisfies FieldSchema;

/** The paged envelope (banks always; other roots with paged=true); its `items` are the resource's records. */
export const PAGE_FIELDS = {
  pageNumber: 'int',
  pageSize: 'int',
  totalPages: 'int',
  totalItems: 'int',
  nextUrl: 'string|null',
  previousUrl: 'string|null',
} as const satisfies FieldSchema;

/** A resource root's records: their schema name in the OpenAPI document, fields and key. */
interface ResourceRecords {
  /** The schema's name: the record in the singular, as a client's type would be called. */
  readonly name: string;
  readonly fields: FieldSchema;
  /** The field `{id}` in the root's paths names. */
  readonly key: string;
  /** True where the client names the key on POST (a person's MemberId is its customer's Number); else the core assigns it. */
  readonly clientKey: boolean;
}

const records = (name: string, fields: FieldSchema, key: string, clientKey = false): ResourceRecords => ({ name, fields, key, clientKey });

/** The 16 resource roots of the spec and banks, by root. */
export const RESOURCE_RECORDS: ReadonlyMap<string, ResourceRecords> = new Map([
  ['accounts', records('Account', ACCOUNT_FIELDS, 'id')],
  ['addresses', records('Address', ADDRESS_FIELDS, 'id')],
  ['banks', records('Bank', BANK_FIELDS, 'id')],
  ['branches', records('Branch', BRANCH_FIELDS, 'Id')],
  ['countrycodes', records('CountryCode', COUNTRY_CODE_FIELDS, 'Id')],
  ['customers', records('Customer', CUSTOMER_FIELDS, 'Number')],
  ['employers', records('Employer', EMPLOYER_FIELDS, 'Id')],
  ['genders', records('Gender', VALUE_NAME_FIELDS, 'Value')],
  ['loanproducts', records('LoanProduct', LOAN_PRODUCT_FIELDS, 'Id')],
  ['loanreasons', records('LoanReason', LOAN_REASON_FIELDS, 'Id')],
  ['loanrepaymentperiods', records('LoanRepaymentPeriod', VALUE_NAME_FIELDS, 'Value')],
  ['messages', records('Message', MESSAGE_FIELDS, 'Id')],
  ['messagethread', records('MessageThread', MESSAGE_THREAD_FIELDS, 'Id')],
  ['people', records('Person', PERSON_FIELDS, 'MemberId', true)],
  ['productshares', records('ProductShare', PRODUCT_SHARE_FIELDS, 'ProductId')],
  ['titles', records('Title', VALUE_NAME_FIELDS, 'Value')],
  ['transactions', records('Transaction', TRANSACTION_FIELDS, 'ReceiptNumber')],
]);
