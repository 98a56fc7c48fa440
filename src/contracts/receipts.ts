/**
 * The receipt DTOs of the spec ("Receipt structures" and "Receipt operations"), each defined
 * once, and the cross-field rules the spec states for the three receipt bodies.
 *
 * Reads nothing; exports the structures, their TypeScript types and `receiptRules`. JSON
 * names are the keys (camelCase, as the spec's structure tables write them: `cuAccountID`);
 * XML names are the PascalCase .NET names. Names the spec does not spell out in PascalCase
 * are our choice, stated here once: `ID`, `UserId`, `TSChanged`, `m_CreationDate`,
 * `m_EditDate`, `UDFLinkID`/`UDFFieldID`/`UDFType`/`UDFLinks`, list items named after their
 * type (`<Fees><FeeLineDto>…`), the UDF link's type `UDFLinkDto`, and ArrearsDays entries
 * `KeyValueOfintint` (DataContractSerializer's names for these shapes). FeeLineDto and
 * InsuranceLineDto derive from ReceiptLineDto ("all ReceiptLineDto fields plus"), so their XML
 * puts the base's members first; the three receipts are taken as flat classes.
 */
import {
  binary,
  bool,
  dateTime,
  decimal,
  derivedOrder,
  enumeration,
  int,
  intMap,
  list,
  object,
  struct,
  text,
  type FieldPath,
  type StructValue,
} from './dto-schema';
import type { ReceiptEnums } from './enums';

const receiptLineFields = {
  name: text('Name', 'Line label'),
  openBalance: decimal('OpenBalance', 'Balance before the receipt'),
  debitAmount: decimal('DebitAmount', 'Amount debited'),
  creditAmount: decimal('CreditAmount', 'Amount credited'),
  amountPaid: decimal('AmountPaid', 'Amount paid on this line'),
  closingBalance: decimal('ClosingBalance', 'Balance after the receipt'),
  canEditAmount: bool('CanEditAmount', 'Whether the user may change the amount'),
  id: text('ID', 'Line identifier'),
};

const ReceiptLineDto = struct('ReceiptLineDto', 'One line of a receipt: balances and amounts of one account or item.', receiptLineFields);

const feeFields = {
  cuAccountFeeID: int('CUAccountFeeID', 'Account fee id'),
  cuFeeID: int('CUFeeID', 'Fee id'),
  manuallyAdded: bool('ManuallyAdded', 'Added by hand rather than by the fee rules'),
  adjustFee: bool('AdjustFee', 'Whether the fee is adjusted'),
  accountID: int('AccountID', 'Account the fee belongs to'),
  paid: bool('Paid', 'Whether the fee is paid'),
  charged: bool('Charged', 'Whether the fee is charged'),
  allowAmountChange: bool('AllowAmountChange', 'Whether the fee amount may be changed'),
  amount: decimal('Amount', 'Fee amount'),
};

// "All ReceiptLineDto fields plus …": derived classes in .NET, so the base's members come first in XML.
const FeeLineDto = struct(
  'FeeLineDto',
  'A fee line: a receipt line (canEditAmount may be null) plus the fee it charges.',
  { ...receiptLineFields, ...feeFields },
  { dataContractOrder: derivedOrder(receiptLineFields, feeFields) },
);

const insuranceFields = {
  cuInsuranceID: int('CUInsuranceID', 'Insurance id'),
  insuranceDescription: text('InsuranceDescription', 'Insurance description'),
  isCash: bool('IsCash', 'Paid in cash'),
  insuranceAmount: decimal('InsuranceAmount', 'Insurance amount'),
};

const InsuranceLineDto = struct(
  'InsuranceLineDto',
  'An insurance line: a receipt line plus the insurance it pays.',
  { ...receiptLineFields, ...insuranceFields },
  { dataContractOrder: derivedOrder(receiptLineFields, insuranceFields) },
);

const AnalysisLinkDto = struct('AnalysisLinkDto', 'A link between the receipt and an analysis field.', {
  analysisLinkID: int('AnalysisLinkID', 'Analysis link id'),
  analysisFieldID: int('AnalysisFieldID', 'Analysis field id'),
  customerID: int('CustomerID', 'Customer id'),
  cuAccountID: int('CUAccountID', 'Account id'),
  receiptNo: int('ReceiptNo', 'Receipt number'),
  productID: int('ProductID', 'Product id'),
  accountID: int('AccountID', 'Account id'),
  journalPageID: int('JournalPageID', 'Journal page id'),
  journalEntryID: int('JournalEntryID', 'Journal entry id'),
  journalPostID: int('JournalPostID', 'Journal post id'),
  recurringPageID: int('RecurringPageID', 'Recurring page id'),
  recurringEntryID: int('RecurringEntryID', 'Recurring entry id'),
  cuInsurancePolicyID: int('CUInsurancePolicyID', 'Insurance policy id'),
  selected: bool('Selected', 'Whether the link is selected'),
});

const UdfLinkDto = struct('UDFLinkDto', 'A user-defined field value of a survey (the spec\'s "UDF link").', {
  udfLinkID: int('UDFLinkID', 'UDF link id'),
  surveyID: int('SurveyID', 'Survey id'),
  customerID: int('CustomerID', 'Customer id'),
  cuAccountID: int('CUAccountID', 'Account id'),
  productID: int('ProductID', 'Product id'),
  cuInsurancePolicyID: int('CUInsurancePolicyID', 'Insurance policy id'),
  receiptNo: int('ReceiptNo', 'Receipt number'),
  branchID: int('BranchID', 'Branch id'),
  interactionID: int('InteractionID', 'Interaction id'),
  cuLoanReviewID: int('CULoanReviewID', 'Loan review id'),
  udfFieldID: int('UDFFieldID', 'User-defined field id'),
  userDefinedFieldListID: int('UserDefinedFieldListID', 'User-defined field list id'),
  order: int('Order', 'Display order'),
  udfType: int('UDFType', 'User-defined field type'),
  fieldCurrency: int('FieldCurrency', 'Currency of the field'),
  customerTypes: int('CustomerTypes', 'Customer types the field applies to'),
  value: text('Value', 'Field value'),
  mask: text('Mask', 'Input mask'),
  fieldName: text('FieldName', 'Field name'),
  dateValue: text('DateValue', 'Date value'),
  mandatory: bool('Mandatory', 'Whether the field is mandatory'),
  uniqueField: bool('UniqueField', 'Whether the value must be unique'),
  validateActiveUDF: bool('ValidateActiveUDF', 'Whether to validate the active UDF'),
});

const SurveyDto = struct('SurveyDto', 'A survey answered with the receipt.', {
  surveyID: int('SurveyID', 'Survey id'),
  userDefinedFieldGroupID: int('UserDefinedFieldGroupID', 'User-defined field group id'),
  date: text('Date', 'Survey date'),
  totalScore: decimal('TotalScore', 'Total score'),
  udfLinks: list(UdfLinkDto, 'UDFLinks', "The survey's field values"),
});

const TransactionOverrideDto = struct('TransactionOverrideDto', 'An override the receipt needs before it can be posted.', {
  cuTransactionOverrideID: int('CUTransactionOverrideID', 'Override id'),
  receiptNo: int('ReceiptNo', 'Receipt number'),
  cuAccountID: int('CUAccountID', 'Account id'),
  overrideType: int('OverrideType', 'Override type'),
  userId: int('UserId', 'User id'),
  terminalID: int('TerminalID', 'Terminal id'),
  currencyID: int('CurrencyID', 'Currency id'),
  splitHeaderID: int('SplitHeaderID', 'Split header id'),
  accountInfo: text('AccountInfo', 'Account information'),
  description: text('Description', 'Description'),
  message: text('Message', 'Why the override is needed'),
  overrideTypeText: text('OverrideTypeText', 'Override type as text'),
  userName: text('UserName', 'User name'),
  terminalName: text('TerminalName', 'Terminal name'),
  password: text('Password', 'Password'),
  amount: decimal('Amount', 'Amount concerned'),
  checked: bool('Checked', 'Checked'),
  authorised: bool('Authorised', 'Authorised'),
});

const ReceiptPrintParams = struct('ReceiptPrintParams', 'How to print the receipt.', {
  receiptNo: int('ReceiptNo', 'Receipt number'),
  branchCode: text('BranchCode', 'Branch code'),
  hideBalance: bool('HideBalance', 'Leave the balance off the print'),
  reprint: bool('Reprint', 'This is a reprint'),
  withCashOutReceipt: bool('WithCashOutReceipt', 'Print a cash-out receipt too'),
  useDefaultFormat: bool('UseDefaultFormat', 'Use the default format'),
  format: text('Format', 'Print format'),
  canPrint: bool('CanPrint', 'Whether the receipt can be printed'),
});

const Notes = struct('Notes', 'A note, as the core stores it.', {
  noteID: int('NoteID', 'Note id'),
  userID: int('UserID', 'User id'),
  terminalID: int('TerminalID', 'Terminal id'),
  key: int('Key', 'Key of the noted record'),
  auditHeaderID: int('AuditHeaderID', 'Audit header id'),
  auditType: int('AuditType', 'Audit type'),
  note: text('Note', 'The note text'),
  userName: text('UserName', 'User name'),
  terminalName: text('TerminalName', 'Terminal name'),
  creationDate: dateTime('CreationDate', 'Created'),
  editDate: dateTime('EditDate', 'Last edited'),
  m_CreationDate: dateTime('m_CreationDate', 'Created (backing field)'),
  m_EditDate: dateTime('m_EditDate', 'Last edited (backing field)'),
  allowEdit: bool('AllowEdit', 'May be edited'),
  allowDelete: bool('AllowDelete', 'May be deleted'),
  active: bool('Active', 'Active'),
  tsChanged: bool('TSChanged', 'Timestamp changed'),
  timestamp: binary('Timestamp', 'Row version, base64'),
});

const commonFields = {
  cuAccountID: int('CUAccountID', 'Account id; required unless accountNumber is given'),
  accountNumber: text('AccountNumber', 'Account number, kept as written (leading zeros too); required unless cuAccountID is given'),
  amount: decimal('Amount', 'Amount, exact decimal, positive; required except for an adjustment'),
  notes: text('Notes', "Notes; mandatory for adjustments when the core's settings say so"),
  transactionOverrides: list(TransactionOverrideDto, 'TransactionOverrides', 'Overrides the receipt needs (responses only)', { readOnly: true }),
  receiptNo: int('ReceiptNo', 'Receipt number; required for a reversal or an adjustment'),
  hasOverride: bool('HasOverride', 'True when the receipt failed because an override is required (responses only)', { readOnly: true }),
  externalRefNo: text('ExternalRefNo', "The vendor's reference; null for internal transactions"),
  overrideUserName: text('OverrideUserName', 'Authorising user, when an override is needed; given together with overridePassword'),
  overridePassword: text('OverridePassword', "Authorising user's password, when an override is needed; given together with overrideUserName"),
};

export const ReceiptPaymentDto = struct('ReceiptPaymentDto', 'Savings deposit (POST api/transaction/savings/deposit).', {
  ...commonFields,
  payFee: bool('PayFee', 'Whether to pay the fee'),
  dontSettleLinkedSavings: bool('DontSettleLinkedSavings', 'Leave out the linked savings due along with the loan due'),
  // The spec's Errors section: every receipt body carries ErrorMessage for errors from invalid input.
  errorMessage: text('ErrorMessage', 'Receipt error from invalid input (responses only)', { readOnly: true }),
});

const savingsDepositWebFields = {
  ...commonFields,
  principal: object(ReceiptLineDto, 'Principal', 'Principal amount and due'),
  analysisLinks: list(AnalysisLinkDto, 'AnalysisLinks', 'Analysis links'),
  surveys: list(SurveyDto, 'Surveys', 'Surveys'),
  errorMessage: text('ErrorMessage', 'Receipt error from invalid input'),
  status: text('Status', 'Savings account status'),
  accounts: list(ReceiptLineDto, 'Accounts', 'Account lines'),
  fees: list(FeeLineDto, 'Fees', 'Fee lines'),
  isArrears: bool('IsArrears', 'Whether the account is in arrears'),
  arrears: text('Arrears', 'Arrears'),
  daysLate: int('DaysLate', 'Days late'),
  installment: text('Installment', 'Installment'),
  dueDate: text('DueDate', 'Due date'),
  payment: text('Payment', 'Payment'),
  accountRating: text('AccountRating', 'Account rating'),
  due: text('Due', 'Amount due with its currency code'),
  balanceDate: text('BalanceDate', 'Balance date'),
  clearedFunds: text('ClearedFunds', 'Cleared funds'),
  tendered: decimal('Tendered', 'Amount tendered'),
  change: decimal('Change', 'Change given'),
  fieldChanged: text('FieldChanged', 'Which amount the user changed'),
  receiptType: enumeration('AWReceiptType', 'ReceiptType', 'Receipt type (AWReceiptType); a type marked as an adjustment makes this an adjustment'),
  totals: object(ReceiptLineDto, 'Totals', 'Totals line'),
  receiptPrintParameters: object(ReceiptPrintParams, 'ReceiptPrintParameters', 'Print parameters; required for a receipt print'),
  currencyID: int('CurrencyID', 'Currency id'),
  arrearsDays: intMap('ArrearsDays', 'KeyValueOfintint', 'Days in arrears per account id'),
  writtenOffInformation: text('WrittenOffInformation', 'Shown when the account status is bad debt'),
  isTransferAccount: bool('IsTransferAccount', 'Whether this is a transfer account'),
  isLoanAccount: bool('IsLoanAccount', 'Whether this is a loan account'),
  insurance: object(InsuranceLineDto, 'Insurance', 'Insurance line'),
  dontSettleLinkedSavings: bool('DontSettleLinkedSavings', 'Leave out the linked savings due along with the loan due'),
  tempToken: text('TempToken', 'Fingerprint verification token (Android)'),
  fingerPrintURL: text('FingerPrintURL', 'Fingerprint verification URL (Android; responses only)', { readOnly: true }),
};

export const ReceiptSavingsDepositWebDto = struct(
  'ReceiptSavingsDepositWebDto',
  'Savings payment (POST api/transaction/savings/payment).',
  savingsDepositWebFields,
);

const { status: _status, ...reversalBaseFields } = savingsDepositWebFields;

export const ReceiptReversalWebDto = struct('ReceiptReversalWebDto', 'Loan (issue) reversal (POST api/transaction/loan/reversal).', {
  ...reversalBaseFields,
  principal: object(ReceiptLineDto, 'Principal', 'Loan principal amount and due'),
  insurance: object(InsuranceLineDto, 'Insurance', 'Insurance line of the reversal receipt'),
  interest: object(ReceiptLineDto, 'Interest', 'Loan interest amount and due'),
  chargeOffProductID: int('ChargeOffProductID', 'Product to which a loan is charged off'),
  expiryDate: text('ExpiryDate', 'Expiry date of the loan charge-off'),
  loanIssueReversalReasonID: int('LoanIssueReversalReasonID', 'Loan reversal reason'),
  loanIssueReversalNotes: object(Notes, 'LoanIssueReversalNotes', 'Why the loan is reversed; its note text is required', { required: true }),
  loanReversalOption: enumeration('LoanStatusReversalOptions', 'LoanReversalOption', 'What happens to the loan (LoanStatusReversalOptions)', {
    required: true,
  }),
  productTypeID: enumeration('ProductTypes', 'ProductTypeID', 'Type of account fetched (ProductTypes)'),
  customerID: int('CustomerID', 'Customer id'),
  isLoanIssueReversal: bool('IsLoanIssueReversal', 'True to reverse an issued loan'),
  productID: int('ProductID', 'Type of loan account'),
});

export type ReceiptPaymentDto = StructValue<typeof ReceiptPaymentDto>;
export type ReceiptSavingsDepositWebDto = StructValue<typeof ReceiptSavingsDepositWebDto>;
export type ReceiptReversalWebDto = StructValue<typeof ReceiptReversalWebDto>;

export const RECEIPT_STRUCTS = [ReceiptPaymentDto, ReceiptSavingsDepositWebDto, ReceiptReversalWebDto] as const;
export type ReceiptStruct = (typeof RECEIPT_STRUCTS)[number];

/** Any of the three bodies: the rules read only the fields they share, or check for presence. */
type AnyReceipt = ReceiptPaymentDto & Partial<ReceiptSavingsDepositWebDto> & Partial<ReceiptReversalWebDto>;

interface RuleOptions {
  readonly enums: ReceiptEnums;
  /** The core's "notes mandatory for adjustments" system setting. */
  readonly adjustmentNotesRequired: boolean;
}

interface RuleViolation {
  readonly path: FieldPath;
  /** Gets a field's name in the request's wire format, so the message speaks the vendor's names. */
  readonly message: (wireName: (jsonName: string) => string) => string;
}

/**
 * The spec's rules that span fields (types and formats are checked while reading).
 * An adjustment is a receipt whose ReceiptType is marked `adjustment: true` in the enum file;
 * ReceiptPaymentDto has no ReceiptType, so it is never one.
 */
export function receiptRules(struct: ReceiptStruct, value: AnyReceipt, options: RuleOptions): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const isReversal = struct === ReceiptReversalWebDto;
  const isAdjustment = value.receiptType !== undefined && options.enums.adjustmentReceiptTypes.has(value.receiptType);

  if (value.cuAccountID === undefined && (value.accountNumber === undefined || value.accountNumber.trim() === '')) {
    violations.push({ path: ['cuAccountID'], message: (n) => `give ${n('cuAccountID')} or ${n('accountNumber')}` });
  }
  if (value.amount === undefined) {
    if (!isAdjustment) violations.push({ path: ['amount'], message: () => 'is required' });
  } else if (!isAdjustment && !isPositive(value.amount.value)) {
    violations.push({ path: ['amount'], message: () => 'must be greater than zero' });
  }
  if (value.receiptNo === undefined && (isReversal || isAdjustment)) {
    violations.push({ path: ['receiptNo'], message: () => `is required for ${isReversal ? 'a reversal' : 'an adjustment'}` });
  }
  if (isAdjustment && options.adjustmentNotesRequired && (value.notes === undefined || value.notes.trim() === '')) {
    violations.push({ path: ['notes'], message: () => 'is required for an adjustment' });
  }
  // Presence of loanIssueReversalNotes and loanReversalOption is the fields' `required` flag.
  const reversalNotes = value.loanIssueReversalNotes;
  if (isReversal && reversalNotes !== undefined && (reversalNotes.note === undefined || reversalNotes.note.trim() === '')) {
    violations.push({ path: ['loanIssueReversalNotes', 'note'], message: () => 'is required: say why the loan is reversed' });
  }
  if ((value.overrideUserName === undefined) !== (value.overridePassword === undefined)) {
    const missing = value.overrideUserName === undefined ? 'overrideUserName' : 'overridePassword';
    const given = missing === 'overrideUserName' ? 'overridePassword' : 'overrideUserName';
    violations.push({ path: [missing], message: (n) => `is required when ${n(given)} is given (both or neither)` });
  }
  return violations;
}

/** Sign test on decimal text: no binary float involved. */
function isPositive(decimalText: string): boolean {
  return !decimalText.startsWith('-') && /[1-9]/.test(decimalText);
}
