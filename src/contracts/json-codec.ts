/**
 * Schema-driven JSON: lossless parsing of request bodies, JSON → canonical value, canonical
 * value → the JSON text the core receives, and the core's answer → canonical JSON for the vendor.
 *
 * Reads JSON text; numbers are kept as their source text (lossless-json's LosslessNumber) from
 * the wire to the core and back, so `0.10` stays `0.10` and 28 significant digits survive.
 * Names match case-insensitively on input; output uses the schema's JSON names in schema order,
 * so two bodies that differ only in key order or name case give the same core JSON (and the
 * same idempotency fingerprint). An unknown input field (its name neither the JSON nor the XML
 * name of a field, in any case) is a bad field of the 400, as in the bank-account bodies; XML
 * ignores unknown elements instead, as DataContractSerializer does (dto-xml-reader.ts). Unknown
 * fields in the core's answer pass through unchanged, except in a refusal read as a receipt
 * (`knownFieldsOnly`), where only the contract's own members are kept.
 */
import { isLosslessNumber, parse as parseLossless, stringify as stringifyLossless, type LosslessNumber } from 'lossless-json';
import { GatewayError } from '../errors/error-catalogue';
import { GIVEN_TWICE, accept, acceptField, checkRequired, enumMessage, type ReadContext } from './reading';
import { Invalid, intKey, jsonIntValue, scalarFromJson } from './scalars';
import { fieldNamed, type AnyStruct, type EnumField, type FieldPath, type FieldSpec, type NamedField } from './dto-schema';

type JsonObject = Record<string, unknown>;

const UNKNOWN_FIELD = 'unknown field';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/** Deepest nesting of objects and arrays, counted without parsing (strings skipped): a cheap guard before recursion. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return depth;
}

/** Parses a request body; numbers stay text. Throws a 400 for anything that is not one well-formed JSON value. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (nestingDepth(text, maxDepth) > maxDepth) {
    throw new GatewayError('invalid_request', `The JSON body nests objects and arrays deeper than ${maxDepth} levels.`);
  }
  try {
    return parseLossless(text);
  } catch (err) {
    // lossless-json quotes a bad number's text; it stays out of the answer (it could be part of a secret).
    const reason = (err as Error).message.replace(/Invalid number '[^']*'/, 'Invalid number');
    throw new GatewayError('invalid_request', `The JSON body is not well-formed: ${reason}.`);
  }
}

export function readJsonStruct(struct: AnyStruct, raw: unknown, path: FieldPath, ctx: ReadContext): JsonObject | undefined {
  if (raw === null) return undefined;
  if (!isObject(raw)) {
    ctx.issues.push({ path, message: 'must be an object' });
    return undefined;
  }
  const out: JsonObject = {};
  const seen = new Uint8Array(struct.ordered.length);
  for (const key of Object.keys(raw)) {
    const field = fieldNamed(struct, key);
    // A name that is neither the camelCase nor the PascalCase of a field is a vendor's typo or a
    // field this contract lacks: named in the 400 rather than dropped, so the vendor learns at
    // once that the core never saw it. Read-only fields stay ignored: a client that round-trips
    // the DTO it received sends them back.
    if (field === undefined) {
      ctx.issues.push({ path: [...path, key], message: UNKNOWN_FIELD });
      continue;
    }
    if (field.spec.readOnly) continue;
    if (seen[field.index] === 1) {
      ctx.issues.push({ path: [...path, field.json], message: GIVEN_TWICE });
      continue;
    }
    seen[field.index] = 1;
    const value = readJsonField(field, raw[key], path, ctx);
    if (value !== undefined) out[field.json] = value;
  }
  checkRequired(struct, out, path, ctx);
  return out;
}

function readJsonField(field: NamedField, raw: unknown, parent: FieldPath, ctx: ReadContext): unknown {
  if (raw === null) return undefined;
  const spec = field.spec;
  switch (spec.kind) {
    case 'object':
      return readJsonStruct(spec.struct, raw, [...parent, field.json], ctx);
    case 'list': {
      const path = [...parent, field.json];
      if (!Array.isArray(raw)) return accept(new Invalid('must be an array'), path, ctx);
      return raw.map((item: unknown, index) =>
        item === null ? accept(new Invalid('must be an object'), [...path, index], ctx) : readJsonStruct(spec.struct, item, [...path, index], ctx),
      );
    }
    case 'intMap':
      return readJsonIntMap(raw, [...parent, field.json], ctx);
    case 'enum':
      return readJsonEnum(spec, raw, [...parent, field.json], ctx);
    default:
      return acceptField(scalarFromJson(spec.kind, raw), parent, field.json, ctx);
  }
}

function readJsonEnum(spec: EnumField, raw: unknown, path: FieldPath, ctx: ReadContext): number | undefined {
  const value = jsonIntValue(raw);
  if (value instanceof Invalid || !ctx.enums.table(spec.enumName).has(value)) {
    ctx.issues.push({ path, message: enumMessage(spec, ctx, 'json') });
    return undefined;
  }
  return value;
}

function readJsonIntMap(raw: unknown, path: FieldPath, ctx: ReadContext): Record<string, number> | undefined {
  if (!isObject(raw)) return accept(new Invalid('must be an object of account id → days'), path, ctx) as undefined;
  const out: Record<string, number> = {};
  for (const key of Object.keys(raw)) {
    const canonicalKey = accept(intKey(key), [...path, key], ctx) as string | undefined;
    const value = accept(jsonIntValue(raw[key]), [...path, key], ctx) as number | undefined;
    if (canonicalKey === undefined || value === undefined) continue;
    if (Object.hasOwn(out, canonicalKey)) ctx.issues.push({ path: [...path, key], message: GIVEN_TWICE });
    else out[canonicalKey] = value;
  }
  return out;
}

/** The canonical value as JSON text: schema names and order, decimals as written. */
export function writeCanonicalJson(struct: AnyStruct, value: JsonObject): string {
  let out = '{';
  let first = true;
  for (const field of struct.ordered) {
    const fieldValue = value[field.json];
    if (fieldValue === undefined) continue;
    if (!first) out += ',';
    out += field.jsonKey + writeCanonicalField(field.spec, fieldValue);
    first = false;
  }
  return `${out}}`;
}

function writeCanonicalField(spec: FieldSpec, value: unknown): string {
  switch (spec.kind) {
    case 'object':
      return writeCanonicalJson(spec.struct, value as JsonObject);
    case 'list':
      return `[${(value as JsonObject[]).map((item) => writeCanonicalJson(spec.struct, item)).join(',')}]`;
    case 'intMap':
      return `{${Object.entries(value as Record<string, number>)
        .map(([key, days]) => `${JSON.stringify(key)}:${days}`)
        .join(',')}}`;
    case 'decimal':
      return (value as LosslessNumber).value;
    default:
      return JSON.stringify(value);
  }
}

/** Parses the core's answer; a body that is not a JSON object cannot be a receipt. */
export function parseCoreJson(text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = parseLossless(text);
  } catch {
    parsed = undefined;
  }
  return coreObject(parsed);
}

/** The core's parsed answer as an object; anything else cannot be a receipt. */
export function coreObject(parsed: unknown): JsonObject {
  if (!isObject(parsed)) throw new GatewayError('bad_gateway', 'The core banking system sent an answer that is not a receipt.');
  return parsed;
}

/**
 * The core's answer as canonical JSON for the vendor: known names in their schema spelling,
 * everything else (values, unknown fields, their order) exactly as the core wrote it.
 */
export function renderJson(struct: AnyStruct, value: JsonObject): string {
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const field = fieldNamed(struct, key);
    const fieldValue = value[key];
    if (!first) out += ',';
    out += field ? field.jsonKey + renderJsonField(field.spec, fieldValue) : `${JSON.stringify(key)}:${stringifyLossless(fieldValue) ?? 'null'}`;
    first = false;
  }
  return `${out}}`;
}

function renderJsonField(spec: FieldSpec, value: unknown): string {
  // What lossless-json's stringify writes for these too, without its per-call set-up.
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (spec.kind === 'object' && isObject(value)) return renderJson(spec.struct, value);
  if (spec.kind === 'list' && Array.isArray(value)) {
    return `[${value.map((item: unknown) => (isObject(item) ? renderJson(spec.struct, item) : (stringifyLossless(item) ?? 'null'))).join(',')}]`;
  }
  return stringifyLossless(value) ?? 'null';
}

/**
 * Only the struct's own members (nested ones too), under their schema names; a scalar member
 * holding an object or array is dropped. For a core refusal shown as a receipt: whatever else
 * the core put there (a message, a stack trace, a host name) stays out of the vendor's answer.
 */
export function knownFieldsOnly(struct: AnyStruct, value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const field = fieldNamed(struct, key);
    if (!field) continue;
    const kept = knownValue(field.spec, value[key]);
    // defineProperty, so that no schema name can reach a prototype.
    if (kept !== undefined) Object.defineProperty(out, field.json, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function knownValue(spec: FieldSpec, value: unknown): unknown {
  if (value === null) return null;
  switch (spec.kind) {
    case 'object':
      return isObject(value) ? knownFieldsOnly(spec.struct, value) : undefined;
    case 'list':
      return Array.isArray(value) ? value.filter(isObject).map((item) => knownFieldsOnly(spec.struct, item)) : undefined;
    case 'intMap':
      return isObject(value) ? Object.fromEntries(Object.entries(value).filter(([, days]) => typeof days === 'number' || isLosslessNumber(days))) : undefined;
    default:
      return typeof value === 'object' && !isLosslessNumber(value) ? undefined : value;
  }
}
