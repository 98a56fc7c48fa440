/**
 * JSON in and out without binary floating point: the sandbox core's wire format.
 *
 * Reads request-body text; returns parsed values whose numbers keep their source text
 * (JsonNumber), and writes values to JSON text with ScaledDecimal emitted as a raw number
 * with its scale (`1234.50`). Node 20's JSON.parse and JSON.stringify cannot do either: the
 * parser would turn `0.10` into a double, the writer would print a decimal as a string.
 */
import { ScaledDecimal } from './decimal';

/** A JSON number as written in the source; the reader decides whether it is an int or a decimal. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
  }
}

/** Deep enough for any record; keeps a hostile body from exhausting the stack. */
const MAX_DEPTH = 64;
const NUMBER_TEXT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Strict RFC 8259 parsing; objects have no prototype, so a `__proto__` key is just a key. */
export function parseJson(text: string): JsonValue {
  let pos = 0;

  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, pos);
  };
  const skipWhitespace = (): void => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      pos++;
    }
  };
  const readLiteral = <T extends JsonValue>(literal: string, value: T): T => {
    if (!text.startsWith(literal, pos)) fail('unexpected token');
    pos += literal.length;
    return value;
  };

  const readString = (): string => {
    pos++;
    let out = '';
    let runStart = pos;
    for (;;) {
      if (pos >= text.length) fail('unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(runStart, pos);
        pos++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c !== 0x5c) {
        pos++;
        continue;
      }
      out += text.slice(runStart, pos);
      const escape = text[pos + 1] ?? '';
      if (escape === 'u') {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad unicode escape');
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else {
        const decoded = ESCAPES[escape];
        if (decoded === undefined) fail('bad escape');
        out += decoded;
        pos += 2;
      }
      runStart = pos;
    }
  };

  const readValue = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail('nested too deeply');
    skipWhitespace();
    const c = text[pos];
    if (c === '{') return readObject(depth);
    if (c === '[') return readArray(depth);
    if (c === '"') return readString();
    if (c === 't') return readLiteral('true', true);
    if (c === 'f') return readLiteral('false', false);
    if (c === 'n') return readLiteral('null', null);
    NUMBER_TEXT.lastIndex = pos;
    const match = NUMBER_TEXT.exec(text);
    if (!match) return fail(c === undefined ? 'unexpected end' : 'unexpected token');
    pos += match[0].length;
    return new JsonNumber(match[0]);
  };

  const readObject = (depth: number): JsonObject => {
    pos++;
    const object: JsonObject = Object.create(null) as JsonObject;
    skipWhitespace();
    if (text[pos] === '}') {
      pos++;
      return object;
    }
    for (;;) {
      skipWhitespace();
      if (text[pos] !== '"') fail('expected a property name');
      const key = readString();
      skipWhitespace();
      if (text[pos] !== ':') fail("expected ':'");
      pos++;
      object[key] = readValue(depth + 1);
      skipWhitespace();
      const next = text[pos++];
      if (next === '}') return object;
      if (next !== ',') fail("expected ',' or '}'");
    }
  };

  const readArray = (depth: number): JsonValue[] => {
    pos++;
    const array: JsonValue[] = [];
    skipWhitespace();
    if (text[pos] === ']') {
      pos++;
      return array;
    }
    for (;;) {
      array.push(readValue(depth + 1));
      skipWhitespace();
      const next = text[pos++];
      if (next === ']') return array;
      if (next !== ',') fail("expected ',' or ']'");
    }
  };

  const value = readValue(0);
  skipWhitespace();
  if (pos !== text.length) fail('unexpected data after the value');
  return value;
}

/**
 * Writes plain data (objects, arrays, strings, finite numbers, booleans, null, ScaledDecimal)
 * as JSON. Properties whose value is undefined are left out, as JSON.stringify does; any other
 * kind of value is a programming error and throws rather than emit something misleading.
 */
export function writeJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as JSON`);
      return String(value);
    case 'object':
      break;
    default:
      throw new TypeError(`cannot write a ${typeof value} as JSON`);
  }
  if (value instanceof ScaledDecimal) return value.toString();
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += writeJson(value[i]);
    }
    return `${out}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new TypeError('cannot write a class instance as JSON');
  const object = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key in object) {
    const item = object[key];
    if (item === undefined) continue;
    const name = quotedKey(key);
    out += first ? name : `,${name}`;
    first = false;
    out += writeJson(item);
  }
  return `${out}}`;
}

/** Field names repeat in every row of a list, so each is quoted once and remembered (a bounded cache). */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 2000;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, quoted);
  }
  return quoted;
}
