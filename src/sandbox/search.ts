/**
 * SEARCH over a resource list: the query `sort`, `ascending`, `paged`, `page`, `pageSize`,
 * type-aware stable sorting, and the paged envelope with next and previous links.
 *
 * Reads the request's query string and, for the links, its Host and X-Forwarded-Proto /
 * X-Forwarded-Host headers; returns sorted rows or a page. Parameter names match
 * case-insensitively, as the core's ASP.NET binding does; a bad value, or a parameter given
 * twice, is a 400 naming it. `page` and `pageSize` are checked even when `paged` is not true,
 * so a typo is never silently ignored; they only take effect on a paged answer.
 */
import type { Request } from 'express';
import type { ScaledDecimal } from './decimal';
import type { FieldDefinition } from './model';
import { invalid, type FieldProblem } from './problems';

export interface PageLimits {
  readonly defaultPageSize: number;
  readonly maxPageSize: number;
}

interface SearchQuery {
  /** The field to sort on, or null for the table's own (key) order. */
  readonly sort: FieldDefinition | null;
  readonly ascending: boolean;
  readonly paged: boolean;
  readonly page: number;
  readonly pageSize: number;
}

interface Page<R> {
  readonly pageNumber: number;
  readonly pageSize: number;
  readonly totalPages: number;
  readonly totalItems: number;
  readonly nextUrl: string | null;
  readonly previousUrl: string | null;
  readonly items: R[];
}

const SEARCH_PARAMETERS = ['sort', 'ascending', 'paged', 'page', 'pageSize'] as const;
type SearchParameter = (typeof SEARCH_PARAMETERS)[number];

/** Whether the query carries any SEARCH parameter, i.e. whether this is SEARCH rather than ALL. */
export function isSearch(query: URLSearchParams): boolean {
  for (const name of query.keys()) if (SEARCH_PARAMETERS.some((p) => p.toLowerCase() === name.toLowerCase())) return true;
  return false;
}

/** One query parameter by case-insensitive name; undefined when absent, a 400 when given twice. */
export function queryParameter(query: URLSearchParams, name: string): string | undefined {
  const wanted = name.toLowerCase();
  let found: string | undefined;
  let count = 0;
  for (const [key, value] of query) {
    if (key.toLowerCase() !== wanted) continue;
    found = value;
    count++;
  }
  if (count > 1) throw invalid([{ field: name, message: 'given more than once' }]);
  return found;
}

export function parseSearchQuery(query: URLSearchParams, fields: readonly FieldDefinition[], limits: PageLimits): SearchQuery {
  const errors: FieldProblem[] = [];
  const raw = {} as Record<SearchParameter, string | undefined>;
  for (const name of SEARCH_PARAMETERS) {
    try {
      raw[name] = queryParameter(query, name);
    } catch {
      errors.push({ field: name, message: 'given more than once' });
    }
  }

  let sort: FieldDefinition | null = null;
  if (raw.sort !== undefined) {
    const wanted = raw.sort.toLowerCase();
    sort = fields.find((f) => f.name.toLowerCase() === wanted) ?? null;
    if (!sort) errors.push({ field: 'sort', message: `'${raw.sort}' is not a field of this resource; one of ${fields.map((f) => f.name).join(', ')}` });
  }
  const ascending = readBool(raw.ascending, 'ascending', true, errors);
  const paged = readBool(raw.paged, 'paged', false, errors);
  const page = readInt(raw.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER, errors);
  const pageSize = readInt(raw.pageSize, 'pageSize', limits.defaultPageSize, 1, limits.maxPageSize, errors);
  if (errors.length > 0) throw invalid(errors);
  return { sort, ascending, paged, page, pageSize };
}

function readBool(value: string | undefined, name: string, fallback: boolean, errors: FieldProblem[]): boolean {
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  errors.push({ field: name, message: `'${value}' is not true or false` });
  return fallback;
}

function readInt(value: string | undefined, name: string, fallback: number, min: number, max: number, errors: FieldProblem[]): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    errors.push({ field: name, message: `'${value}' is not an integer ${range}` });
    return fallback;
  }
  return n;
}

/** A stable sort on one field, by its type; absent and null values come first, as SQL Server puts NULLs. */
export function sortRows<R>(rows: readonly R[], field: FieldDefinition, ascending: boolean): R[] {
  const compare = comparatorFor(field.type);
  const direction = ascending ? 1 : -1;
  const valueOf = (row: R): unknown => (row as Record<string, unknown>)[field.name];
  return [...rows].sort((a, b) => {
    const x = valueOf(a);
    const y = valueOf(b);
    const xMissing = x === undefined || x === null;
    const yMissing = y === undefined || y === null;
    if (xMissing || yMissing) return direction * (xMissing === yMissing ? 0 : xMissing ? -1 : 1);
    return direction * compare(x, y);
  });
}

const collator = new Intl.Collator('en-GB');

function comparatorFor(type: FieldDefinition['type']): (a: unknown, b: unknown) => number {
  switch (type) {
    case 'decimal':
      return (a, b) => (a as ScaledDecimal).compare(b as ScaledDecimal);
    case 'string':
      return (a, b) => collator.compare(a as string, b as string);
    case 'datetime':
      // One fixed format (yyyy-MM-ddTHH:mm:ss), so text order is time order.
      return (a, b) => ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0);
    case 'bool':
      return (a, b) => Number(a) - Number(b);
    default:
      return (a, b) => (a as number) - (b as number);
  }
}

/** The page `query.page` of `rows`, with links built by `urlForPage`. */
export function pageOf<R>(rows: readonly R[], query: SearchQuery, urlForPage: (page: number) => string): Page<R> {
  const totalItems = rows.length;
  const totalPages = Math.ceil(totalItems / query.pageSize);
  const start = (query.page - 1) * query.pageSize;
  return {
    pageNumber: query.page,
    pageSize: query.pageSize,
    totalPages,
    totalItems,
    nextUrl: query.page < totalPages ? urlForPage(query.page + 1) : null,
    previousUrl: query.page > 1 ? urlForPage(Math.min(query.page - 1, Math.max(totalPages, 1))) : null,
    items: rows.slice(start, start + query.pageSize),
  };
}

const FORWARDED_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * Absolute links to other pages of this request, as the client sees it. Behind the gateway the
 * request arrives on the sandbox's own address, so the gateway's X-Forwarded-Proto and
 * X-Forwarded-Host (first value of each) win over the request's; a malformed one is ignored.
 * The other query parameters are kept, in their order; only `page` changes.
 */
export function pageLinkBuilder(req: Request): (page: number) => string {
  const forwardedProto = firstValue(req.get('x-forwarded-proto'))?.toLowerCase();
  const forwardedHost = firstValue(req.get('x-forwarded-host'));
  const scheme = forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : req.protocol;
  const host = forwardedHost && FORWARDED_HOST.test(forwardedHost) ? forwardedHost : (req.get('host') ?? 'localhost');
  const [path = '/', search = ''] = req.originalUrl.split('?', 2);
  const original = [...new URLSearchParams(search)];
  return (page) => {
    const params = new URLSearchParams();
    let placed = false;
    for (const [key, value] of original) {
      if (key.toLowerCase() !== 'page') params.append(key, value);
      else if (!placed) {
        params.append(key, String(page));
        placed = true;
      }
    }
    if (!placed) params.append('page', String(page));
    return `${scheme}://${host}${path}?${params.toString()}`;
  };
}

function firstValue(header: string | undefined): string | undefined {
  const first = header?.split(',')[0]?.trim();
  return first ? first : undefined;
}
