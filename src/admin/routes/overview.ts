/**
 * `GET /v1/overview`: what the web UI's first page shows (modes, access config version, Redis,
 * breakers, vendor traffic), as the gateway's `overview` callback assembles it.
 *
 * Reads nothing of the request; sets nothing. Without a callback (tests, tools) it answers `{}`.
 */
import type { Router } from 'express';
import { methodNotAllowed } from './route-kit';

export function registerOverview(router: Router, overview: (() => unknown) | undefined): void {
  router
    .route('/overview')
    .get(function showOverview(_req, res) {
      res.json(overview?.() ?? {});
    })
    .all(methodNotAllowed('GET'));
}
