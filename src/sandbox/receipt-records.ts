/**
 * The receipt ledger's records and code tables: receipts posted through it, the supervisors who
 * may authorise an override (passwords as scrypt hashes only; the sandbox's published
 * credentials are in docs/vendor-guide.md), and the codes receipts answer with. Kept apart from the
 * ledger so that the sandbox data can hold these tables without importing the ledger.
 *
 * Reads nothing; the tables are created empty (receipts) or seeded (supervisors).
 */
import { scryptSync, timingSafeEqual } from 'node:crypto';
import type { ScaledDecimal } from './decimal';
import type { CodeTable } from './model';
import { Table } from './table';

/** loanReversalOption (LoanStatusReversalOptions): what becomes of a loan whose issue is reversed. */
export const LOAN_REVERSAL_OPTION = {
  Approved: { value: 0, meaning: 'the loan goes back to approved, not issued (account status Approved), and may be issued again' },
  CancelApplication: { value: 1, meaning: 'the loan application is cancelled and the account closed' },
} as const satisfies CodeTable;

/** TransactionOverrideDto.overrideType: why a receipt needs a supervisor. */
export const OVERRIDE_TYPE = {
  ReceiptLimit: { value: 1, meaning: "the amount is above the product share's vendorConnectReceiptLimit" },
  DailyLimit: { value: 2, meaning: "the day's receipts on the account would go above the product share's vendorConnectDailyLimit" },
  Rehearsal: { value: 3, meaning: 'the vendor asked to rehearse an override (externalRefNo starting SANDBOX-OVERRIDE)' },
} as const satisfies CodeTable;

export type OverrideTypeName = keyof typeof OVERRIDE_TYPE;

/**
 * AWReceiptType values the sandbox acts on (config/receipt-enums.yaml marks them `adjustment`):
 * a correction of an earlier savings or loan receipt, named by its ReceiptNo.
 */
export const ADJUSTMENT_RECEIPT_TYPE = {
  SavingsAdjustment: { value: 4, meaning: 'correction of an earlier savings receipt' },
  LoanAdjustment: { value: 5, meaning: 'correction of an earlier loan receipt' },
} as const satisfies CodeTable;

/** Savings credits arrive as one of two operations; they differ only in the receipt they answer with. */
export type CreditKind = 'deposit' | 'payment';

export interface Supervisor {
  readonly userId: number;
  readonly userName: string;
  /** `scrypt$N$r$p$<salt base64>$<hash base64>`: the password itself is stored nowhere. */
  readonly passwordHash: string;
}

/** The sandbox's supervisors; their passwords are published in docs/vendor-guide.md (sandbox only). */
const SEEDED_SUPERVISORS: readonly Supervisor[] = [
  { userId: 9001, userName: 'supervisor', passwordHash: 'scrypt$4096$8$1$D8mA5efMjVWTah8t9IfR6Q==$oaKr6Ronj4ULJq8JSwOaM7TZx9YtC6wIj0SEQTwUZ6I=' },
  { userId: 9002, userName: 'branchmanager', passwordHash: 'scrypt$4096$8$1$p0AODTjlql+Cypz9EvN6JQ==$qfS/VTnmKYFhjEitrxFzzBU2ubu8ZWYuxvxFq5BqB0k=' },
];

/** Checked against when the user name is unknown; no password hashes to it. */
const UNKNOWN_USER_HASH = 'scrypt$4096$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** One receipt posted through the ledger (seeded history has none). */
export interface PostedReceipt {
  /** Also the ReceiptNumber of its transaction line. */
  readonly receiptNo: number;
  readonly accountId: number;
  readonly kind: CreditKind | 'reversal' | 'adjustment';
  /** An adjustment's correction of its receipt, signed; every other kind's amount is positive. */
  readonly amount: ScaledDecimal;
  readonly valueDate: string;
  readonly externalRefNo: string | null;
  /** A reversal's loan issue receipt; null otherwise. */
  readonly reverses: number | null;
  /** An adjustment's receipt (the one it corrects); null otherwise. */
  readonly adjusts: number | null;
  /** The supervisor who authorised an override, if one was needed. */
  readonly authorisedBy: string | null;
}

/** The sandbox data's table of receipts posted through the ledger, by account; empty at first. */
export function createReceiptTable(): Table<PostedReceipt, 'account'> {
  return new Table<PostedReceipt, 'account'>((r) => r.receiptNo, { account: (r) => r.accountId });
}

/** The sandbox data's supervisors, by userId. */
export function createSupervisorTable(): Table<Supervisor> {
  return new Table<Supervisor>((s) => s.userId, {}, SEEDED_SUPERVISORS);
}

/** The supervisor these credentials belong to, or null. User names are case-insensitive. */
export function authorisingSupervisor(supervisors: Table<Supervisor>, userName: string, password: string): Supervisor | null {
  const supervisor = supervisors.list().find((s) => s.userName.toLowerCase() === userName.toLowerCase());
  // An unknown name costs a hash too, so timing does not tell which names exist.
  const matches = passwordMatches(supervisor?.passwordHash ?? UNKNOWN_USER_HASH, password);
  return supervisor && matches ? supervisor : null;
}

function passwordMatches(stored: string, password: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = scryptSync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}
