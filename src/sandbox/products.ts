/**
 * The credit union's products: the eight product shares (savings) and six loan products, the
 * loan reasons each loan product accepts, and the repayment periods.
 *
 * Reads nothing; returns fresh rows for the sandbox data. Rates are exact decimals written as
 * text; a loan's advertised Interest (APR) is computed from its monthly DefaultRate, so the two
 * always agree. Product share ids (1-8) and loan product ids (101-106) never overlap, so an
 * account's productId names one product whatever its productTypeId.
 */
import type Decimal from 'decimal.js';
import { ScaledDecimal } from './decimal';
import {
  CALCULATION_METHOD,
  DEBIT_CARD_TYPE,
  PRODUCT_SHARE_FIELDS,
  SAVINGS_TYPE,
  inSchemaOrder,
  type LoanProduct,
  type LoanReason,
  type ProductShare,
} from './model';
import { LOAN_REASONS } from './uk-reference';

/** loanrepaymentperiods Value; also the period ids of product shares. */
export const PERIOD = { Weekly: 1, Fortnightly: 2, FourWeekly: 3, Monthly: 4, Quarterly: 5, Annually: 6 } as const;
export const PERIOD_NAMES: ReadonlyArray<readonly [number, string]> = [
  [PERIOD.Weekly, 'Weekly'],
  [PERIOD.Fortnightly, 'Fortnightly'],
  [PERIOD.FourWeekly, 'Four-weekly'],
  [PERIOD.Monthly, 'Monthly'],
  [PERIOD.Quarterly, 'Quarterly'],
  [PERIOD.Annually, 'Annually'],
];

/** Product share ids; savings accounts' productId. */
export const SHARE = { Share: 1, Christmas: 2, Junior: 3, InstantAccess: 4, Isa: 5, Bond: 6, Payroll: 7, Holiday: 8 } as const;

/** Loan product ids, kept apart from product share ids so one productId never names both kinds. */
export const LOAN = { Personal: 101, Car: 102, HomeImprovement: 103, ShareSecured: 104, CreditBuilder: 105, Budget: 106 } as const;

/** An amount in pounds and pence. */
export const money = (pounds: number, pence = 0): ScaledDecimal => ScaledDecimal.fromMinorUnits(pounds * 100 + pence);
/** A rate or percentage, written with the scale it is to keep. */
export const rate = (text: string): ScaledDecimal => ScaledDecimal.parse(text);
export const ZERO = ScaledDecimal.zero();

/** Percent to a fraction, exactly: 1.50 → 0.015. */
export function fraction(percent: ScaledDecimal): Decimal {
  return percent.value.dividedBy(100);
}

const PRODUCT_SHARE_NAMES: Readonly<Record<number, { code: string; description: string }>> = {
  [SHARE.Share]: { code: 'SHR', description: 'Share Account' },
  [SHARE.Christmas]: { code: 'XMS', description: 'Christmas Saver' },
  [SHARE.Junior]: { code: 'JNR', description: 'Junior Saver' },
  [SHARE.InstantAccess]: { code: 'IAS', description: 'Instant Access Saver' },
  [SHARE.Isa]: { code: 'ISA', description: 'Cash ISA' },
  [SHARE.Bond]: { code: 'FTB12', description: '12-Month Fixed Term Bond' },
  [SHARE.Payroll]: { code: 'PAY', description: 'Payroll Saver' },
  [SHARE.Holiday]: { code: 'HOL', description: 'Holiday Saver' },
};

/** The code and description a savings account of this product carries. */
export function productShareName(productId: number): { code: string; description: string } {
  const name = PRODUCT_SHARE_NAMES[productId];
  if (!name) throw new Error(`no name for product share ${productId}`);
  return name;
}

export function loanProductRows(): LoanProduct[] {
  const product = (
    Id: number,
    Code: string,
    Description: string,
    monthlyRate: string,
    cheque: readonly [number, number],
    term: readonly [number, number],
    age: readonly [number, number],
  ): LoanProduct => {
    const DefaultRate = rate(monthlyRate);
    // The APR the monthly rate compounds to, as the loan's advertised Interest.
    const apr = fraction(DefaultRate).plus(1).pow(12).minus(1).times(100);
    return {
      Id,
      Description,
      Code,
      Interest: ScaledDecimal.of(apr, 2),
      MinimumChequeAmount: money(cheque[0]),
      MaximumChequeAmount: money(cheque[1]),
      MinimumBalance: ZERO,
      MaximumBalance: money(cheque[1]),
      MinimumTerm: term[0],
      MaximumTerm: term[1],
      DefaultRate,
      MinimumAge: age[0],
      MaximumAge: age[1],
    };
  };
  return [
    product(LOAN.Personal, 'PL', 'Personal Loan', '1.0000', [500, 15000], [6, 60], [18, 85]),
    product(LOAN.Car, 'CAR', 'Car Loan', '0.7500', [1000, 25000], [12, 60], [18, 80]),
    product(LOAN.HomeImprovement, 'HIL', 'Home Improvement Loan', '0.8000', [1000, 20000], [12, 84], [18, 80]),
    product(LOAN.ShareSecured, 'SSL', 'Share-Secured Loan', '0.4000', [250, 10000], [6, 36], [18, 99]),
    product(LOAN.CreditBuilder, 'CBL', 'Credit Builder Loan', '2.0000', [100, 1000], [3, 12], [18, 99]),
    product(LOAN.Budget, 'BUD', 'Budget Loan', '1.5000', [200, 1500], [3, 12], [18, 99]),
  ];
}

/** Which loan reasons (by code) each loan product accepts. */
const LOAN_PRODUCT_REASON_CODES: Readonly<Record<number, readonly string[]>> = {
  [LOAN.Personal]: ['CAR', 'CARREP', 'HOME', 'CONS', 'HOL', 'WED', 'EDU', 'FURN', 'MED', 'FUNER', 'MOVE'],
  [LOAN.Car]: ['CAR', 'CARREP'],
  [LOAN.HomeImprovement]: ['HOME', 'FURN', 'MOVE'],
  [LOAN.ShareSecured]: LOAN_REASONS.map(([code]) => code),
  [LOAN.CreditBuilder]: ['CARREP', 'FURN', 'XMAS', 'MED', 'MOVE', 'EDU'],
  [LOAN.Budget]: ['XMAS', 'HOL', 'FURN', 'CARREP', 'FUNER', 'MED'],
};

/** Loan product Id → the Ids of the loan reasons it accepts. */
export function loanProductReasonLinks(reasons: readonly LoanReason[]): Map<number, number[]> {
  const idByCode = new Map(reasons.map((r) => [r.Code, r.Id]));
  return new Map(
    Object.entries(LOAN_PRODUCT_REASON_CODES).map(([productId, codes]) => [
      Number(productId),
      codes.map((code) => {
        const id = idByCode.get(code);
        if (id === undefined) throw new Error(`unknown loan reason ${code}`);
        return id;
      }),
    ]),
  );
}

export function productShareRows(): ProductShare[] {
  const { Share, Christmas, Junior, InstantAccess, Isa, Bond, Payroll, Holiday } = SHARE;
  const base = {
    RequiredPaymentPeriodID: PERIOD.Monthly,
    EarlyCloseFeeID: 0,
    InterestPaymentPeriodID: PERIOD.Annually,
    CalculationPeriodID: PERIOD.Monthly,
    vendorConnectDestWithFeeID: 0,
    vendorConnectDestDepFeeID: 0,
    MinimumMemberAge: 16,
    MaximumMemberAge: 120,
    TermMin: 0,
    TermMax: 0,
    RequiredPaymentPeriodNumber: 1,
    RolloverProductID: 0,
    InterestPaymentPeriodNumber: 1,
    CalculationMethod: CALCULATION_METHOD.DailyBalance.value,
    CalculationPeriodNumber: 1,
    DayCount: 365,
    MinimumInterestAge: 0,
    MaximumInterestAge: 120,
    LockedLoanProductID: 0,
    DebitCardType: DEBIT_CARD_TYPE.None.value,
    MinimumBalance: ZERO,
    MaximumBalance: money(85000),
    RequiredPaymentMinimum: ZERO,
    RequiredPaymentMaximum: ZERO,
    EarlyClosePenalty: ZERO,
    TaxRate: rate('0.00'),
    MinInterestBalance: money(1),
    MaxInterestBalance: money(85000),
    ATMCardLimit: ZERO,
    ATMDailyLimit: ZERO,
    ISAYearlyLimit: ZERO,
    PercentageLocked: rate('0.00'),
    vendorConnectReceiptLimit: money(2500),
    vendorConnectDailyLimit: money(5000),
    SCV_ProductShare: 'Y',
    InterestTransactionMessage: 'Interest',
    InterestNextPaymentDate: '2025-12-31',
    CalculationStartDate: '2025-01-01',
    DeferredShares: false,
    ExcludeFromNetSavings: false,
    TermDeposit: false,
    Annuity: false,
    NonWorkDayForward: true,
    PaidOnMaturity: false,
    CalculationEndDate: false,
    ClearedBalanceNetOfGuarantees: true,
    ATMEnabled: false,
    ISAProduct: false,
    AllowAutoWithdrawal: false,
    AddReceipt: true,
  } as const;
  const product = (
    ProductId: number,
    SavingsType: number,
    InterestRate: string,
    balance: readonly [number, number],
    ages: readonly [number, number],
    overrides: Partial<ProductShare>,
  ): ProductShare => {
    const name = productShareName(ProductId).description;
    return inSchemaOrder(PRODUCT_SHARE_FIELDS, {
      ProductId,
      ...base,
      SavingsType,
      MinimumMemberAge: ages[0],
      MaximumMemberAge: ages[1],
      MinimumBalance: money(balance[0]),
      MaximumBalance: money(balance[1]),
      InterestRate: rate(InterestRate),
      ErrorBalanceRange: `The balance of a ${name} must be between £${balance[0].toLocaleString('en-GB')}.00 and £${balance[1].toLocaleString('en-GB')}.00.`,
      ErrorAgeRange: `A ${name} is for members aged ${ages[0]} to ${ages[1]}.`,
      ...overrides,
    });
  };
  const club = {
    RequiredPaymentMinimum: money(5),
    RequiredPaymentMaximum: money(500),
    AllowAutoWithdrawal: true,
    vendorConnectReceiptLimit: money(500),
    vendorConnectDailyLimit: money(1000),
  };
  return [
    product(Share, SAVINGS_TYPE.Shares.value, '1.50', [1, 85000], [16, 120], {
      CalculationMethod: CALCULATION_METHOD.Declared.value,
      PercentageLocked: rate('10.00'),
      InterestTransactionMessage: 'Dividend',
    }),
    product(Christmas, SAVINGS_TYPE.Club.value, '0.75', [0, 5000], [16, 120], club),
    product(Junior, SAVINGS_TYPE.Junior.value, '2.00', [0, 10000], [0, 17], {
      vendorConnectReceiptLimit: money(250),
      vendorConnectDailyLimit: money(500),
    }),
    product(InstantAccess, SAVINGS_TYPE.InstantAccess.value, '2.25', [0, 85000], [16, 120], {
      ATMEnabled: true,
      DebitCardType: DEBIT_CARD_TYPE.PrepaidDebit.value,
      ATMCardLimit: money(500),
      ATMDailyLimit: money(250),
    }),
    product(Isa, SAVINGS_TYPE.Isa.value, '3.10', [1, 85000], [16, 120], {
      ISAProduct: true,
      ISAYearlyLimit: money(20000),
      vendorConnectReceiptLimit: money(20000),
      vendorConnectDailyLimit: money(20000),
    }),
    product(Bond, SAVINGS_TYPE.FixedTerm.value, '4.10', [500, 50000], [18, 120], {
      TermDeposit: true,
      PaidOnMaturity: true,
      TermMin: 12,
      TermMax: 12,
      RolloverProductID: InstantAccess,
      EarlyCloseFeeID: 4,
      EarlyClosePenalty: money(25),
      CalculationEndDate: true,
      InterestPaymentPeriodID: PERIOD.Monthly,
      InterestPaymentPeriodNumber: 12,
      ExcludeFromNetSavings: true,
      vendorConnectReceiptLimit: money(50000),
      vendorConnectDailyLimit: money(50000),
    }),
    product(Payroll, SAVINGS_TYPE.InstantAccess.value, '2.50', [0, 85000], [16, 120], {
      RequiredPaymentMinimum: money(10),
      RequiredPaymentMaximum: money(1000),
      vendorConnectDestDepFeeID: 2,
    }),
    product(Holiday, SAVINGS_TYPE.Club.value, '0.75', [0, 5000], [16, 120], club),
  ];
}
