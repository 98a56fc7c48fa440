/**
 * Exact decimals that remember their scale: the sandbox core's money and rates.
 *
 * Reads nothing; exports ScaledDecimal. A .NET core writes the decimal 1234.50 as `1234.50`,
 * so the scale is part of what a vendor sees; decimal.js drops trailing zeros, hence a value
 * here carries its scale beside the decimal.js number. Addition and subtraction keep the
 * larger scale, as .NET decimal does; anything that could need rounding names its scale.
 * Bounds are those of .NET decimal (scale at most 28, magnitude below 2^96), so whatever the
 * sandbox accepts the real core could hold.
 */
import Decimal from 'decimal.js';

/** A private decimal.js constructor: enough precision for any .NET decimal, banker's rounding like .NET. */
const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });

const DECIMAL_TEXT = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const MAX_SCALE = 28;
const MAX_EXPONENT_DIGITS = 3;
const NET_DECIMAL_LIMIT = new Exact('79228162514264337593543950336');

export class ScaledDecimal {
  /** Written once, on first use: lists print the same values many times. */
  private text: string | undefined;

  private constructor(
    readonly value: Decimal,
    readonly scale: number,
  ) {}

  /** Parses JSON-number text (`12.50`, `-3`, `1.5e2`); throws RangeError when it is not one or .NET decimal could not hold it. */
  static parse(text: string): ScaledDecimal {
    const match = DECIMAL_TEXT.exec(text);
    if (!match) throw new RangeError(`not a decimal number: ${text}`);
    const fraction = match[2] ?? '';
    const exponentText = match[3] ?? '0';
    if (exponentText.replace(/^[+-]/, '').length > MAX_EXPONENT_DIGITS) throw new RangeError('exponent out of range');
    const scale = Math.max(0, fraction.length - Number(exponentText));
    return ScaledDecimal.checked(new Exact(text), scale);
  }

  /** The value rounded (half to even) to `scale` places. */
  static of(value: Decimal.Value, scale: number): ScaledDecimal {
    return ScaledDecimal.checked(new Exact(value).toDecimalPlaces(scale), scale);
  }

  /** An amount given in minor units: `fromMinorUnits(123450)` is 1234.50. */
  static fromMinorUnits(units: number, scale = 2): ScaledDecimal {
    if (!Number.isSafeInteger(units)) throw new RangeError(`minor units must be a safe integer: ${units}`);
    return ScaledDecimal.checked(new Exact(units).dividedBy(new Exact(10).pow(scale)), scale);
  }

  static zero(scale = 2): ScaledDecimal {
    return new ScaledDecimal(new Exact(0), scale);
  }

  private static checked(value: Decimal, scale: number): ScaledDecimal {
    if (scale > MAX_SCALE) throw new RangeError(`scale ${scale} exceeds ${MAX_SCALE}`);
    if (value.abs().greaterThanOrEqualTo(NET_DECIMAL_LIMIT)) throw new RangeError('magnitude exceeds a .NET decimal');
    // Negative zero would print as "-0.00".
    return new ScaledDecimal(value.isZero() ? new Exact(0) : value, scale);
  }

  plus(other: ScaledDecimal): ScaledDecimal {
    return ScaledDecimal.checked(this.value.plus(other.value), Math.max(this.scale, other.scale));
  }

  minus(other: ScaledDecimal): ScaledDecimal {
    return ScaledDecimal.checked(this.value.minus(other.value), Math.max(this.scale, other.scale));
  }

  /** The product rounded (half to even) to `scale` places. */
  times(factor: ScaledDecimal | Decimal.Value, scale: number): ScaledDecimal {
    const f = factor instanceof ScaledDecimal ? factor.value : factor;
    return ScaledDecimal.checked(this.value.times(f).toDecimalPlaces(scale), scale);
  }

  /** Numeric order; scale does not count (1.5 equals 1.50). */
  compare(other: ScaledDecimal): number {
    return this.value.comparedTo(other.value);
  }

  /** The same amount without its sign, at the same scale. */
  abs(): ScaledDecimal {
    return new ScaledDecimal(this.value.abs(), this.scale);
  }

  isZero(): boolean {
    return this.value.isZero();
  }

  /** Plain notation with exactly `scale` places: the form the JSON writer emits. */
  toString(): string {
    this.text ??= this.value.toFixed(this.scale);
    return this.text;
  }
}
