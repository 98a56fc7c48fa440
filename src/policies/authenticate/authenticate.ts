/**
 * Pipeline step: authenticate the vendor key against the in-process access index.
 *
 * Reads the token header on every request and, on the receipt operations, the receipt token
 * header too when it is configured apart (both keys valid and of one vendor; the same key may
 * stand in both; the receipt key's user is the one who acts). Sets the principal and vendor on
 * the context, or fails with 401 `unauthorized`. The reason (missing, malformed, unknown,
 * revoked, expired, certificate_mismatch, token_mismatch) is counted, and the detail tells the
 * caller what it can mend without learning which keys exist: no key (and, when it sent
 * `Authorization` instead, the header to use), a text that is not a key's shape, a key whose
 * checksum fails (mistyped or cut short: the checksum is public, so this says nothing of any
 * key), and one text for a well-formed key that is unknown, revoked or expired. A key bound to
 * certificates works only when the request presents one of them (see tls/client-certificate.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { NextFunction, RequestHandler } from 'express';
import type { AccessCache } from '../../access/cache';
import type { AccessIndex, AuthFailureReason, Principal } from '../../access/access-index';
import { hasApiKeyShape } from '../../access/api-key';
import { GatewayError } from '../../errors/error-catalogue';
import { context } from '../../request/context';
import type { AuthenticateConfig } from './authenticate.schema';

interface AuthenticateDeps {
  readonly access: AccessCache;
  readonly onFailure?: (reason: AuthFailureReason) => void;
  readonly onSuccess?: (principal: Principal) => void;
  /** The thumbprint of the certificate the vendor presented (for certificate-bound keys), or null. */
  readonly presentedCertificate?: (req: IncomingMessage) => string | null;
}

/**
 * The 401's detail for a key the index refused. Never the value sent; a well-formed key that is
 * unknown, revoked or expired gets one text, so a caller learns nothing of which keys exist.
 */
function whyRefused(reason: AuthFailureReason, headerName: string, token: string, authorization: string | undefined): string {
  if (reason === 'missing') {
    if (authorization === undefined) return `No API key: send your key in the ${headerName} header.`;
    const scheme = /^bearer\b/i.test(authorization.trim()) ? 'Authorization: Bearer' : 'the Authorization header';
    return `No API key in the ${headerName} header. This API does not read ${scheme}: send your key as ${headerName}: <key>.`;
  }
  if (reason === 'malformed') {
    return hasApiKeyShape(token)
      ? `The key in the ${headerName} header fails its checksum: it was mistyped or cut short. Copy it again, whole.`
      : `The ${headerName} header does not hold an API key: a key is cbk_, 32 letters or digits, _ and a 6-character checksum.`;
  }
  return `The key in the ${headerName} header is not accepted: it is unknown, revoked or expired.`;
}

export function authenticate(config: AuthenticateConfig, deps: AuthenticateDeps): RequestHandler {
  // Node lower-cases incoming header names; the spec's "must match exactly" is about the name's
  // spelling, which HTTP itself treats case-insensitively.
  const tokenHeader = config.tokenHeader.toLowerCase();
  const receiptTokenHeader = config.receiptTokenHeader.toLowerCase();
  type Authenticated = Extract<ReturnType<AccessIndex['authenticate']>, { ok: true }>;

  // Built once, not per request: the step below only calls them.
  function refuse(next: NextFunction, reason: AuthFailureReason, detail: string): void {
    deps.onFailure?.(reason);
    // Closed after the answer: a caller without a key gets no keep-alive socket to hold.
    next(new GatewayError('unauthorized', detail, { headers: { Connection: 'close' } }));
  }

  /** The key in `header`, checked, with its certificate binding; null after answering 401. */
  function authenticated(index: AccessIndex, req: IncomingMessage, next: NextFunction, header: string, headerName: string): Authenticated | null {
    const raw = req.headers[header];
    const token = typeof raw === 'string' ? raw.trim() : undefined;
    const result = index.authenticate(token);
    if (!result.ok) {
      refuse(next, result.reason, whyRefused(result.reason, headerName, token ?? '', req.headers.authorization));
      return null;
    }
    const bound = result.principal.certificateThumbprints;
    if (bound.length > 0) {
      const presented = deps.presentedCertificate?.(req) ?? null;
      if (presented === null || !bound.includes(presented)) {
        refuse(next, 'certificate_mismatch', 'This API key is bound to a client certificate, and the request did not present it.');
        return null;
      }
    }
    return result;
  }

  return function authenticateStep(req, res, next) {
    const ctx = context(res);
    const index = deps.access.index;
    if (!index) {
      next(new GatewayError('store_unavailable', 'Access configuration is not loaded yet; retry shortly.', { headers: { 'Retry-After': '1' } }));
      return;
    }
    // Every request carries the token header; a receipt also the receipt header when that one is
    // configured apart (the same key may stand in both), and the two keys must be one vendor's.
    const general = authenticated(index, req, next, tokenHeader, config.tokenHeader);
    if (!general) return;
    let result = general;
    if (ctx.route?.group === 'receipts' && receiptTokenHeader !== tokenHeader) {
      const receipt = authenticated(index, req, next, receiptTokenHeader, config.receiptTokenHeader);
      if (!receipt) return;
      if (receipt.vendor.id !== general.vendor.id) {
        refuse(next, 'token_mismatch', `The keys in ${config.tokenHeader} and ${config.receiptTokenHeader} must belong to the same vendor.`);
        return;
      }
      result = receipt;
    }
    ctx.principal = result.principal;
    ctx.vendor = result.vendor;
    deps.onSuccess?.(result.principal);
    next();
  };
}
