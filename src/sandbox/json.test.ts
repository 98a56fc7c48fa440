import fc from 'fast-check';
import { ScaledDecimal } from './decimal';
import { JsonNumber, JsonSyntaxError, parseJson, writeJson, type JsonValue } from './json';

/** The parsed value with numbers as doubles: what JSON.parse would have returned. */
function asPlain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map(asPlain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asPlain(v)]));
  return value;
}

describe('parseJson', () => {
  it('agrees with JSON.parse on any JSON text', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(asPlain(parseJson(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the source text of numbers, so 0.10 and 28 significant digits survive', () => {
    const parsed = parseJson('{"a": 0.10, "b": 1234567890123456789012345.678, "c": -1e3}') as Record<string, JsonNumber>;
    expect(parsed.a?.text).toBe('0.10');
    expect(parsed.b?.text).toBe('1234567890123456789012345.678');
    expect(parsed.c?.text).toBe('-1e3');
  });

  it('treats __proto__ as an ordinary key', () => {
    const parsed = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(['', '{', '{"a":}', '[1,]', '01', '1.', '"\u0001"', '{"a":1} x', 'NaN', "{'a':1}", '"\\x"'])('rejects %j', (text) => {
    expect(() => parseJson(text)).toThrow(JsonSyntaxError);
  });

  it('rejects nesting deep enough to threaten the stack', () => {
    expect(() => parseJson('['.repeat(10_000) + ']'.repeat(10_000))).toThrow(/nested too deeply/);
  });
});

describe('writeJson', () => {
  it('writes decimals as raw numbers with their scale', () => {
    expect(writeJson({ a: ScaledDecimal.parse('1234.50'), b: [ScaledDecimal.parse('0.10')] })).toBe('{"a":1234.50,"b":[0.10]}');
  });

  it('agrees with JSON.stringify on plain data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(writeJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves out undefined properties and refuses values JSON cannot hold', () => {
    expect(writeJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(() => writeJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => writeJson({ a: new Date(0) })).toThrow(TypeError);
  });
});
