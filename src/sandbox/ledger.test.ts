/**
 * The receipt ledger on its own, with a clock the test sets: the daily limit counts one
 * calendar day, a dormant account wakes on a deposit, and supervisors' passwords are held
 * only as hashes.
 */
import { createSandboxData, type SandboxData } from './data';
import { ScaledDecimal } from './decimal';
import { ReceiptLedger, type CreditInstruction } from './ledger';
import { authorisingSupervisor } from './receipt-records';
import { ACCOUNT_STATUS, PRODUCT_TYPE } from './model';

const credit = (accountId: number, amount: string): CreditInstruction => ({
  accountId,
  accountNumber: null,
  amount: ScaledDecimal.parse(amount),
  externalRefNo: null,
  overrideUserName: null,
  overridePassword: null,
});

function ledgerAt(data: SandboxData, clock: { now: Date }): ReceiptLedger {
  return new ReceiptLedger(data, () => clock.now);
}

describe('receipt ledger', () => {
  it("counts the daily limit per calendar day: yesterday's receipts do not count today", () => {
    const data = createSandboxData(42);
    const account = data.accounts.list().find((a) => a.productId === 1 && a.status === ACCOUNT_STATUS.Open.value)!;
    const clock = { now: new Date('2025-07-01T23:59:00Z') };
    const ledger = ledgerAt(data, clock);
    expect(ledger.credit('deposit', credit(account.id, '2500.00')).kind).toBe('posted');
    expect(ledger.credit('deposit', credit(account.id, '2500.00')).kind).toBe('posted');
    const over = ledger.credit('deposit', credit(account.id, '0.01'));
    expect(over).toMatchObject({ kind: 'override_required', override: { type: 'DailyLimit' } });
    clock.now = new Date('2025-07-02T00:00:30Z');
    expect(ledger.credit('deposit', credit(account.id, '2500.00')).kind).toBe('posted');
    expect(data.transactions.where('account', account.id).at(-1)?.ValueDate).toBe('2025-07-02T00:00:30');
  });

  it('wakes a dormant account with a deposit and stores the amount at pence scale', () => {
    const data = createSandboxData(42);
    const dormant = data.accounts.list().find((a) => a.status === ACCOUNT_STATUS.Dormant.value && a.productTypeId === PRODUCT_TYPE.ShareSavings.value)!;
    const before = dormant.balance;
    const result = ledgerAt(data, { now: new Date('2025-07-01T10:00:00Z') }).credit('payment', credit(dormant.id, '10.000'));
    expect(result.kind).toBe('posted');
    expect(dormant.status).toBe(ACCOUNT_STATUS.Open.value);
    expect(dormant.balance.toString()).toBe(before.plus(ScaledDecimal.parse('10.00')).toString());
    expect(data.transactions.where('account', dormant.id).at(-1)?.Amount.toString()).toBe('10.00');
  });

  it('keeps supervisors as hashes only, and matches user names in any case', () => {
    const data = createSandboxData(42);
    expect(JSON.stringify(data.supervisors.list())).not.toContain('Sandbox-Override-2025');
    expect(authorisingSupervisor(data.supervisors, 'SUPERVISOR', 'Sandbox-Override-2025')?.userName).toBe('supervisor');
    expect(authorisingSupervisor(data.supervisors, 'branchmanager', 'Branch-Manager-2025')?.userId).toBe(9002);
    expect(authorisingSupervisor(data.supervisors, 'branchmanager', 'Sandbox-Override-2025')).toBeNull();
    expect(authorisingSupervisor(data.supervisors, 'supervisor', 'sandbox-override-2025')).toBeNull();
  });
});
