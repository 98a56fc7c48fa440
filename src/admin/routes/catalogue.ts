/**
 * The API catalogue under `/v1/apis`: the API ids a licence or permission may name, fixed at
 * start (the catalogue is code, not config). Any role reads it; sets nothing.
 */
import type { Router } from 'express';
import { ROUTES } from '../../catalogue/api-catalogue';
import { methodNotAllowed } from './route-kit';

/** The API ids a licence or permission may name, as the catalogue defines them. */
export function registerCatalogue(router: Router): void {
  // Fixed at start: the catalogue is code, not config.
  const apis = ROUTES.map((route) => ({ apiId: route.apiId, method: route.method, path: route.path, group: route.group }));
  router
    .route('/apis')
    .get(function listApis(_req, res) {
      res.json(apis);
    })
    .all(methodNotAllowed('GET'));
}
