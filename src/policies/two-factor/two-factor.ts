/**
 * The second factor of changing where a customer's money can go, owned by the gateway: two
 * pipeline steps that share one code store.
 *
 * `twoFactorVerification` answers `POST /bankaccounts/verification` itself (the core never
 * sees it). It reads the customer, so the caller must also be licensed and permitted for
 * `GETcustomers/{id}` (403 as the authorize step answers): else verification would tell a key
 * that may not read customers which number is whose. The code goes only to a mobile number the
 * bank holds for that customer: the step reads the customer from the core
 * (`GET /customers/{CustomerId}`, through its own `customers` breaker group, so failing lookups
 * never open the group that guards adds). An unknown customer and a number that is none of the
 * customer's `Telephone1..3` get one and the same 400 (naming MobileNumber), after the same
 * work; a customer who has not consented to SMS (`SmsConsentGiven: false`) is told apart only
 * once the number matched. Every send, misses included, first takes its points from the send
 * limits (per number and per customer whoever asks, per vendor: its SMS budget; 429
 * `sms_rate_limited`); a miss hands back only the number's point (see send-limits.ts). The code
 * is six digits from crypto.randomInt; a vendor's own `Code` is taken only in sandbox mode
 * (where vendors test against the spec's field) and refused (400) with a real core, where a
 * code the vendor knows would prove nothing.
 *
 * Dynamic linking (PSD2 RTS art. 5): a code is bound to what it authorises. Its HMAC covers
 * vendor, customer, code and a binding: with `AccountNumber` and `SortCode` in the body (both or
 * neither) the binding is that destination, the SMS names the account's last four digits, and
 * the code allows an add or an update to exactly that destination; without them the code allows
 * only an add (of any destination), never a change of an existing account's number. The code's
 * HMAC is stored per customer with an absolute expiry (429 `two_factor_locked` while the
 * customer is locked), the SMS sent, and the answer is 200
 * `{"status": "sent", "expiresInSeconds": 600}`. If the provider fails, the code is deleted and
 * the sends handed back before the 502 `sms_provider_failed`: nothing half-done remains.
 *
 * `twoFactorCheck` runs after the idempotency step (so that a retry of an add that succeeded
 * replays its answer instead of meeting a used code) and before the core call, on
 * `POST /bankaccounts/add` and on a `PUT /bankaccounts/{id}` that changes AccountNumber or
 * SortCode (the step reads the customer's accounts from the core to know, and refuses with 400
 * an account that is not the body's customer's; closing an account needs no code). The body's `TwoFactorCode` must redeem the code this vendor had sent for the
 * account's customer (see code-store.ts for single use, expiry and the lock, which holds for
 * every vendor). A wrong, expired, used or never-sent code is one and the same 400
 * `two_factor_invalid`, whose detail says whether the code this vendor was sent is still valid
 * (until when) and the lock rule (never the tries left), or that this one locked the
 * customer; a missing one on such a PUT is 400 naming `TwoFactorCode`; a locked
 * customer is 429 `two_factor_locked` with Retry-After. Any refusal settles the request's
 * after-core duties as never sent (the idempotency claim is freed). A redeemed code registers
 * its own duty (request/after-core.ts): it is handed back if the core then refuses the change
 * (4xx) or is never reached, so the corrected retry may use it, with its original expiry and at
 * most three times (code-store.ts): refusals never keep a code alive.
 *
 * Reads the route, the principal, the target and the body the body step parsed; sets ctx.body
 * (without TwoFactorCode) and registers the redeemed code's after-core duty. Codes are never logged or stored in clear; a
 * mobile number is logged masked (`+*********456`), and the send limits count it under an HMAC.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../../access/access-index';
import type { AccessCache } from '../../access/cache';
import {
  isDramaMobile,
  normaliseUkMobileNumber,
  validateBankAccountAdd,
  validateBankAccountUpdate,
  validateBankAccountVerification,
  type BodyValidation,
} from '../../contracts/bank-accounts';
import type { CoreClient } from '../../core-client/core-client';
import { GatewayError } from '../../errors/error-catalogue';
import type { Logger } from '../../logging/logger';
import type { RedisClient } from '../../redis/redis-client';
import { context, type RequestContext } from '../../request/context';
import { maskPhoneNumber, type SmsProvider } from '../../sms/provider';
import { MemoryTwoFactorStore, RedisTwoFactorStore, type CodeOwner, type TwoFactorStore } from './code-store';
import { codeRefusedDetail } from './refusal-detail';
import { SendLimits } from './send-limits';
import type { TwoFactorConfig } from './two-factor.schema';

const ADD_API_ID = 'POSTbankaccounts/add';
const UPDATE_API_ID = 'PUTbankaccounts/{bankaccountid}';
/** The API id whose read verification makes: the caller must be allowed it. */
const CUSTOMER_READ_API_ID = 'GETcustomers/{id}';
/** What a code without a destination allows: adding an account, nothing else. */
const ADD_ONLY = 'add';

interface TwoFactorDeps {
  /** Null in sandbox mode: codes and send counts live in this process. */
  readonly redis: RedisClient | null;
  /** The deployment's `redis.keyPrefix`. */
  readonly keyPrefix: string;
  readonly sms: SmsProvider;
  readonly logger: Logger;
  /** Reads the customer behind a code and the account a PUT would change. */
  readonly coreClient: CoreClient;
  /** Whether the caller may read the customer verification looks up. */
  readonly access: AccessCache;
  /** True with the in-process sandbox core: a vendor's own `Code` is taken. */
  readonly sandboxMode: boolean;
  /** Told when a vendor's SMS budget refuses a send (gateway_sms_budget_exhausted_total). */
  readonly onBudgetExhausted?: (vendorId: string) => void;
  /** The clock of code lifetimes and locks (ms since the epoch); tests move it. */
  readonly now?: () => number;
}

interface TwoFactorSteps {
  readonly verification: RequestHandler;
  readonly check: RequestHandler;
}

function secondsFromMs(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new Error('the two-factor steps run after authentication');
  return ctx.principal;
}

function validBody<T>(ctx: RequestContext, validate: (value: unknown) => BodyValidation<T>): T {
  if (!ctx.body) throw new Error('the two-factor steps run after the body step');
  const result = validate(ctx.body.value);
  if (!result.ok) throw new GatewayError('invalid_request', 'The request body has invalid fields.', { errors: result.errors });
  return result.value;
}

/** A bank account id in the path: the decimal digits of the core's int. */
const ACCOUNT_ID = /^\d{1,10}$/;

function refused(field: string, message: string, detail: string): GatewayError {
  return new GatewayError('invalid_request', detail, { errors: [{ field, message }] });
}

/** A recipient refused after the send limits counted it: the number's point goes back, the others stay. */
class RecipientMiss extends Error {
  override readonly name = 'RecipientMiss';
  constructor(readonly refusal: GatewayError) {
    super(refusal.detail);
  }
}

function locked(retryAfterMs: number): GatewayError {
  const retryAfter = secondsFromMs(retryAfterMs);
  return new GatewayError('two_factor_locked', `Too many wrong two-factor codes for this customer; retry in ${retryAfter} s.`, {
    headers: { 'Retry-After': retryAfter },
  });
}

/** A field of a core record, whatever the letter case the core writes it in. */
function field(record: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === lower) return value;
  return undefined;
}

/** A JSON object from a core answer of 200, or null for any other. */
function coreRecord(status: number, body: Buffer): Record<string, unknown> | null {
  if (status !== 200) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The JSON objects of a core answer of 200 that is a list, or null for any other. */
function coreList(status: number, body: Buffer): Array<Record<string, unknown>> | null {
  if (status !== 200) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parsed) ? parsed.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : null;
  } catch {
    return null;
  }
}

/** The UK mobile numbers among a customer's Telephone1..3 (the core writes them as numbers or text), in E.164. */
function mobilesOnFile(customer: Record<string, unknown>): Set<string> {
  const mobiles = new Set<string>();
  for (const name of ['Telephone1', 'Telephone2', 'Telephone3']) {
    const value = field(customer, name);
    if (typeof value !== 'number' && typeof value !== 'string') continue;
    const result = normaliseUkMobileNumber(String(value));
    if (result.ok) mobiles.add(result.e164);
  }
  return mobiles;
}

export function twoFactor(config: TwoFactorConfig, deps: TwoFactorDeps): TwoFactorSteps {
  const pepper = config.pepper ?? randomBytes(32).toString('base64');
  const store: TwoFactorStore = deps.redis ? new RedisTwoFactorStore(deps.redis, deps.keyPrefix) : new MemoryTwoFactorStore();
  const limits = new SendLimits(
    { perNumber: config.sendLimitsPerNumber, perCustomer: config.sendLimitsPerCustomer, perVendor: config.sendLimitsPerVendor },
    deps.redis,
    deps.keyPrefix,
  );
  const now = deps.now ?? Date.now;
  const { sms, logger, coreClient } = deps;
  const ttlMs = config.codeTtlSeconds * 1000;
  const lockMs = config.lockSeconds * 1000;
  const minutes = String(Math.max(1, Math.round(config.codeTtlSeconds / 60)));

  const hmac = (...parts: Array<string | number>): string => createHmac('sha256', pepper).update(parts.join('\u0000')).digest('hex');
  // The vendor is part of the hash: only the vendor that asked for a code can redeem it; the
  // binding (ADD_ONLY, or a destination) limits what the code allows.
  const codeHash = (vendorId: string, owner: CodeOwner, code: string, binding: string): string => hmac('code', vendorId, owner.customerId, binding, code);
  const destination = (accountNumber: string, sortCode: string): string => `to:${sortCode}:${accountNumber}`;
  const messageText = (code: string, accountNumber: string | null): string =>
    (accountNumber === null ? config.messageTemplate : config.destinationMessageTemplate.replaceAll('{last4}', accountNumber.slice(-4)))
      .replaceAll('{code}', code)
      .replaceAll('{minutes}', minutes);

  /** 403 unless the caller may read customers: verification reads one, and tells whether a number is theirs. */
  function checkMayReadCustomers(ctx: RequestContext): void {
    const index = deps.access.index;
    const principal = principalOf(ctx);
    const denied = index && ctx.vendor ? index.authorize(principal, ctx.vendor, CUSTOMER_READ_API_ID) : 'permission_denied';
    if (denied)
      throw new GatewayError(denied, `Verification reads the customer, so it needs what ${CUSTOMER_READ_API_ID} needs. API id: ${CUSTOMER_READ_API_ID}`);
  }

  /**
   * Refuses a send the customer's record does not allow. An unknown customer and a number not on
   * file are one answer (no oracle of who holds which number); consent is told only to a caller
   * who named the customer's own number.
   */
  async function checkRecipient(req: Request, ctx: RequestContext, customerId: number, mobile: string): Promise<void> {
    const answer = await coreClient.read(req, ctx, 'customers', `/customers/${customerId}`);
    const customer = answer.status === 404 ? null : coreRecord(answer.status, answer.body);
    if (answer.status !== 404 && !customer) throw new GatewayError('bad_gateway', "The core banking system's customer record could not be read.");
    if (!customer || !mobilesOnFile(customer).has(mobile)) {
      throw new RecipientMiss(
        refused(
          'MobileNumber',
          'is not a mobile number the bank holds for this customer',
          'No code was sent: codes go only to a mobile number the bank holds for the customer.',
        ),
      );
    }
    if (field(customer, 'SmsConsentGiven') === false) {
      throw new RecipientMiss(refused('CustomerId', 'has not consented to SMS', 'This customer has not consented to SMS, so no code can be sent.'));
    }
  }

  /** Redeems the body's code for `owner` under one of `bindings`, on behalf of the calling vendor; leaves a way to hand it back. */
  async function redeem(ctx: RequestContext, owner: CodeOwner, code: string, bindings: readonly string[]): Promise<void> {
    const vendorId = principalOf(ctx).vendorId;
    const log = { requestId: ctx.requestId, vendorId, customerId: owner.customerId };
    const hashes = bindings.map((binding) => codeHash(vendorId, owner, code, binding));
    const triedAt = now();
    const result = await store.redeem(owner, { hashes, now: triedAt, maxAttempts: config.maxAttempts, lockMs, holder: vendorId });
    if (result.kind === 'locked') throw locked(result.retryAfterMs);
    if (result.kind === 'refused') {
      logger.warn({ ...log, wrongTries: result.wrongTries, locked: result.locked }, 'two-factor code refused');
      throw new GatewayError('two_factor_invalid', codeRefusedDetail(result, triedAt, config));
    }
    logger.info(log, 'two-factor code accepted');
    const { hash, expiresAt, restores } = result;
    // The change did not happen (the core refused it, or was never reached), so the code
    // protected nothing yet: the corrected retry may use it, within its original lifetime and a
    // few times only. An answer or an unknown outcome keeps it spent.
    const handBack = async (): Promise<void> => {
      const restored = await store.restore(owner, { hash, expiresAt, restores, now: now(), holder: vendorId }).catch((err: unknown) => {
        logger.warn({ ...log, err }, 'could not hand back a two-factor code');
        return false;
      });
      logger.info(
        { ...log, restored, restores },
        restored ? 'two-factor code handed back: the change did not happen' : 'two-factor code spent: not handed back',
      );
    };
    ctx.afterCore.register({ step: 'two-factor', logger, refused: handBack, neverSent: handBack });
  }

  /** The body without the code, for the core (the contract already leaves it out of coreJson). */
  function withoutCode(ctx: RequestContext): void {
    const body = ctx.body as NonNullable<RequestContext['body']>;
    const { TwoFactorCode: _code, Id: _id, ...forCore } = body.value;
    ctx.body = { ...body, value: forCore };
  }

  /**
   * PUT: the account must be one of the body's customer's (the gateway does not move accounts
   * between customers), and a change of AccountNumber or SortCode needs that customer's code.
   */
  async function checkUpdate(req: Request, ctx: RequestContext): Promise<void> {
    const update = validBody(ctx, validateBankAccountUpdate);
    // Digits only: the core receives the path as written, so `7e0` or `0x7` must not pass as account 7 here.
    const pathId = ctx.params?.bankaccountid ?? '';
    if (!ACCOUNT_ID.test(pathId)) throw refused('bankaccountid', 'must be 1 to 10 digits', 'The bank account id in the path must be a number.');
    const accountId = Number(pathId);
    if (update.Id !== undefined && update.Id !== accountId)
      throw refused('Id', 'must be the Id in the path', 'The body names another bank account than the path.');
    const answer = await coreClient.read(req, ctx, 'bankaccounts', `/customers/${update.CustomerId}/bankaccounts`);
    const accounts = coreList(answer.status, answer.body);
    const current = accounts?.find((account) => Number(field(account, 'Id')) === accountId);
    if (!current) {
      throw refused(
        'CustomerId',
        'has no bank account with this Id',
        "The bank account is not one of this customer's; an account cannot move to another customer.",
      );
    }
    const digits = (value: unknown): string => String(value ?? '').replace(/\D/g, '');
    const redirects = digits(field(current, 'AccountNumber')) !== update.AccountNumber || digits(field(current, 'SortCode')) !== update.SortCode;
    if (redirects) {
      if (update.TwoFactorCode === null || update.TwoFactorCode === undefined) {
        throw refused(
          'TwoFactorCode',
          'required to change AccountNumber or SortCode',
          'Changing where this account points needs a two-factor code sent to its customer.',
        );
      }
      // Only a code bound to this very destination may point an account elsewhere.
      await redeem(ctx, { customerId: update.CustomerId }, update.TwoFactorCode, [destination(update.AccountNumber, update.SortCode)]);
    }
    withoutCode(ctx);
  }

  async function sendCode(req: Request, res: Response): Promise<void> {
    const ctx = context(res);
    const body = validBody(ctx, validateBankAccountVerification);
    const vendorId = principalOf(ctx).vendorId;
    const owner: CodeOwner = { customerId: body.CustomerId };
    const to = maskPhoneNumber(body.MobileNumber);
    const log = { requestId: ctx.requestId, vendorId, customerId: owner.customerId, to };
    const accountNumber = body.AccountNumber ?? null;
    const sortCode = body.SortCode ?? null;
    if ((accountNumber === null) !== (sortCode === null)) {
      const missing = accountNumber === null ? 'AccountNumber' : 'SortCode';
      throw refused(missing, 'required with the other half of the destination', 'A destination is AccountNumber and SortCode together, or neither.');
    }
    const binding = accountNumber !== null && sortCode !== null ? destination(accountNumber, sortCode) : ADD_ONLY;
    if (body.Code != null && !deps.sandboxMode) {
      throw refused('Code', 'set by the gateway: leave it out', 'The gateway generates the code; a Code of your own is taken only in the sandbox.');
    }
    if (isDramaMobile(body.MobileNumber) && !deps.sandboxMode) {
      throw refused(
        'MobileNumber',
        "is in Ofcom's drama range (07700 900000-900999), which the sandbox alone takes",
        "No phone has a number in the drama range; use the customer's real mobile number with a real core.",
      );
    }
    checkMayReadCustomers(ctx);

    // Limits first: a miss counts too, so probing for numbers spends the prober's budget.
    const permit = await limits.take(hmac('mobile', body.MobileNumber), String(body.CustomerId), vendorId);
    if (!permit.granted) {
      const retryAfter = secondsFromMs(permit.retryAfterMs);
      logger.info({ ...log, refusedBy: permit.refusedBy }, 'two-factor code not sent: send limit reached');
      if (permit.refusedBy.includes('vendor')) deps.onBudgetExhausted?.(vendorId);
      const which = permit.refusedBy.includes('vendor') ? "this vendor's SMS budget is spent" : 'too many codes were asked for this number or this customer';
      throw new GatewayError('sms_rate_limited', `No code sent: ${which}; retry in ${retryAfter} s.`, { headers: { 'Retry-After': retryAfter } });
    }
    try {
      await checkRecipient(req, ctx, body.CustomerId, body.MobileNumber);
    } catch (err) {
      // A miss keeps the customer's and the vendor's points; anything else (the core away) costs nothing.
      await permit.refund(err instanceof RecipientMiss ? ['number'] : undefined);
      if (err instanceof RecipientMiss) {
        logger.info({ ...log, refusal: err.refusal.errors?.[0]?.message }, 'two-factor code not sent: recipient refused');
        throw err.refusal;
      }
      throw err;
    }
    const code = body.Code ?? String(randomInt(100_000, 1_000_000));
    const hash = codeHash(vendorId, owner, code, binding);
    let issued;
    try {
      issued = await store.issue(owner, { hash, now: now(), ttlMs, holder: vendorId });
    } catch (err) {
      await permit.refund();
      throw err;
    }
    if (issued.kind === 'locked') {
      await permit.refund();
      throw locked(issued.retryAfterMs);
    }
    try {
      await sms.send({ to: body.MobileNumber, text: messageText(code, accountNumber) });
    } catch (err) {
      await permit.refund();
      await store.discard(owner, hash).catch((discardError: unknown) => {
        // A code left behind still ends with its lifetime; nothing else depends on it.
        logger.error({ ...log, err: discardError }, 'could not discard an unsent two-factor code');
      });
      logger.warn({ ...log, provider: sms.kind, reason: (err as Error).message }, 'two-factor code not sent: SMS provider failed');
      throw new GatewayError('sms_provider_failed', 'The SMS could not be sent, and no code is pending; retry shortly.', { cause: err });
    }
    logger.info({ ...log, provider: sms.kind }, 'two-factor code sent');
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'sent', expiresInSeconds: config.codeTtlSeconds });
  }

  async function checkCode(req: Request, res: Response, next: NextFunction, apiId: string): Promise<void> {
    const ctx = context(res);
    try {
      if (apiId === ADD_API_ID) {
        const add = validBody(ctx, validateBankAccountAdd);
        // A code without a destination allows any add; one with a destination, an add of that one only.
        await redeem(ctx, { customerId: add.CustomerId }, add.TwoFactorCode, [ADD_ONLY, destination(add.AccountNumber, add.SortCode)]);
        withoutCode(ctx);
      } else {
        await checkUpdate(req, ctx);
      }
    } catch (err) {
      // The core was not reached: settled now, not when the answer closes, so the idempotency key
      // is free by the time the vendor reads the refusal and retries with the right code.
      await ctx.afterCore.settle({ kind: 'neverSent' });
      throw err;
    }
    next();
  }

  // The steps stay synchronous for the requests they let pass (most of them): no promise per request.
  return {
    verification: function twoFactorVerification(req, res, next) {
      if (!context(res).route?.answeredByGateway) {
        next();
        return;
      }
      return sendCode(req, res);
    },
    check: function twoFactorCheck(req, res, next) {
      const apiId = context(res).route?.apiId;
      if (apiId !== ADD_API_ID && apiId !== UPDATE_API_ID) {
        next();
        return;
      }
      return checkCode(req, res, next, apiId);
    },
  };
}
