/**
 * Admin routes of sandbox mode: `GET /v1/sandbox/sms`, the SMS outbox, newest first, where a
 * vendor's developer reads the two-factor code the gateway "sent" to a customer's phone.
 *
 * Only owners and operators read it (the `write` capability): the codes in it are live, and a
 * viewer or approver who could read them could add a bank account in a customer's name (403
 * `permission_denied` for them, before the outbox is touched or audited).
 *
 * Reads the outbox; appends one audit entry per read (actor, when, how many messages, never
 * their content) before answering, so that no read of the codes goes unrecorded: if the
 * audit log cannot take the entry, the read is refused with 503 `store_unavailable`.
 * Registered by createAdminApp only when it is given an outbox (the outbox SMS provider in
 * sandbox mode); elsewhere the path is an ordinary 404.
 */
import type { Router } from 'express';
import { GatewayError } from '../errors/error-catalogue';
import type { Logger } from '../logging/logger';
import { context } from '../request/context';
import { authenticatedAdmin } from './admin-context';
import type { SmsOutboxReader } from '../sms/outbox';
import type { AuditLog } from '../access/audit-log';
import { can } from './routes/route-kit';

interface SandboxRoutesDeps {
  readonly outbox: SmsOutboxReader;
  readonly audit: AuditLog;
  readonly logger: Logger;
}

export function registerSandbox(router: Router, { outbox, audit, logger }: SandboxRoutesDeps): void {
  router
    .route('/sandbox/sms')
    .get(can('write'), async function listSandboxSms(_req, res) {
      const messages = outbox.list();
      const actor = authenticatedAdmin(res);
      const { requestId } = context(res);
      try {
        await audit.append({ actor, action: 'sandbox.sms.read', target: 'sandbox/sms', before: null, after: { messages: messages.length } });
      } catch (err) {
        throw new GatewayError('store_unavailable', 'The audit log is unavailable, so the outbox cannot be read now; retry shortly.', {
          cause: err,
          headers: { 'Retry-After': '1' },
        });
      }
      logger.info({ requestId, actor, messages: messages.length }, 'sandbox SMS outbox read');
      res.json(messages);
    })
    .all(function wrongMethod(req, _res, next) {
      next(new GatewayError('method_not_allowed', `${req.method} is not allowed here; use GET.`, { headers: { Allow: 'GET' } }));
    });
}
