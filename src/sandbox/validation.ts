/**
 * Request bodies of the sandbox's POST and PUT: read the JSON, check every field against the
 * resource's schema, and turn values into their in-memory form (ScaledDecimal for decimals).
 *
 * Reads the raw body the app collected and its Content-Type; returns field values or throws a
 * SandboxProblem: 415 for a body that is not JSON, 400 for bad JSON, a body that is not an
 * object, or bad fields (every bad field listed, not just the first). Field names are
 * case-sensitive, as the spec says; a near miss in case is pointed out.
 */
import { toCoreDateTime } from '../catalogue/core-datetime';
import type { Request } from 'express';
import { ScaledDecimal } from './decimal';
import { JsonNumber, JsonSyntaxError, parseJson, type JsonObject, type JsonValue } from './json';
import type { FieldDefinition } from './model';
import { SandboxProblem, invalid, type FieldProblem } from './problems';

const JSON_MEDIA_TYPE = /^(application\/json|text\/json|application\/[a-z0-9.+-]+\+json)$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The request's body as a JSON object. */
export function readJsonObject(req: Request): JsonObject {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw invalid([{ field: 'body', message: 'a JSON object is required' }]);
  const mediaType = (req.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw new SandboxProblem(415, `the body must be application/json, not ${mediaType || 'untyped'}`);
  }
  let value: JsonValue;
  try {
    value = parseJson(utf8.decode(raw));
  } catch (error) {
    const reason = error instanceof JsonSyntaxError ? error.message : 'it is not UTF-8';
    throw invalid([{ field: 'body', message: `not valid JSON: ${reason}` }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) {
    throw invalid([{ field: 'body', message: 'must be a JSON object' }]);
  }
  return value;
}

interface BodyFields {
  /** Field values in their in-memory form, by field name. */
  readonly values: Record<string, unknown>;
  /** Optional fields the body set to null: they are to be removed from the record. */
  readonly cleared: string[];
}

/**
 * Checks `body` against `fields`. With `requireAll`, every field that is neither optional nor
 * in `exempt` must be present (a create); otherwise any subset may be (an update).
 */
export function readFields(
  body: JsonObject,
  fields: readonly FieldDefinition[],
  options: { readonly requireAll: boolean; readonly exempt?: readonly string[] },
): BodyFields {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const errors: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  const cleared: string[] = [];
  for (const [name, raw] of Object.entries(body)) {
    const field = byName.get(name);
    if (!field) {
      const nearMiss = fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
      errors.push({ field: name, message: nearMiss ? `unknown field; field names are case-sensitive: did you mean ${nearMiss.name}?` : 'unknown field' });
      continue;
    }
    if (raw === null && field.optional) {
      cleared.push(name);
      continue;
    }
    const result = readValue(field, raw);
    if ('error' in result) errors.push({ field: name, message: result.error });
    else values[name] = result.value;
  }
  if (options.requireAll) {
    for (const field of fields) {
      if (field.optional || options.exempt?.includes(field.name)) continue;
      if (!(field.name in body)) errors.push({ field: field.name, message: 'required' });
    }
  }
  if (errors.length > 0) throw invalid(errors);
  return { values, cleared };
}

type ReadResult = { readonly value: unknown } | { readonly error: string };

function readValue(field: FieldDefinition, raw: JsonValue): ReadResult {
  if (raw === null) return field.nullable ? { value: null } : { error: `must be ${describe(field)}, not null` };
  switch (field.type) {
    case 'int':
    case 'long': {
      const n = raw instanceof JsonNumber && /^-?\d+$/.test(raw.text) ? Number(raw.text) : NaN;
      const inRange = field.type === 'int' ? n >= INT32_MIN && n <= INT32_MAX : Number.isSafeInteger(n);
      return Number.isInteger(n) && inRange ? { value: n } : { error: `must be ${describe(field)}` };
    }
    case 'number': {
      const n = raw instanceof JsonNumber ? Number(raw.text) : NaN;
      return Number.isFinite(n) ? { value: n } : { error: `must be ${describe(field)}` };
    }
    case 'decimal':
      if (!(raw instanceof JsonNumber)) return { error: `must be ${describe(field)}` };
      try {
        return { value: ScaledDecimal.parse(raw.text) };
      } catch (error) {
        return { error: `must be ${describe(field)}: ${(error as Error).message}` };
      }
    case 'string':
      return typeof raw === 'string' ? { value: raw } : { error: `must be ${describe(field)}` };
    case 'bool':
      return typeof raw === 'boolean' ? { value: raw } : { error: `must be ${describe(field)}` };
    case 'datetime': {
      // As a .NET core binds them: any ISO 8601 form, kept in the core's own.
      const core = typeof raw === 'string' ? toCoreDateTime(raw) : null;
      return core === null ? { error: `must be ${describe(field)}` } : { value: core };
    }
  }
}

function describe(field: FieldDefinition): string {
  const kinds: Record<FieldDefinition['type'], string> = {
    int: 'a 32-bit integer',
    long: 'an integer',
    number: 'a number',
    decimal: 'a decimal number (a JSON number, not a string)',
    string: 'a string',
    bool: 'true or false',
    datetime: 'a date or datetime like 2024-03-01T09:30:00 (fractions, Z or an offset accepted)',
  };
  return field.nullable ? `${kinds[field.type]} or null` : kinds[field.type];
}

/** yyyy-MM-ddTHH:mm:ss naming a real moment (no 31 April, no 25:00). */
export function isDateTime(text: string): boolean {
  const match = DATETIME.exec(text);
  if (!match) return false;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
}
