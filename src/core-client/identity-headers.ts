/**
 * The headers the gateway, and only the gateway, sets on every call to the core: where the
 * call came from (X-Forwarded-For/Proto/Host), who makes it (X-Vendor-Id, X-Vendor-User) and
 * the request id. Values a client sent under these names are removed before these are set.
 *
 * Reads the vendor request's socket and Host, and the request context; sets nothing.
 */
import type http from 'node:http';
import type { RequestContext } from '../pipeline/context';

export function identityHeaders(req: http.IncomingMessage, ctx: RequestContext | undefined): Record<string, string> {
  const socket = req.socket as http.IncomingMessage['socket'] & { encrypted?: boolean };
  const headers: Record<string, string> = {
    'X-Forwarded-For': socket.remoteAddress ?? '',
    'X-Forwarded-Proto': socket.encrypted ? 'https' : 'http',
  };
  if (req.headers.host) headers['X-Forwarded-Host'] = req.headers.host;
  if (ctx) {
    headers['X-Request-Id'] = ctx.requestId;
    if (ctx.principal) {
      headers['X-Vendor-Id'] = ctx.principal.vendorId;
      headers['X-Vendor-User'] = ctx.principal.userId;
    }
  }
  return headers;
}
