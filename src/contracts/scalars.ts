/**
 * Scalar types of the DTO schemas: reading them from JSON values (numbers already kept as
 * their source text by lossless-json) and from XML text, checking them, and giving the
 * canonical value the core receives.
 *
 * Reads nothing; pure functions. Decimals never become binary floats: their text is checked
 * against .NET decimal's bounds digit by digit and passed on as written (XML text is only
 * brought to JSON number syntax: `+1.50` → `1.50`, `.5` → `0.5`, `007` → `7`; the scale is kept).
 * Messages never repeat the value, which may be a secret.
 */
import { LosslessNumber, isLosslessNumber } from 'lossless-json';
import type { ScalarKind } from './dto-schema';

/** A value that failed its type; the message completes "<field> …". */
export class Invalid {
  constructor(readonly message: string) {}
}

/** XML 1.0's Char production: anything else cannot travel in XML, so no field may hold it. */
const NON_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
/** The same without surrogate pairs: a cheap first test that plain text passes. */
const NON_BMP_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/;
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,7})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** XML Schema's whitespace: what xs:int, xs:decimal, xs:boolean ignore around a value. */
const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function isXmlSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function collapse(value: string): string {
  return value.length > 0 && (isXmlSpace(value.charCodeAt(0)) || isXmlSpace(value.charCodeAt(value.length - 1))) ? value.replace(XML_SPACE, '') : value;
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const MAX_SCALE = 28;
/** 2^96 − 1: the largest mantissa of a .NET decimal. */
const MAX_MANTISSA = '79228162514264337593543950335';

const NOT_INT = new Invalid('must be a whole number from -2147483648 to 2147483647');
const NOT_DECIMAL = new Invalid('must be a decimal number such as 10.50 (no exponent)');
const NOT_BOOL_JSON = new Invalid('must be true or false');
const NOT_BOOL_XML = new Invalid('must be true, false, 1 or 0');
const NOT_STRING = new Invalid('must be a string');
const NOT_DATE_TIME = new Invalid('must be an ISO 8601 date or date-time such as 2024-05-01T09:30:00');
const NOT_BASE64 = new Invalid('must be base64 text');
const BAD_CHARACTER = new Invalid('contains a character that XML cannot carry');

function checkedString(value: string): string | Invalid {
  return NON_BMP_XML_CHAR.test(value) && NON_XML_CHAR.test(value) ? BAD_CHARACTER : value;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** `[+-]?digits` (a plus sign only from XML) as a .NET int. */
function intFromText(text: string, plusAllowed: boolean): number | Invalid {
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === 0x2d;
  if (negative || (plusAllowed && first === 0x2b)) i = 1;
  if (i === text.length) return NOT_INT;
  while (i < text.length - 1 && text.charCodeAt(i) === 0x30) i++;
  if (text.length - i > 10) return NOT_INT;
  let n = 0;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return NOT_INT;
    n = n * 10 + (code - 0x30);
  }
  if (negative) n = -n;
  // `|| 0` turns -0 into 0.
  return n < INT_MIN || n > INT_MAX ? NOT_INT : n || 0;
}

/**
 * `[-]digits[.digits]` (from XML also `+`, `.5`, `5.`) checked against .NET decimal's bounds:
 * at most 28 decimal places and a mantissa below 2^96. Returns JSON-number text with the
 * scale kept: the input string itself when it already is one.
 */
function decimalFromText(text: string, fromXml: boolean): LosslessNumber | Invalid {
  let i = 0;
  const first = text.charCodeAt(0);
  const negative = first === 0x2d;
  if (negative || (fromXml && first === 0x2b)) i = 1;
  const wholeStart = i;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  const wholeEnd = i;
  let fractionStart = i;
  if (i < text.length && text.charCodeAt(i) === 0x2e) {
    fractionStart = ++i;
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  }
  const fractionEnd = i;
  if (i !== text.length || (wholeEnd === wholeStart && fractionEnd === fractionStart)) return NOT_DECIMAL;
  if (!fromXml && fractionEnd === fractionStart && fractionStart !== wholeEnd) return NOT_DECIMAL;
  if (fractionEnd - fractionStart > MAX_SCALE) return new Invalid(`must have at most ${MAX_SCALE} decimal places`);
  let significant = wholeStart;
  while (significant < wholeEnd && text.charCodeAt(significant) === 0x30) significant++;
  let mantissaDigits = wholeEnd - significant + (fractionEnd - fractionStart);
  if (significant === wholeEnd) {
    // Only a fraction: its leading zeros are not significant either.
    let f = fractionStart;
    while (f < fractionEnd && text.charCodeAt(f) === 0x30) f++;
    mantissaDigits = fractionEnd - f;
  }
  if (mantissaDigits >= MAX_MANTISSA.length) {
    const mantissa = (text.slice(wholeStart, wholeEnd) + text.slice(fractionStart, fractionEnd)).replace(/^0+/, '');
    if (mantissa.length > MAX_MANTISSA.length || (mantissa.length === MAX_MANTISSA.length && mantissa > MAX_MANTISSA)) {
      return new Invalid('is too large for a decimal');
    }
  }
  const canonicalWholeStart = significant === wholeEnd ? Math.max(wholeStart, wholeEnd - 1) : significant;
  const isCanonical =
    first !== 0x2b && canonicalWholeStart === wholeStart && wholeEnd > wholeStart && !(fractionStart > wholeEnd && fractionEnd === fractionStart);
  if (isCanonical) return new LosslessNumber(text);
  const whole = wholeEnd > canonicalWholeStart ? text.slice(canonicalWholeStart, wholeEnd) : '0';
  const fraction = text.slice(fractionStart, fractionEnd);
  return new LosslessNumber(`${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`);
}

/** A JSON value (from lossless-json) as a scalar of `kind`; undefined for null (absent). */
export function scalarFromJson(kind: ScalarKind, raw: unknown): unknown {
  if (raw === null) return undefined;
  switch (kind) {
    case 'string':
      return typeof raw === 'string' ? checkedString(raw) : NOT_STRING;
    case 'int':
      return isLosslessNumber(raw) ? intFromText(raw.value, false) : NOT_INT;
    case 'decimal': {
      if (!isLosslessNumber(raw)) return NOT_DECIMAL;
      const checked = decimalFromText(raw.value, false);
      // JSON number syntax already is canonical: keep lossless-json's instance.
      return checked instanceof Invalid ? checked : raw;
    }
    case 'bool':
      return typeof raw === 'boolean' ? raw : NOT_BOOL_JSON;
    case 'datetime':
      return typeof raw !== 'string' ? NOT_STRING : DATE_TIME.test(raw) ? raw : NOT_DATE_TIME;
    case 'binary':
      return typeof raw !== 'string' ? NOT_STRING : BASE64.test(raw) ? raw : NOT_BASE64;
  }
}

/**
 * XML text (entities already decoded) as a scalar of `kind`. Strings keep every character;
 * other types ignore surrounding whitespace, and an empty element stands for no value (for
 * binary: no bytes).
 */
export function scalarFromXml(kind: ScalarKind, textValue: string): unknown {
  if (kind === 'string') return checkedString(textValue);
  const trimmed = collapse(textValue);
  // An empty byte array is an empty element; for the other types an empty element is no value.
  if (trimmed === '') return kind === 'binary' ? '' : undefined;
  switch (kind) {
    case 'int':
      return intFromText(trimmed, true);
    case 'decimal':
      return decimalFromText(trimmed, true);
    case 'bool':
      if (trimmed === 'true' || trimmed === '1') return true;
      if (trimmed === 'false' || trimmed === '0') return false;
      return NOT_BOOL_XML;
    case 'datetime':
      return DATE_TIME.test(trimmed) ? trimmed : NOT_DATE_TIME;
    case 'binary':
      return BASE64.test(trimmed) ? trimmed : NOT_BASE64;
  }
}

/** An int → int map key: JSON's numeric-string key or XML's <Key> text; canonical decimal text. */
export function intKey(textValue: string): string | Invalid {
  const n = intFromText(collapse(textValue), true);
  return n instanceof Invalid ? n : String(n);
}

export function xmlIntValue(textValue: string): number | Invalid {
  const trimmed = collapse(textValue);
  return trimmed === '' ? NOT_INT : intFromText(trimmed, true);
}

export function jsonIntValue(raw: unknown): number | Invalid {
  return isLosslessNumber(raw) ? intFromText(raw.value, false) : NOT_INT;
}
