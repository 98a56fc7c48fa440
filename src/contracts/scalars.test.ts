/** Scalar coercion: exact decimals within .NET bounds, 32-bit ints, XML booleans, dates, base64, XML-safe strings. */
import { LosslessNumber } from 'lossless-json';
import { Invalid, intKey, scalarFromJson, scalarFromXml } from './scalars';

function decimalText(value: unknown): string {
  if (value instanceof LosslessNumber) return value.value;
  throw new Error(`not a decimal: ${value instanceof Invalid ? value.message : String(value)}`);
}

describe('decimals', () => {
  it.each([
    ['0.10', '0.10'],
    ['1234567890123456789012.3456', '1234567890123456789012.3456'],
    ['+1.50', '1.50'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['5.', '5'],
    ['007.50', '7.50'],
    ['000', '0'],
    ['-0.00', '-0.00'],
    ['  12.0\n', '12.0'],
    ['0.1234567890123456789012345678', '0.1234567890123456789012345678'],
    ['79228162514264337593543950335', '79228162514264337593543950335'],
    ['7922816251426433759354395033.5', '7922816251426433759354395033.5'],
  ])('reads XML %j as the JSON number %s, scale kept', (xml, json) => {
    expect(decimalText(scalarFromXml('decimal', xml))).toBe(json);
  });

  it.each([
    ['1e5', 'no exponent'],
    ['1.2.3', 'decimal number'],
    ['.', 'decimal number'],
    ['abc', 'decimal number'],
    ['0.00000000000000000000000000001', 'at most 28 decimal places'],
    ['79228162514264337593543950336', 'too large'],
    ['-79228162514264337593543950336', 'too large'],
  ])('refuses XML %j (%s)', (xml, message) => {
    const value = scalarFromXml('decimal', xml);
    expect(value).toBeInstanceOf(Invalid);
    expect((value as Invalid).message).toContain(message);
  });

  it('keeps the JSON number text exactly, and refuses exponents and strings', () => {
    const written = new LosslessNumber('250.10');
    expect(scalarFromJson('decimal', written)).toBe(written);
    expect(scalarFromJson('decimal', new LosslessNumber('2.5e2'))).toBeInstanceOf(Invalid);
    expect(scalarFromJson('decimal', '250.10')).toBeInstanceOf(Invalid);
    expect(scalarFromJson('decimal', null)).toBeUndefined();
  });

  it('treats an empty XML element as no value', () => {
    expect(scalarFromXml('decimal', '')).toBeUndefined();
    expect(scalarFromXml('int', ' \n ')).toBeUndefined();
  });
});

describe('ints', () => {
  it.each([
    ['12', 12],
    ['+12', 12],
    ['-0', 0],
    ['007', 7],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
    ['00000000000000000001', 1],
  ])('reads XML %j as %d', (xml, n) => {
    expect(scalarFromXml('int', xml)).toBe(n);
  });

  it.each(['2147483648', '-2147483649', '1.0', '1e3', 'twelve', '+'])('refuses XML %j', (xml) => {
    expect(scalarFromXml('int', xml)).toBeInstanceOf(Invalid);
  });

  it('refuses JSON ints written with a fraction or exponent, and non-numbers', () => {
    expect(scalarFromJson('int', new LosslessNumber('5'))).toBe(5);
    expect(scalarFromJson('int', new LosslessNumber('5.0'))).toBeInstanceOf(Invalid);
    expect(scalarFromJson('int', new LosslessNumber('5e0'))).toBeInstanceOf(Invalid);
    expect(scalarFromJson('int', '5')).toBeInstanceOf(Invalid);
  });

  it('canonicalises int map keys', () => {
    expect(intKey('0040012')).toBe('40012');
    expect(intKey('-7')).toBe('-7');
    expect(intKey('x')).toBeInstanceOf(Invalid);
  });
});

describe('other scalars', () => {
  it('reads XML booleans as xs:boolean does and JSON booleans only as booleans', () => {
    expect(scalarFromXml('bool', 'true')).toBe(true);
    expect(scalarFromXml('bool', '0')).toBe(false);
    expect(scalarFromXml('bool', 'True')).toBeInstanceOf(Invalid);
    expect(scalarFromJson('bool', 'true')).toBeInstanceOf(Invalid);
  });

  it('keeps strings exactly, leading zeros and spaces included, and refuses characters XML cannot carry', () => {
    expect(scalarFromXml('string', ' 00012345 ')).toBe(' 00012345 ');
    expect(scalarFromJson('string', '00012345')).toBe('00012345');
    expect(scalarFromJson('string', 12345)).toBeInstanceOf(Invalid);
    expect(scalarFromJson('string', 'a\u0000b')).toBeInstanceOf(Invalid);
    expect(scalarFromJson('string', 'lone \ud800 surrogate')).toBeInstanceOf(Invalid);
    expect(scalarFromJson('string', 'emoji \u{1F600} ok')).toBe('emoji \u{1F600} ok');
  });

  it('checks dates and base64', () => {
    expect(scalarFromXml('datetime', '2024-05-02T10:15:00')).toBe('2024-05-02T10:15:00');
    expect(scalarFromJson('datetime', '2024-05-02T10:15:00.1234567+01:00')).toBe('2024-05-02T10:15:00.1234567+01:00');
    expect(scalarFromJson('datetime', '2024-13-02')).toBeInstanceOf(Invalid);
    expect(scalarFromXml('binary', 'AAAAAAAAB9E=')).toBe('AAAAAAAAB9E=');
    expect(scalarFromXml('binary', 'not base64!')).toBeInstanceOf(Invalid);
  });

  it('never repeats the value in a message', () => {
    const secret = 'hunter2-secret';
    for (const kind of ['int', 'decimal', 'bool', 'datetime', 'binary'] as const) {
      const value = scalarFromXml(kind, secret);
      expect(value).toBeInstanceOf(Invalid);
      expect((value as Invalid).message).not.toContain(secret);
    }
  });
});
