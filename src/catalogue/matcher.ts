/**
 * Route matching against the catalogue: a segment trie compiled once, walked per request.
 *
 * Reads a request's method and path (no query string); returns the matched route and its path
 * parameters, or says that the path is unknown (404) or the method is wrong (405 + Allow).
 * Literal segments match case-insensitively (the core is an ASP.NET service whose routes are
 * case-insensitive); one trailing slash is optional; empty inner segments never match.
 * A literal segment wins over a parameter (`POST bankaccounts/add` over `bankaccounts/{id}`),
 * and the walk falls back to the parameter branch when the literal branch has no match.
 */
import type { Route } from './api-catalogue';

export type MatchResult =
  | { readonly kind: 'matched'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not_found' };

interface Node {
  readonly literals: Map<string, Node>;
  param: Node | null;
  readonly routes: Map<string, Route>;
}

const newNode = (): Node => ({ literals: new Map(), param: null, routes: new Map() });
const NOT_FOUND: MatchResult = Object.freeze({ kind: 'not_found' });

export class RouteMatcher {
  private readonly root: Node = newNode();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      let node = this.root;
      for (const segment of route.segments) {
        if (segment.startsWith('{')) {
          node.param ??= newNode();
          node = node.param;
        } else {
          const key = segment.toLowerCase();
          let next = node.literals.get(key);
          if (!next) node.literals.set(key, (next = newNode()));
          node = next;
        }
      }
      if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      node.routes.set(route.method, route);
    }
  }

  /** `path` is the URL path without the query string, e.g. `/accounts/12/`. */
  match(method: string, path: string): MatchResult {
    const segments = splitPath(path);
    if (!segments) return NOT_FOUND;
    const leaves: Node[] = [];
    collectLeaves(this.root, segments, 0, leaves);
    if (leaves.length === 0) return NOT_FOUND;
    // HEAD is GET without the body (RFC 9110 §9.3.2): the GET route, its API id, licence and permission.
    const wanted = method === 'HEAD' ? 'GET' : method;
    for (const leaf of leaves) {
      const route = leaf.routes.get(wanted);
      if (route) return { kind: 'matched', route, params: bindParams(route, segments) };
    }
    const allow = new Set<string>();
    for (const leaf of leaves) for (const m of leaf.routes.keys()) allow.add(m);
    if (allow.has('GET')) allow.add('HEAD');
    return { kind: 'method_not_allowed', allow: [...allow].sort() };
  }
}

/** Splits `/a/b/` into [a, b]; null when the path is not of the form we serve. */
function splitPath(path: string): string[] | null {
  if (path.charCodeAt(0) !== 47 /* / */) return null;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  if (trimmed.length === 0) return null;
  const segments = trimmed.split('/');
  for (const s of segments) if (s.length === 0 || isTraversal(s)) return null;
  return segments;
}

/**
 * Segments that a core normalising its paths would read as a step elsewhere: `.` and `..` in
 * any spelling, or an encoded slash or backslash. Matched as a parameter, `/customers/%2e%2e/accounts`
 * would be licensed as one API id and served by the core as another.
 */
function isTraversal(segment: string): boolean {
  if (segment.includes('%') || segment.includes('\\')) {
    if (/%(2f|5c)|\\/i.test(segment)) return true;
    const decoded = segment.replace(/%2e/gi, '.');
    return decoded === '.' || decoded === '..';
  }
  return segment === '.' || segment === '..';
}

/** Depth-first, literal before parameter, so leaves come out in priority order. */
function collectLeaves(node: Node, segments: readonly string[], index: number, out: Node[]): void {
  if (index === segments.length) {
    if (node.routes.size > 0) out.push(node);
    return;
  }
  const segment = segments[index] as string;
  const literal = node.literals.get(segment.toLowerCase());
  if (literal) collectLeaves(literal, segments, index + 1, out);
  if (node.param) collectLeaves(node.param, segments, index + 1, out);
}

function bindParams(route: Route, segments: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const name = route.segments[i] as string;
    if (name.charCodeAt(0) === 123 /* { */) params[name.slice(1, -1)] = segments[i] as string;
  }
  return params;
}
