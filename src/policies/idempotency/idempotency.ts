/**
 * Pipeline step: idempotency for money movement (routes with `movesMoney`), so that no
 * retry, double click or second instance posts a receipt twice.
 *
 * The key is the `Idempotency-Key` header (name configurable) or, when absent, the body's
 * `externalRefNo`; it is scoped by vendor and API id, and the body is fingerprinted with
 * SHA-256 over the canonical JSON the core will receive. Then, per key:
 *   - first request: claims the key and proceeds; the claim's after-core duties (registered on
 *     `ctx.afterCore`, see request/after-core.ts) settle it: the core's answer is stored for
 *     replays, a refusal or a request that never reached the core frees the key, and an
 *     unknown outcome marks it `outcome_unknown`;
 *   - a retry after completion: the stored response, byte for byte, with
 *     `Idempotent-Replayed: true` (in the format of the first answer);
 *   - the same key with another body: 422 `idempotency_key_reused`;
 *   - while the first is in flight, also after its vendor went away: 409
 *     `idempotency_in_progress` with Retry-After (the first's end alone settles the key);
 *   - when the first may have reached the core without an answer (a core timeout, or an
 *     instance that died mid-request): 409 `outcome_unknown`, and nothing is sent again.
 * The store unreachable with a key present, held after losing its data (the epoch marker and
 * store sequence, see redis/store-epoch.ts; the Redis claim checks both itself, so a wipe or a
 * stale copy is caught at the first keyed request and starts the hold), or running with an
 * evicting maxmemory-policy (redis/eviction-policy.ts): 503 `store_unavailable`; a keyed request is never
 * posted unguarded. A request with no key at all is refused with 400 naming the header when
 * `requireKey` says so (by default, with a real core); otherwise it passes unguarded.
 *
 * Reads the route, principal and parsed body from the context and the key header; registers the
 * claim's after-core duties, or answers a replay itself. Errors go to the error handler.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { GatewayError } from '../../errors/error-catalogue';
import type { Logger } from '../../logging/logger';
import type { AfterCoreDuties, StoredResponse } from '../../request/after-core';
import { context } from '../../request/context';
import type { IdempotencyConfig } from './idempotency.schema';
import { MemoryIdempotencyStore } from './memory-idempotency-store';
import { RedisIdempotencyStore, type EpochWatch } from './redis-idempotency-store';
import type { IdempotencyStore } from './idempotency-store';

interface IdempotencyDeps {
  readonly store: IdempotencyStore;
  readonly logger: Logger;
  /** Told of each replay (gateway_idempotency_replays_total). */
  readonly onReplay?: (apiId: string) => void;
  /** HMAC key of body fingerprints; the same on every instance sharing the store. */
  readonly fingerprintKey: string;
  /** True with the in-process sandbox core (`requireKey: outside-sandbox` lets unkeyed calls through there). */
  readonly sandboxMode: boolean;
  /** True while the store is held after a data loss: keyed calls get 503 rather than a key the store may have forgotten. */
  readonly storeHeld?: () => boolean;
  /** The evicting `maxmemory-policy` Redis runs with (null: noeviction or unknown): keyed calls get 503 meanwhile, since it may drop records. */
  readonly evictingPolicy?: () => string | null;
  /** Told when a claim found the epoch marker gone or replaced; resolves once the hold has started on this instance. */
  readonly onStoreLost?: (epochId: string) => Promise<void>;
}

const MAX_KEY_LENGTH = 255;
/**
 * Visible ASCII, inner spaces allowed: what a header can carry unambiguously. No comma: two
 * header lines (or a proxy's merge of them) read as one list `a, b`, never as one key.
 */
const KEY_PATTERN = /^[\x21-\x2b\x2d-\x7e](?:[\x20-\x2b\x2d-\x7e]*[\x21-\x2b\x2d-\x7e])?$/;

/** The store for the deployment: Redis when there is one (shared by every instance), else memory. */
export function createIdempotencyStore(config: IdempotencyConfig, redis: Redis | Cluster | null, keyPrefix: string, epoch?: EpochWatch): IdempotencyStore {
  const timings = { inFlightMs: config.inFlightTimeoutMs, retentionMs: config.retentionSeconds * 1000 };
  return redis ? new RedisIdempotencyStore(redis, { keyPrefix, timings, ...(epoch ? { epoch } : {}) }) : new MemoryIdempotencyStore(timings);
}

export function idempotency(config: IdempotencyConfig, deps: IdempotencyDeps): RequestHandler {
  const { store, logger } = deps;
  const keyRequired = config.requireKey === 'always' || (config.requireKey === 'outside-sandbox' && !deps.sandboxMode);

  return function idempotencyStep(req, res, next) {
    const ctx = context(res);
    const { route, principal, body } = ctx;
    if (!route?.movesMoney || !principal || !body) {
      next();
      return;
    }
    let key: string | null;
    try {
      key = idempotencyKey(req, config.header, body.value);
    } catch (error) {
      next(error);
      return;
    }
    if (key === null) {
      if (keyRequired) {
        const alternative = route.group === 'receipts' ? ' (or an externalRefNo in the body)' : '';
        next(
          new GatewayError('invalid_request', `Money movement needs an ${config.header} header${alternative}, so that a retry can never post twice.`, {
            errors: [{ field: config.header, message: `required${alternative}` }],
          }),
        );
        return;
      }
      next();
      return;
    }
    if (deps.storeHeld?.()) {
      next(storeHeldError());
      return;
    }
    const evicting = deps.evictingPolicy?.() ?? null;
    if (evicting !== null) {
      next(
        new GatewayError(
          'store_unavailable',
          `The idempotency store runs with maxmemory-policy ${evicting}, which may drop its records, so this payment cannot be guarded against a repeat; retry later.`,
          {
            headers: { 'Retry-After': '60' },
          },
        ),
      );
      return;
    }
    const scope = sha256(`${principal.vendorId}\n${route.apiId}\n${key}`);
    // Keyed, so that the fingerprint of a body holding an override password stored in Redis
    // cannot be used to guess that password offline.
    const fingerprint = createHmac('sha256', deps.fingerprintKey).update(body.coreJson).digest();
    const token = randomUUID();
    store
      .claim(scope, fingerprint, token)
      .then(
        (outcome) => {
          switch (outcome.kind) {
            case 'claimed': {
              ctx.afterCore.register(claimDuties(store, logger, scope, fingerprint, token));
              next();
              return;
            }
            case 'completed':
              deps.onReplay?.(route.apiId);
              replay(res, outcome.response);
              return;
            case 'in_flight':
              next(
                new GatewayError('idempotency_in_progress', 'A request with this idempotency key is still being processed; retry when it has completed.', {
                  headers: { 'Retry-After': '1' },
                }),
              );
              return;
            case 'unknown':
              next(
                new GatewayError(
                  'outcome_unknown',
                  'An earlier request with this idempotency key may have reached the core banking system and its outcome is unknown, so it is not sent again. Check the account before posting again with a new key.',
                ),
              );
              return;
            case 'mismatch':
              next(
                new GatewayError(
                  'idempotency_key_reused',
                  'This idempotency key was already used with a different request body; use a new key for a new request.',
                ),
              );
              return;
            case 'store_lost':
              // Caught by the claim itself (the poll may be seconds away): start the hold, then refuse as the hold does.
              logger.error({ apiId: route.apiId }, 'an idempotency claim found the epoch marker gone or replaced: Redis lost its data');
              (deps.onStoreLost?.(outcome.epochId) ?? Promise.resolve()).then(
                () => next(storeHeldError()),
                () => next(storeHeldError()),
              );
              return;
          }
        },
        (error: unknown) => {
          // The claim may have been applied even though its reply was lost: take it back if Redis is there again.
          store.release(scope, token).catch(() => undefined);
          next(
            new GatewayError(
              'store_unavailable',
              'The idempotency store is unavailable, so this payment cannot be guarded against double posting; retry shortly.',
              { cause: error, headers: { 'Retry-After': '1' } },
            ),
          );
        },
      )
      .catch(next);
  };
}

function storeHeldError(): GatewayError {
  return new GatewayError(
    'store_unavailable',
    'The idempotency store lost its records recently, so this payment cannot be guarded against a repeat of an earlier one; retry later.',
    {
      headers: { 'Retry-After': '60' },
    },
  );
}

/** The vendor's key: the header, else the body's externalRefNo; null when there is neither. */
function idempotencyKey(req: Request, header: string, value: Readonly<Record<string, unknown>>): string | null {
  const sent = req.get(header);
  if (sent === undefined) {
    const reference = value.externalRefNo;
    return typeof reference === 'string' && reference.trim() !== '' ? reference : null;
  }
  // A structured-field string (RFC 8941) arrives quoted; a bare token is accepted as well.
  const key = /^"[^"\\]*"$/.test(sent) ? sent.slice(1, -1) : sent;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    throw new GatewayError('invalid_request', `The ${header} header must hold 1 to ${MAX_KEY_LENGTH} visible ASCII characters, no comma, on one header line.`, {
      errors: [{ field: header, message: `1 to ${MAX_KEY_LENGTH} visible ASCII characters, no comma` }],
    });
  }
  return key;
}

/** How many header lines named `header` (any case) the request carried: Node joins repeated ones with ", ". */
function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function replay(res: Response, response: StoredResponse): void {
  res.status(response.status);
  res.setHeader('Content-Type', response.contentType);
  res.setHeader('Idempotent-Replayed', 'true');
  if (response.location !== undefined) res.setHeader('Location', response.location);
  res.end(response.body);
}

/**
 * What the claim needs once the core's outcome is known. A vendor that goes away while the core
 * call runs changes nothing: its retries get 409 idempotency_in_progress until the call ends.
 */
function claimDuties(store: IdempotencyStore, logger: Logger, scope: string, fingerprint: Buffer, token: string): AfterCoreDuties {
  const attempt = async (operation: string, pending: Promise<void>): Promise<void> => {
    try {
      await pending;
    } catch (error) {
      logger.warn(
        { err: error, operation, idempotencyScope: scope },
        'idempotency store write failed; the key turns into outcome_unknown when its in-flight time ends',
      );
    }
  };
  // Nothing was posted: free the key for a retry.
  const release = (): Promise<void> => attempt('abandon', store.release(scope, token));
  return {
    step: 'idempotency',
    logger,
    // Stored for replays before the vendor receives it.
    answered: (response) => attempt('complete', store.complete(scope, fingerprint, token, response)),
    // The core may have posted: retries get 409 outcome_unknown, and nothing is sent again.
    unknown: () => attempt('unknown', store.markUnknown(scope, fingerprint, token)),
    refused: release,
    neverSent: release,
  };
}
