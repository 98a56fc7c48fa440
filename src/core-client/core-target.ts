/**
 * The request target the core receives, built by the gateway: the matched route's own path
 * (as the spec writes it) with its parameters checked, and only the query parameters that the
 * route declares, typed and re-encoded under their canonical names in the vendor's order.
 * Nothing else of the vendor's target (absolute form, userinfo, fragment, other parameters,
 * percent-encoding tricks) can reach the core.
 *
 * Pure: reads a route, the matcher's raw path parameters and the vendor's request target;
 * returns the core's target or every problem found (the request-target step answers them as
 * one 400).
 */
import { isDateOnly, toCoreDateTime } from '../catalogue/core-datetime';
import { PATH_PARAMETER_PATTERN, QUERY_VALUE_PATTERNS, type QueryParameter, type QueryValueType, type Route } from '../catalogue/api-catalogue';
import type { FieldError } from '../errors/error-catalogue';

type CoreTargetResult = { readonly ok: true; readonly target: string } | { readonly ok: false; readonly errors: readonly FieldError[] };

const VALUE_RULES: Readonly<Record<QueryValueType, string>> = {
  'field-name': 'a field name (letters, digits, _ and .)',
  boolean: 'true or false',
  'positive-integer': 'a whole number from 1 to 999999999',
  'date-time': 'a date (2024-03-01) or a datetime (2024-03-01T09:30:00; fractions, Z or an offset such as +01:00 accepted)',
};
/** Longest name or value echoed back in a problem, so a problem never carries a whole attack. */
const ECHO_LIMIT = 40;

const echo = (text: string): string => (text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text);

/**
 * Splits the vendor's request target into its path and raw query. Absolute form is accepted
 * (RFC 9112 §3.2.2) but its authority is ignored; userinfo and fragments are refused, since no
 * honest client sends them.
 */
export function splitRequestTarget(url: string): { readonly path: string; readonly query: string } | null {
  let rest = url;
  if (rest.charCodeAt(0) !== 47 /* / */) {
    const authority = /^https?:\/\/([^/?#]*)/i.exec(rest);
    if (!authority || (authority[1] as string).includes('@')) return null;
    rest = rest.slice(authority[0].length) || '/';
    if (rest.charCodeAt(0) !== 47) return null;
  }
  if (rest.includes('#')) return null;
  const mark = rest.indexOf('?');
  return mark < 0 ? { path: rest, query: '' } : { path: rest.slice(0, mark), query: rest.slice(mark + 1) };
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function canonicalValue(type: QueryValueType, value: string): string | null {
  if (type === 'boolean') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false' ? lower : null;
  }
  if (!QUERY_VALUE_PATTERNS[type].test(value)) return null;
  if (type === 'positive-integer') return String(Number(value));
  // A date alone stays a date (a whole day for the period parameters); a datetime takes the core's form.
  if (type === 'date-time') return isDateOnly(value) ? (toCoreDateTime(value) === null ? null : value) : toCoreDateTime(value);
  return value;
}

function corePath(route: Route, params: Readonly<Record<string, string>>, errors: FieldError[]): string {
  let path = '';
  for (const segment of route.segments) {
    if (segment.charCodeAt(0) !== 123 /* { */) {
      path += `/${segment}`;
      continue;
    }
    const name = segment.slice(1, -1);
    const value = decode(params[name] ?? '');
    // `.` and `..` are dot segments: a core or proxy that normalises paths would climb out of the route.
    if (value === null || !PATH_PARAMETER_PATTERN.test(value) || value === '.' || value === '..') {
      errors.push({ field: name, message: 'must be 1 to 64 letters, digits or - . _ ~, and not . or ..' });
      continue;
    }
    path += `/${value}`;
  }
  return path;
}

function coreQuery(declared: readonly QueryParameter[], rawQuery: string, errors: FieldError[]): string {
  if (rawQuery === '') return '';
  const byName = new Map(declared.map((p) => [p.name.toLowerCase(), p]));
  const seen = new Map<string, string>();
  const pairs: string[] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decode(eq < 0 ? piece : piece.slice(0, eq));
    const value = decode(eq < 0 ? '' : piece.slice(eq + 1));
    const parameter = name === null ? undefined : byName.get(name.toLowerCase());
    if (!parameter || value === null) {
      const taken = declared.length === 0 ? 'this operation takes no query parameters' : `this operation takes only ${declared.map((p) => p.name).join(', ')}`;
      errors.push({ field: echo(name ?? piece), message: parameter ? 'is not validly percent-encoded' : `unknown query parameter: ${taken}` });
      continue;
    }
    if (seen.has(parameter.name)) {
      errors.push({ field: parameter.name, message: 'given more than once' });
      continue;
    }
    const canonical = canonicalValue(parameter.type, value);
    seen.set(parameter.name, canonical ?? '');
    if (canonical === null) {
      errors.push({ field: parameter.name, message: `'${echo(value)}' is not ${VALUE_RULES[parameter.type]}` });
      continue;
    }
    pairs.push(`${parameter.name}=${encodeURIComponent(canonical)}`);
  }
  // A page asked for without paging would be silently ignored (the whole list comes back): say so.
  if ((seen.has('page') || seen.has('pageSize')) && declared.some((p) => p.name === 'paged') && seen.get('paged') !== 'true') {
    errors.push({ field: 'paged', message: 'page and pageSize apply only with paged=true' });
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

/** The core's target for a matched route, or every problem with the vendor's path parameters and query. */
export function buildCoreTarget(route: Route, params: Readonly<Record<string, string>>, requestTarget: string): CoreTargetResult {
  const split = splitRequestTarget(requestTarget);
  if (!split) return { ok: false, errors: [{ field: 'request-target', message: 'userinfo, fragments and targets other than a path are not accepted' }] };
  const errors: FieldError[] = [];
  const target = corePath(route, params, errors) + coreQuery(route.query, split.query, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, target };
}
