import { ScaledDecimal } from './decimal';

describe('ScaledDecimal', () => {
  it('keeps the scale it was written with', () => {
    expect(ScaledDecimal.parse('1234.50').toString()).toBe('1234.50');
    expect(ScaledDecimal.parse('7').toString()).toBe('7');
    expect(ScaledDecimal.parse('1.5e1').toString()).toBe('15');
    expect(ScaledDecimal.parse('1.25e-2').toString()).toBe('0.0125');
    expect(ScaledDecimal.parse('-0.00').toString()).toBe('0.00');
  });

  it('adds exactly, keeping the larger scale', () => {
    const sum = ScaledDecimal.parse('0.10').plus(ScaledDecimal.parse('0.2'));
    expect(sum.toString()).toBe('0.30');
    expect(ScaledDecimal.parse('1.005').minus(ScaledDecimal.parse('0.005')).toString()).toBe('1.000');
  });

  it('rounds products half to even at the scale asked for', () => {
    expect(ScaledDecimal.parse('10.25').times('0.5', 2).toString()).toBe('5.12');
    expect(ScaledDecimal.parse('10.35').times('0.5', 2).toString()).toBe('5.18');
  });

  it('builds amounts from minor units without floating point', () => {
    expect(ScaledDecimal.fromMinorUnits(123450).toString()).toBe('1234.50');
    expect(ScaledDecimal.fromMinorUnits(-5).toString()).toBe('-0.05');
  });

  it('compares by value, not by scale', () => {
    expect(ScaledDecimal.parse('1.5').compare(ScaledDecimal.parse('1.50'))).toBe(0);
    expect(ScaledDecimal.parse('-2').compare(ScaledDecimal.parse('1'))).toBe(-1);
  });

  it('holds 28 significant digits and refuses what a .NET decimal could not', () => {
    expect(ScaledDecimal.parse('1234567890123456789012345.678').toString()).toBe('1234567890123456789012345.678');
    expect(() => ScaledDecimal.parse('1e29')).toThrow(RangeError);
    expect(() => ScaledDecimal.parse('0.00000000000000000000000000001')).toThrow(RangeError);
    expect(() => ScaledDecimal.parse('1e99999')).toThrow(RangeError);
    expect(() => ScaledDecimal.parse('12,5')).toThrow(RangeError);
  });
});
