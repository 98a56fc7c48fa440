/**
 * The portal's API access: `GET /portal/api/access` (the vendor's licences, each with the API ids
 * it grants now, and its rate limit) and `GET /portal/api/openapi.json` (the vendor port's OpenAPI
 * document with only the operations the vendor's licences grant, its `servers` naming the gateway as
 * /openapi.json's do). A licence grants; each key's user also needs a permission, which the bank
 * keeps per banking-application user, so the document is what the vendor may be allowed, not what
 * every key may call.
 *
 * Reads the caller, the catalogue and the served document; sets nothing.
 */
import type http from 'node:http';
import type { Router } from 'express';
import { compileApiPattern } from '../access/access-index';
import type { Licence } from '../access/model';
import type { AccessService } from '../admin/operations/access-service';
import { ROUTES } from '../catalogue/api-catalogue';
import type { OpenApiDocument } from '../openapi/openapi';
import { portalCaller } from './portal-auth';
import { PORTAL_API } from './portal-session';

export interface PortalAccessDeps {
  readonly service: AccessService;
  readonly apiDocument: OpenApiDocument;
  /** The gateway's public origin for a request (`server.publicUrl`, a trusted proxy's, else the listener). */
  readonly origin: (req: http.IncomingMessage) => string;
  readonly now?: () => number;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** The catalogue's API ids a licence grants at `nowMs` (none once it has expired). */
export function apiIdsGranted(licence: Licence, nowMs: number): string[] {
  if (licence.expiresAt !== undefined && Date.parse(licence.expiresAt) <= nowMs) return [];
  const matches = compileApiPattern(licence.api);
  return ROUTES.map((route) => route.apiId).filter((apiId) => matches(apiId));
}

/** The document with only the operations whose `x-api-id` is in `granted`, and only the tags they use. */
export function documentFor(document: OpenApiDocument, granted: ReadonlySet<string>): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const tagsUsed = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const kept: Record<string, unknown> = {};
    let operations = 0;
    for (const [field, value] of Object.entries(item)) {
      if (!METHODS.has(field)) continue;
      const operation = value as { 'x-api-id'?: string; tags?: string[] };
      if (operation['x-api-id'] === undefined || !granted.has(operation['x-api-id'])) continue;
      kept[field] = value;
      operations += 1;
      for (const tag of operation.tags ?? []) tagsUsed.add(tag);
    }
    if (operations === 0) continue;
    // Path-level fields (shared parameters) only beside an operation that is kept.
    for (const [field, value] of Object.entries(item)) if (!METHODS.has(field)) kept[field] = value;
    paths[path] = kept;
  }
  const tags = Array.isArray(document.tags) ? (document.tags as Array<{ name: string }>).filter((tag) => tagsUsed.has(tag.name)) : undefined;
  return { ...document, paths, ...(tags ? { tags } : {}) } as OpenApiDocument;
}

export function registerPortalAccess(api: Router, deps: PortalAccessDeps): void {
  const now = deps.now ?? Date.now;
  api.get(`${PORTAL_API}/access`, async function readAccess(_req, res) {
    // The vendor as the session check found it in the live access config: no second read.
    const { vendor } = portalCaller(res);
    const nowMs = now();
    res.json({
      vendor: { id: vendor.id, name: vendor.name, status: vendor.status },
      licences: vendor.licences.map((licence) => ({ ...licence, apiIds: apiIdsGranted(licence, nowMs) })),
      rateLimit: deps.service.effectiveRateLimit(vendor),
      docs: '/docs',
      openapi: `${PORTAL_API}/openapi.json`,
    });
  });
  api.get(`${PORTAL_API}/openapi.json`, function readFilteredDocument(req, res) {
    const { vendor } = portalCaller(res);
    const nowMs = now();
    const granted = new Set(vendor.licences.flatMap((licence) => apiIdsGranted(licence, nowMs)));
    const servers = [{ url: deps.origin(req), description: 'This gateway' }];
    res.json({ ...documentFor(deps.apiDocument, granted), servers });
  });
}
