/**
 * The audit log through the admin API: `/v1/audit` (newest first, filtered by `vendor`, `actor`,
 * `action`, `since` and `until` on the server, paged by a `before` cursor that `Link: rel="next"`
 * carries) and `/v1/audit/export` (the archive export, oldest first, from `since`, paged by
 * `after`).
 *
 * Reads the query only; sets nothing but the answer and its Link header (reading the log is not
 * itself audited: it holds no secret, unlike the access document).
 */
import type { Request, Response, Router } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import type { AuditQuery } from '../../access/audit-log';
import { methodNotAllowed, queryInteger, setNextLink, type Routes } from './route-kit';

const DEFAULT_AUDIT_LIMIT = 50;
const MAX_AUDIT_LIMIT = 1000;
const MAX_FILTER_LENGTH = 300;
const DAY_MS = 86_400_000;
/** A date, or a date-time with its offset: what `since` and `until` take. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const invalid = (field: string, message: string): GatewayError =>
  new GatewayError('invalid_request', `The query parameter ${field} is not valid.`, { errors: [{ field, message }] });

function queryText(req: Request, name: string): string | undefined {
  const value = req.query[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_FILTER_LENGTH) throw invalid(name, `one value of at most ${MAX_FILTER_LENGTH} characters`);
  return value;
}

/**
 * A time bound in ms. A date alone is the whole UTC day: `since` from its start, `until` to its
 * end, so `since=2026-03-01&until=2026-03-01` is that day.
 */
function queryTime(req: Request, name: 'since' | 'until'): number | undefined {
  const value = queryText(req, name);
  if (value === undefined) return undefined;
  const ms = ISO_DATE.test(value) || ISO_DATE_TIME.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw invalid(name, 'a date or date-time (ISO 8601, e.g. 2026-03-01 or 2026-03-01T09:30:00Z)');
  return name === 'until' && ISO_DATE.test(value) ? ms + DAY_MS - 1 : ms;
}

function auditQuery(req: Request): AuditQuery {
  const limit = queryInteger(req, 'limit', DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT);
  const before = queryText(req, 'before');
  const [vendor, actor, action] = [queryText(req, 'vendor'), queryText(req, 'actor'), queryText(req, 'action')];
  const [sinceMs, untilMs] = [queryTime(req, 'since'), queryTime(req, 'until')];
  if (sinceMs !== undefined && untilMs !== undefined && untilMs < sinceMs) throw invalid('until', 'a time at or after since');
  return { limit, before, vendor, actor, action, sinceMs, untilMs };
}

export function registerAudit(router: Router, { audit }: Routes): void {
  router
    .route('/audit')
    .get(async function listAudit(req: Request, res: Response) {
      const page = await audit.page(auditQuery(req));
      if (page.next !== null) setNextLink(req, res, 'before', page.next);
      res.json(page.items);
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
