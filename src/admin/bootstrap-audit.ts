/**
 * With approvals required, every request the bootstrap token (ADMIN_TOKEN) makes is on record:
 * it is the one credential no person's name is on, kept for setting up and for taking access
 * away, so each use is an audit entry `bootstrap.use` (method and path; never a body or a
 * header), written before the request goes on. When the audit log cannot take it, the request
 * is refused (503), as an unrecorded use would be worse than none.
 *
 * Reads the signed-in admin from the admin context (admin-context.ts); appends to the audit log.
 */
import type { RequestHandler } from 'express';
import { BOOTSTRAP_ID } from './operations/four-eyes';
import { GatewayError } from '../errors/error-catalogue';
import { adminCaller } from './admin-context';
import type { AuditLog } from '../access/audit-log';

export function auditBootstrapUse(audit: Pick<AuditLog, 'append'>): RequestHandler {
  return function bootstrapUse(req, res, next) {
    if (adminCaller(res)?.identity.id !== BOOTSTRAP_ID) {
      next();
      return;
    }
    audit
      .append({
        actor: `admin:${BOOTSTRAP_ID}`,
        action: 'bootstrap.use',
        target: req.path.replace(/^\/(v1\/)?/, '') || '/',
        before: null,
        after: { method: req.method },
      })
      .then(
        () => next(),
        (err: unknown) =>
          next(
            new GatewayError('store_unavailable', 'The audit log is unavailable, so the bootstrap token cannot be used now; retry shortly.', {
              cause: err,
              headers: { 'Retry-After': '1' },
            }),
          ),
      );
  };
}
