/**
 * What the JSON and XML readers share: the issues they collect (every bad field, not just the
 * first), the enum tables they consult, and the rules both apply to every field of a schema.
 *
 * Reads nothing; sets nothing. Issues carry paths of JSON names; the body contract writes them
 * in the request's own wire names at the end.
 */
import type { ReceiptEnums } from './enums';
import { Invalid } from './scalars';
import type { AnyStruct, EnumField, FieldPath } from './dto-schema';

export interface ReadIssue {
  readonly path: FieldPath;
  readonly message: string;
}

export interface ReadContext {
  readonly enums: ReceiptEnums;
  readonly issues: ReadIssue[];
}

/** Pushes an issue when `value` is Invalid; returns the value otherwise. */
export function accept(value: unknown, path: FieldPath, ctx: ReadContext): unknown {
  if (value instanceof Invalid) {
    ctx.issues.push({ path, message: value.message });
    return undefined;
  }
  return value;
}

/** `accept` for a field of the structure at `parent`: the field's path is built only when it is needed. */
export function acceptField(value: unknown, parent: FieldPath, name: string, ctx: ReadContext): unknown {
  if (value instanceof Invalid) {
    ctx.issues.push({ path: [...parent, name], message: value.message });
    return undefined;
  }
  return value;
}

export function enumMessage(field: EnumField, ctx: ReadContext, format: 'json' | 'xml'): string {
  const table = ctx.enums.table(field.enumName);
  return format === 'xml'
    ? `must be one of the ${field.enumName} names: ${table.names.join(', ')}`
    : `must be one of the ${field.enumName} numbers: ${table.entries.map((e) => `${e.value} (${e.name})`).join(', ')}`;
}

/** Required fields missing from a read structure. */
export function checkRequired(struct: AnyStruct, value: Record<string, unknown>, path: FieldPath, ctx: ReadContext): void {
  for (const field of struct.required) {
    if (value[field.json] === undefined) ctx.issues.push({ path: [...path, field.json], message: 'is required' });
  }
}

export const GIVEN_TWICE = 'is given more than once';
