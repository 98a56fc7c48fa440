/**
 * Pipeline step: authorize. Unknown path → 404, known path with the wrong method → 405 with
 * Allow; then the vendor must be active, hold a licence for the route's API id, and the key's
 * user must hold a permission for it → 403 with the matching code.
 *
 * Reads the match and principal from the context and the access index; sets nothing.
 */
import type { RequestHandler } from 'express';
import type { AccessCache } from '../../access/cache';
import type { AccessDeniedReason } from '../../access/access-index';
import { GatewayError } from '../../errors/error-catalogue';
import { context } from '../../request/context';

interface AuthorizeDeps {
  readonly access: AccessCache;
  readonly onDenied?: (reason: AccessDeniedReason) => void;
}

const DENIAL_DETAIL: Record<AccessDeniedReason, string> = {
  vendor_suspended: 'This vendor is suspended; contact the bank.',
  licence_required: 'This vendor holds no licence for this operation.',
  permission_denied: "This key's user holds no permission for this operation.",
};

export function authorize(deps: AuthorizeDeps): RequestHandler {
  return function authorizeStep(req, res, next) {
    const ctx = context(res);
    const match = ctx.match;
    if (!match || match.kind === 'not_found') {
      next(new GatewayError('not_found', 'No resource exists at this path.'));
      return;
    }
    if (match.kind === 'method_not_allowed') {
      const allow = match.allow.join(', ');
      next(new GatewayError('method_not_allowed', `This path accepts ${allow}.`, { headers: { Allow: allow } }));
      return;
    }
    const index = deps.access.index;
    const denied = index && ctx.principal && ctx.vendor ? index.authorize(ctx.principal, ctx.vendor, match.route.apiId) : 'permission_denied';
    if (denied) {
      deps.onDenied?.(denied);
      next(new GatewayError(denied, `${DENIAL_DETAIL[denied]} API id: ${match.route.apiId}`));
      return;
    }
    next();
  };
}
