/**
 * What the idempotency step needs of a store, implemented in memory (memory-idempotency-store.ts,
 * sandbox mode) and in Redis (redis-idempotency-store.ts, shared by every instance).
 *
 * Reads nothing; exports the store contract. A record is one idempotency key's state:
 *   in flight   claimed by one request (its `token`), which may be talking to the core;
 *   completed   the vendor-facing response is stored and is replayed to retries;
 *   unknown     the request may have reached the core and nobody knows what happened, so the
 *               key is never sent again.
 * An in-flight record whose deadline has passed (its instance died mid-request) is unknown,
 * never free: money must not be posted twice. Every record carries the fingerprint of the body
 * that claimed it (the raw bytes of its keyed SHA-256, 32); the same key with another fingerprint
 * is a mismatch whatever the state.
 */

import type { StoredResponse } from '../../request/after-core';

/** A vendor-facing response, stored once and replayed byte for byte. */
export type { StoredResponse };

export type ClaimOutcome =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'completed'; readonly response: StoredResponse }
  | { readonly kind: 'in_flight' }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'mismatch' }
  /** The store lost its data since the instance last looked (the epoch marker `epochId` is gone or replaced); nothing was claimed. */
  | { readonly kind: 'store_lost'; readonly epochId: string };

export interface IdempotencyTimings {
  /** How long a claim may stay in flight before it counts as unknown. */
  readonly inFlightMs: number;
  /** How long a record is kept once its outcome is settled (completed or unknown). */
  readonly retentionMs: number;
}

/**
 * Every operation is atomic for its key. The writes that settle a claim act only while the
 * record still belongs to `token` (or has vanished): a late writer never overwrites a claim
 * that has since passed to another request.
 */
export interface IdempotencyStore {
  /** Claims `key` for the request holding `token`, or says why it may not proceed. */
  claim(key: string, fingerprint: Buffer, token: string): Promise<ClaimOutcome>;
  /** Stores the response; wins over an unknown state, since the outcome is now known. */
  complete(key: string, fingerprint: Buffer, token: string, response: StoredResponse): Promise<void>;
  /** Forgets the claim (the core was never reached), so that a retry may post. */
  release(key: string, token: string): Promise<void>;
  /** Marks the claim unknown, unless it was completed meanwhile. */
  markUnknown(key: string, fingerprint: Buffer, token: string): Promise<void>;
}
