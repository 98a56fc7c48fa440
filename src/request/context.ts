/**
 * The typed per-request context that pipeline steps share, and its accessor: the only code
 * that touches `res.locals`.
 *
 * Set by request-context (first step, which also counts the bytes written out); filled in by route-match (route, params), the target
 * step (coreTarget), authenticate (principal, vendor), the body step (body or rawBody),
 * idempotency (idempotencyGuard) and the core client (upstreamSeconds).
 * Read by every later step, the error handler and the access log.
 */
import type { Response } from 'express';
import type { Route } from '../catalogue/api-catalogue';
import type { MatchResult } from '../catalogue/matcher';
import type { AdminIdentity } from '../access/admin-directory';
import type { Principal } from '../access/access-index';
import type { VendorRecord } from '../access/access-state';
import type { WireFormat } from '../contracts/body-contract';
import type { RequestTrace } from '../tracing/tracing';


/** A request body that the body step parsed and validated (routes with a body schema only). */
export interface ParsedBody {
  /** The canonical value: the schema's JSON (camelCase) names, decimals kept exact. */
  readonly value: Readonly<Record<string, unknown>>;
  /** Canonical JSON text, exactly what the core receives; idempotency fingerprints it. */
  readonly coreJson: string;
  readonly requestFormat: WireFormat;
  /** Chosen from Accept, else the request's family. */
  readonly responseFormat: WireFormat;
  /** The media type to answer with (one of the route's `produces`). */
  readonly responseMediaType: string;
  /** The namespace an XML answer is written in: the XML request's own, else `xml.responseNamespace`. */
  readonly responseXmlNamespace: string;
}

/** A body the body step refused: its fields that could be read, and how to answer. */
export type RefusedBody = Pick<ParsedBody, 'value' | 'responseFormat' | 'responseMediaType' | 'responseXmlNamespace'>;

/** A body the gateway does not parse (resource POST and PUT), read whole before the core is called. */
export interface OpaqueBody {
  readonly bytes: Buffer;
  /** The vendor's Content-Type, one the route consumes; null for an empty body. */
  readonly contentType: string | null;
}

/** What a stored response of a money movement looks like, for replays. */
export interface StoredResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The Location the first answer carried (a gateway path: a bank account added), sent again with each replay. */
  readonly location?: string;
}

/**
 * How the terminal step settles the claim of the one request allowed to reach the core (set
 * by the idempotency step; see there). Every method resolves, never rejects.
 */
export interface IdempotencyGuard {
  /** False when the request carried no key (or is not money movement): nothing is guarded. */
  readonly guarded: boolean;
  /** The core answered: store this vendor-facing response for replays, then send it. */
  complete(response: StoredResponse): Promise<void>;
  /** The core was certainly not reached (breaker open, connection refused): free the key for a retry. */
  abandon(): Promise<void>;
  /** The request may have reached the core (timeout or reset after sending): retries get 409 outcome_unknown. */
  unknown(): Promise<void>;
  /**
   * The core call begins: from here only its end settles the key. A vendor that goes away
   * meanwhile changes nothing; its retries get 409 idempotency_in_progress until the call ends.
   */
  coreCallStarted(): void;
}

export const UNGUARDED: IdempotencyGuard = Object.freeze({
  guarded: false,
  complete: () => Promise.resolve(),
  abandon: () => Promise.resolve(),
  unknown: () => Promise.resolve(),
  coreCallStarted: () => undefined,
});

/** A two-factor code spent on this request. */
export interface RedeemedCode {
  /** Makes the code usable again: the change it allowed did not happen. */
  restore(): Promise<void>;
}

export interface RequestContext {
  readonly requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  readonly startedAt: bigint;
  match: MatchResult | null;
  route: Route | null;
  params: Record<string, string> | null;
  /** Path and query the core receives, built from the route and checked (request-target step). */
  coreTarget: string | null;
  principal: Principal | null;
  vendor: VendorRecord | null;
  /** Set by the body step on routes with a body schema. */
  body: ParsedBody | null;
  /** Set by the body step on routes that take a body without a schema. */
  rawBody: OpaqueBody | null;
  /**
   * Set by the body step when it refused a body whose contract answers invalid input as the body
   * itself (receipts): what it could read, and the format the answer is written in.
   */
  refusedBody: RefusedBody | null;
  /** The receipt (the core's JSON) the core refused a receipt posting with; the error handler answers it with the problem alongside. */
  coreRefusedReceipt: string | null;
  /** Set by idempotency on a keyed money movement; the terminal step settles it. */
  idempotencyGuard: IdempotencyGuard;
  /** How long the core took (to its answer's headers, or its whole answer when buffered). */
  upstreamSeconds: number | null;
  /** Body bytes written to the vendor as they went on the wire (compressed, when compressed), for the access log. */
  bytesOut: number;
  /** Set by the two-factor check once it redeemed a code; the exchange step hands it back if the core refuses the change. */
  secondFactor: RedeemedCode | null;
  /** The request's trace when tracing is on (set by the trace step); child spans hang off it. */
  trace: RequestTrace | null;
  /** Admin API only: who made the call, for the audit log (`admin:<id>`, set by the admin token check). */
  adminActor: string | null;
  /** Admin API only: the admin the token belongs to, with its role (set by the admin token check). */
  admin: AdminIdentity | null;
}

export function newContext(requestId: string): RequestContext {
  return {
    requestId,
    startedAt: process.hrtime.bigint(),
    match: null,
    route: null,
    params: null,
    coreTarget: null,
    principal: null,
    vendor: null,
    body: null,
    rawBody: null,
    refusedBody: null,
    coreRefusedReceipt: null,
    idempotencyGuard: UNGUARDED,
    upstreamSeconds: null,
    bytesOut: 0,
    secondFactor: null,
    trace: null,
    adminActor: null,
    admin: null,
  };
}

export function setContext(res: Response, context: RequestContext): void {
  res.locals.ctx = context;
}

export function getContext(res: Response): RequestContext | undefined {
  return res.locals.ctx as RequestContext | undefined;
}

/** For steps that run after request-context: the context is always there. */
export function context(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

/** The admin who made this admin API call; admin routes run only after the token check set it. */
export function authenticatedAdmin(res: Response): string {
  return signedInAdmin(res).actor;
}

/** The admin of this call with its audit label; admin routes run only after the token check. */
export function signedInAdmin(res: Response): { readonly actor: string; readonly identity: AdminIdentity } {
  const { adminActor, admin } = context(res);
  if (adminActor === null || admin === null) throw new Error('admin routes run after the admin token check');
  return { actor: adminActor, identity: admin };
}
