/** The receipt enum tables: the shipped file, an admin's extension, and refusal of bad files. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ReceiptEnumsError, loadReceiptEnums, receiptEnumsFrom } from './enums';
import { testTempDir } from '../../test/support/temp-dir';

const SHIPPED = path.resolve(__dirname, '../../config/receipt-enums.yaml');

function shipped(): Record<string, Array<Record<string, unknown>>> {
  return parseYaml(readFileSync(SHIPPED, 'utf8')) as Record<string, Array<Record<string, unknown>>>;
}

describe('receipt enumerations', () => {
  it('loads the shipped file with the names the spec mentions', () => {
    const enums = loadReceiptEnums(SHIPPED);
    expect(enums.table('AWReceiptType').valueOf('SavingsDeposit')).toBe(0);
    expect(enums.table('AWReceiptType').valueOf('LoanRepayment')).toBeDefined();
    expect(enums.table('ProductTypes').valueOf('ShareSavings')).toBeDefined();
    expect(enums.table('LoanStatusReversalOptions').names).toEqual(['Approved', 'CancelApplication']);
    expect([...enums.adjustmentReceiptTypes].map((v) => enums.table('AWReceiptType').nameOf(v))).toEqual(['SavingsAdjustment', 'LoanAdjustment']);
  });

  it('matches names case-insensitively and answers unknown ones with undefined', () => {
    const table = loadReceiptEnums(SHIPPED).table('AWReceiptType');
    expect(table.valueOf('savingsdeposit')).toBe(0);
    expect(table.valueOf('SAVINGSDEPOSIT')).toBe(0);
    expect(table.valueOf('NoSuchType')).toBeUndefined();
    expect(table.nameOf(999)).toBeUndefined();
  });

  it('takes a value an admin adds to the file, with no code change', () => {
    const file = shipped();
    file.AWReceiptType?.push({ value: 42, name: 'DividendPayment', description: 'Dividend paid into savings' });
    const dir = testTempDir('receipt-enums-');
    const extended = path.join(dir, 'receipt-enums.yaml');
    writeFileSync(extended, stringifyYaml(file));
    const table = loadReceiptEnums(extended).table('AWReceiptType');
    expect(table.valueOf('DividendPayment')).toBe(42);
    expect(table.nameOf(42)).toBe('DividendPayment');
  });

  it('refuses a file whose names clash ignoring case, naming the key', () => {
    const file = shipped();
    file.ProductTypes?.push({ value: 77, name: 'sharesavings' });
    expect(() => receiptEnumsFrom(file)).toThrow(ReceiptEnumsError);
    expect(() => receiptEnumsFrom(file)).toThrow(/ProductTypes\.\d+\.name: name sharesavings is listed twice/);
  });

  it('refuses duplicate values, non-identifier names and adjustment flags outside AWReceiptType', () => {
    const file = shipped();
    file.LoanStatusReversalOptions?.push({ value: 0, name: 'Again' });
    file.ProductTypes?.push({ value: 99, name: 'Has space' });
    file.ProductTypes?.push({ value: 98, name: 'Odd', adjustment: true });
    let message = '';
    try {
      receiptEnumsFrom(file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/LoanStatusReversalOptions\.2\.value: value 0 is listed twice/);
    expect(message).toMatch(/ProductTypes\.\d+\.name: must be a \.NET identifier/);
    expect(message).toMatch(/ProductTypes\.\d+\.adjustment: only AWReceiptType entries mark adjustments/);
  });

  it('refuses a missing enumeration and an unreadable file', () => {
    const file = shipped();
    delete file.ProductTypes;
    expect(() => receiptEnumsFrom(file)).toThrow(/ProductTypes/);
    expect(() => loadReceiptEnums('/nonexistent/receipt-enums.yaml')).toThrow(/cannot read the receipt enumerations/);
  });
});
