/**
 * Which API ids a licence or permission pattern reaches, so a pattern that reaches none (a typo:
 * `GETacounts/*`) is caught when it is written rather than found when a vendor is refused. Admin
 * writes refuse such a pattern (400 naming the field and the nearest API ids) unless the caller
 * allows it (`allowEmpty`); the access file loaded at start only warns (access-backend.ts), so no
 * deployment stops on it.
 *
 * Reads the API catalogue (code, fixed at start); sets nothing.
 */
import { distance as editDistance } from 'fastest-levenshtein';
import { ROUTES } from '../../catalogue/api-catalogue';
import { compileApiPattern } from '../../access/access-index';
import type { AccessDocument } from '../../access/model';
import { GatewayError, type FieldError } from '../../errors/error-catalogue';

const API_IDS: readonly string[] = ROUTES.map((route) => route.apiId);
/** How many near API ids a refusal names. */
const NEAREST = 3;

/** Whether `pattern` matches at least one API id of the catalogue. */
export function reachesAnyApi(pattern: string): boolean {
  const matches = compileApiPattern(pattern);
  return API_IDS.some((apiId) => matches(apiId));
}

/**
 * The API ids nearest `pattern` by edit distance (Levenshtein): the whole id against a plain pattern; for a
 * pattern with `*`, its text before the first `*` against each id's start of the same length
 * (so `GETacounts/*` is near `GETaccounts/{accountId}`). Ties go to the id first in order.
 */
export function nearestApiIds(pattern: string, count = NEAREST): string[] {
  const star = pattern.indexOf('*');
  const literal = star < 0 ? pattern : pattern.slice(0, star);
  const distance = (apiId: string): number => (star < 0 ? editDistance(literal, apiId) : editDistance(literal, apiId.slice(0, literal.length)));
  return [...API_IDS]
    .sort()
    .map((apiId) => ({ apiId, d: distance(apiId) }))
    .sort((x, y) => x.d - y.d)
    .slice(0, count)
    .map((x) => x.apiId);
}

/** One pattern that reaches no API id, where it sits and whose it is. */
export interface EmptyPattern {
  /** The field, as errors[] names it (`api`, `vendors[acme].licences[0].api`). */
  readonly field: string;
  /** The owner, in words: `vendor "acme"`, `user "ann"`. */
  readonly owner: string;
  readonly pattern: string;
  /** In a document: the vendor or user it belongs to. */
  readonly holder?: { readonly kind: 'vendor' | 'user'; readonly id: string };
}

/** The message of an empty pattern: what it matches (nothing) and the ids it may have meant. */
export function emptyPatternMessage(pattern: string): string {
  return `"${pattern}" matches no API id; nearest by edit distance: ${nearestApiIds(pattern).join(', ')}`;
}

/**
 * 400 `invalid_request` for patterns that reach no API id, naming each field, its pattern and
 * the nearest API ids; nothing when there are none or the caller allowed them.
 */
export function refuseEmptyPatterns(found: readonly EmptyPattern[], allowEmpty: boolean): void {
  if (allowEmpty || found.length === 0) return;
  const errors: FieldError[] = found.map((f) => ({ field: f.field, message: emptyPatternMessage(f.pattern) }));
  const first = found[0] as EmptyPattern;
  const more = found.length > 1 ? ` (and ${found.length - 1} more; see errors)` : '';
  throw new GatewayError(
    'invalid_request',
    `The pattern "${first.pattern}" of ${first.owner} matches no API id${more}; correct it, or send allowEmpty=true to grant it anyway.`,
    { errors },
  );
}

/** Every licence and permission pattern of a document that reaches no API id, named by owner. */
export function emptyPatternsOf(document: Pick<AccessDocument, 'vendors' | 'users'>): EmptyPattern[] {
  const found: EmptyPattern[] = [];
  const memo = new Map<string, boolean>();
  const reaches = (pattern: string): boolean => {
    let answer = memo.get(pattern);
    if (answer === undefined) memo.set(pattern, (answer = reachesAnyApi(pattern)));
    return answer;
  };
  for (const vendor of document.vendors)
    for (const [i, licence] of vendor.licences.entries())
      if (!reaches(licence.api))
        found.push({
          field: `vendors[${vendor.id}].licences[${i}].api`,
          owner: `vendor "${vendor.id}" licence ${i + 1}`,
          pattern: licence.api,
          holder: { kind: 'vendor', id: vendor.id },
        });
  for (const user of document.users)
    for (const [i, permission] of user.permissions.entries())
      if (!reaches(permission.api))
        found.push({
          field: `users[${user.id}].permissions[${i}].api`,
          owner: `user "${user.id}" permission ${i + 1}`,
          pattern: permission.api,
          holder: { kind: 'user', id: user.id },
        });
  return found;
}
