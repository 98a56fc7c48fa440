/**
 * Datetimes as .NET clients write them (Newtonsoft: `2025-07-01T09:30:00.1234567Z`, offsets such
 * as `+01:00`, date-only values), turned into the core's one form, `yyyy-MM-ddTHH:mm:ss` without
 * zone. A value with `Z` or an offset names an instant: it is converted to UTC. A value without
 * one is the core's own (local) time and is kept. Fractions of a second are dropped (the core's
 * form has none); a date alone is midnight.
 *
 * Pure: reads text, returns text or null.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const two = (n: number): string => String(n).padStart(2, '0');

/** The core's form of an ISO 8601 date or datetime naming a real moment; null for anything else. */
export function toCoreDateTime(text: string): string | null {
  const match = ISO_8601.exec(text.trim());
  if (!match) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const zone = match[8];
  if (mo === undefined || d === undefined || y === undefined) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  const local = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (local.getUTCFullYear() !== y || local.getUTCMonth() !== mo - 1 || local.getUTCDate() !== d) return null;
  let instant = local;
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = Number(digits.slice(2, 4));
    if (offsetHours > 14 || offsetMinutes > 59) return null;
    instant = new Date(local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  }
  return `${instant.getUTCFullYear()}-${two(instant.getUTCMonth() + 1)}-${two(instant.getUTCDate())}T${two(instant.getUTCHours())}:${two(instant.getUTCMinutes())}:${two(instant.getUTCSeconds())}`;
}

/** True for a date alone (`2024-03-01`), which period parameters read as a whole day. */
export function isDateOnly(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(text.trim());
}

/** What the accepted forms are, for error messages and the OpenAPI document. */
export const CORE_DATETIME_FORMS = 'an ISO 8601 date or datetime (2025-07-01, 2025-07-01T09:30:00, with fractions, Z or an offset such as +01:00)';
