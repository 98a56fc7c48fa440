/**
 * Test oracle: the fields of every resource exactly as the spec
 * (docs/spec/core-banking-integration-service.md, "Resources and their fields") writes them:
 * name, spec type, and whether the spec marks the field optional.
 *
 * Transcribed by hand from the spec, not derived from any code under test, so that a test
 * comparing the sandbox's records with this list checks the sandbox against the spec.
 * Fields the sandbox adds are not here; they are listed in SANDBOX_ADDED_FIELDS
 * (src/sandbox/model.ts) and a test accounts for them separately.
 */

export type SpecType = 'int' | 'long' | 'decimal' | 'string' | 'bool' | 'datetime' | 'number' | 'array';

export interface SpecField {
  readonly name: string;
  readonly type: SpecType;
  readonly optional: boolean;
  /** The spec says the value may be null ("datetime or null", "string or null"). */
  readonly nullable?: boolean;
}

const required = (type: SpecType, ...names: string[]): SpecField[] => names.map((name) => ({ name, type, optional: false }));
const optional = (type: SpecType, name: string): SpecField => ({ name, type, optional: true });

export const SPEC_FIELDS: Readonly<Record<string, ReadonlyArray<SpecField>>> = {
  accounts: [
    ...required('int', 'id', 'parentId', 'productId', 'productTypeId', 'customerId'),
    ...required('datetime', 'balanceDate'),
    ...required('string', 'accountNumber', 'description', 'code'),
    ...required('decimal', 'balance', 'interest', 'unclearedAmount', 'minimumShareBalance', 'balanceLocked'),
    ...required('datetime', 'issueDate'),
    ...required('decimal', 'approveAmountTotal', 'lockedPercentage'),
    ...required('bool', 'lockedAgainstNetShares'),
    ...required('int', 'lockedLoanProductId', 'status'),
    ...required('decimal', 'overdraftLimit', 'loanArrears'),
    ...required('int', 'loanTopUps', 'loanRepaymentsMade', 'paymentPeriodId', 'paymentPeriodNumber'),
    ...required('decimal', 'normalPayment'),
  ],
  addresses: [...required('int', 'id', 'countryId'), ...required('string', 'address1', 'address2', 'address3', 'townCity', 'county', 'state', 'postalCode')],
  /** One element of the banks envelope's `items`. */
  banks: [...required('int', 'addressId'), ...required('string', 'name'), ...required('int', 'id')],
  /** The customer bank account record (GET /bankaccounts/{id}, GET /customers/{id}/bankaccounts). */
  bankaccounts: [
    ...required('string', 'Name', 'AccountNumber'),
    { name: 'DateClosed', type: 'datetime', optional: false, nullable: true },
    ...required('string', 'SortCode'),
  ],
  branches: [
    optional('number', 'AddressId'),
    ...required('string', 'Name', 'Description', 'Code'),
    ...required('number', 'PhoneNumber', 'FaxNumber'),
    ...required('string', 'Email'),
  ],
  countrycodes: required('string', 'Code', 'Country'),
  customers: [
    ...required('number', 'BranchId', 'Number', 'OrganisationOfficer'),
    ...required('string', 'Address1', 'Address2', 'Address3', 'TownCity', 'State', 'PostalCode', 'County', 'Country', 'Name', 'CorrespondenceName'),
    ...required('datetime', 'DateOfBirth'),
    ...required('string', 'Email'),
    ...required('number', 'Telephone1', 'Telephone2'),
    optional('number', 'Telephone3'),
    ...required('bool', 'SmsConsentGiven'),
    ...required('datetime', 'OpenDate'),
  ],
  employers: [
    ...required('number', 'Id', 'CorrespondenceId'),
    optional('number', 'MainOfficeId'),
    optional('number', 'AddressId'),
    ...required('string', 'CompanyName', 'ContactName', 'PhoneNumber', 'RegNumber'),
    ...required('number', 'NumberOfEmployees', 'Positions'),
  ],
  genders: [...required('int', 'Value'), ...required('string', 'Name')],
  titles: [...required('int', 'Value'), ...required('string', 'Name')],
  loanproducts: [
    ...required('string', 'Description', 'Code'),
    ...required('decimal', 'Interest', 'MinimumChequeAmount', 'MaximumChequeAmount', 'MinimumBalance', 'MaximumBalance'),
    ...required('int', 'MinimumTerm', 'MaximumTerm'),
    ...required('decimal', 'DefaultRate'),
    ...required('int', 'MinimumAge', 'MaximumAge'),
  ],
  loanreasons: required('string', 'Code', 'Description'),
  loanrepaymentperiods: [...required('int', 'Value'), ...required('string', 'Name')],
  messages: [
    ...required('long', 'MessageThreadId'),
    ...required('string', 'Content'),
    optional('bool', 'FromCustomer'),
    optional('string', 'UserId'),
    ...required('datetime', 'Date'),
  ],
  messagethread: [
    ...required('long', 'CustomerId'),
    optional('bool', 'Closed'),
    optional('datetime', 'OpenDate'),
    optional('datetime', 'ClosedDate'),
    ...required('int', 'MessageTypeId'),
    ...required('string', 'Subject'),
  ],
  people: [
    ...required(
      'string',
      'Forename',
      'Surname',
      'CorrespondenceName',
      'Email',
      'SocialSecurityNumber',
      'DrivingLicenceNumber',
      'Telephone1',
      'Telephone2',
      'Telephone3',
      'DebtOther',
      'DependantsAges',
      'HealthDetails',
    ),
    ...required(
      'int',
      'Title',
      'Gender',
      'MaritalStatus',
      'OrganisationOfficer',
      'CreditRating',
      'DependantsNumber',
      'HealthGood',
      'CountryResidencyId',
      'TaxResidencyId',
    ),
    ...required('datetime', 'DateOfBirth'),
    ...required('decimal', 'MonthlyPension', 'ApprovedBenefits', 'OtherIncome', 'MonthlyPensionPartner', 'ApprovedBenefitsPartner', 'OtherIncomePartner'),
    ...required(
      'bool',
      'RelatedParty',
      'CCJ',
      'IVA',
      'Bankruptcy',
      'DRO',
      'CircumstancesChange',
      'MarketingPost',
      'MarketingEmail',
      'MarketingTelephone',
      'MarketingText',
    ),
  ],
  productshares: [
    ...required(
      'long',
      'ProductId',
      'RequiredPaymentPeriodID',
      'EarlyCloseFeeID',
      'InterestPaymentPeriodID',
      'CalculationPeriodID',
      'vendorConnectDestWithFeeID',
      'vendorConnectDestDepFeeID',
    ),
    ...required(
      'int',
      'MinimumMemberAge',
      'MaximumMemberAge',
      'SavingsType',
      'TermMin',
      'TermMax',
      'RequiredPaymentPeriodNumber',
      'RolloverProductID',
      'InterestPaymentPeriodNumber',
      'CalculationMethod',
      'CalculationPeriodNumber',
      'DayCount',
      'MinimumInterestAge',
      'MaximumInterestAge',
      'LockedLoanProductID',
      'DebitCardType',
    ),
    ...required(
      'decimal',
      'MinimumBalance',
      'MaximumBalance',
      'RequiredPaymentMinimum',
      'RequiredPaymentMaximum',
      'EarlyClosePenalty',
      'InterestRate',
      'TaxRate',
      'MinInterestBalance',
      'MaxInterestBalance',
      'ATMCardLimit',
      'ATMDailyLimit',
      'ISAYearlyLimit',
      'PercentageLocked',
      'vendorConnectReceiptLimit',
      'vendorConnectDailyLimit',
    ),
    ...required(
      'string',
      'SCV_ProductShare',
      'InterestTransactionMessage',
      'InterestNextPaymentDate',
      'CalculationStartDate',
      'ErrorBalanceRange',
      'ErrorAgeRange',
    ),
    ...required(
      'bool',
      'DeferredShares',
      'ExcludeFromNetSavings',
      'TermDeposit',
      'Annuity',
      'NonWorkDayForward',
      'PaidOnMaturity',
      'CalculationEndDate',
      'ClearedBalanceNetOfGuarantees',
      'ATMEnabled',
      'ISAProduct',
      'AllowAutoWithdrawal',
      'AddReceipt',
    ),
  ],
  transactions: [
    ...required('long', 'ReceiptNumber'),
    ...required('datetime', 'ValueDate'),
    ...required('string', 'Description'),
    ...required('bool', 'Credit'),
    ...required('decimal', 'Amount', 'Balance'),
    ...required('bool', 'IsFee'),
    ...required('int', 'TransactionsTypeID'),
  ],
};

/** The banks paged envelope (the spec's banks table). */
export const BANKS_ENVELOPE_FIELDS: ReadonlyArray<SpecField> = [
  ...required('int', 'pageNumber', 'pageSize', 'totalPages', 'totalItems'),
  { name: 'nextUrl', type: 'string', optional: false, nullable: true },
  { name: 'previousUrl', type: 'string', optional: false, nullable: true },
  ...required('array', 'items'),
];
