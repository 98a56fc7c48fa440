/**
 * The audit log through the admin API: `/v1/audit` (newest first, `limit` and a `before`
 * cursor) and `/v1/audit/export` (the archive export, oldest first, from `since`, paged by
 * `after`).
 *
 * Reads the query only; sets nothing (reading the log is not itself audited: it holds no
 * secret, unlike the access document).
 */
import type { Request, Response, Router } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import { methodNotAllowed, queryInteger, type Routes } from './route-kit';

const DEFAULT_AUDIT_LIMIT = 50;
const MAX_AUDIT_LIMIT = 1000;

export function registerAudit(router: Router, { audit }: Routes): void {
  router
    .route('/audit')
    .get(async function listAudit(req: Request, res: Response) {
      const limit = queryInteger(req, 'limit', DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
      const before = typeof req.query.before === 'string' ? req.query.before : undefined;
      res.json(await audit.list({ limit, before }));
    })
    .all(methodNotAllowed('GET'));
  // The archive export, oldest first, in pages: `since` a date or date-time, `after` the last id seen.
  router
    .route('/audit/export')
    .get(async function exportAudit(req: Request, res: Response) {
      const since = typeof req.query.since === 'string' ? Date.parse(req.query.since) : NaN;
      if (Number.isNaN(since)) {
        throw new GatewayError('invalid_request', 'The query parameter since is not valid.', {
          errors: [{ field: 'since', message: 'a date or date-time (ISO 8601)' }],
        });
      }
      const limit = queryInteger(req, 'limit', MAX_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
      const after = typeof req.query.after === 'string' ? req.query.after : undefined;
      res.json(await audit.range({ sinceMs: since, after, limit }));
    })
    .all(methodNotAllowed('GET'));
}
