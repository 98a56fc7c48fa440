/**
 * The second factor of adding a bank account, owned by the gateway: two pipeline steps that
 * share one code store.
 *
 * `twoFactorVerification` answers `POST /bankaccounts/verification` itself (the core never
 * sees it): it checks the body, takes a send from the limits per mobile number and per
 * customer (429 `rate_limited`), stores an HMAC of the code (the body's `Code`, or six digits
 * from crypto.randomInt) for this vendor and customer with its lifetime (429
 * `two_factor_locked` while locked), sends the SMS, and answers 200
 * `{"status": "sent", "expiresInSeconds": 600}`. If the provider fails, the code is deleted and
 * the sends handed back before the 502 `sms_provider_failed`: nothing half-done remains.
 *
 * `twoFactorCheck` runs on `POST /bankaccounts/add` after the idempotency step (so that a
 * retry of an add that succeeded replays its answer instead of meeting a used code) and
 * before the core call: the body's `TwoFactorCode` must redeem the code sent for this vendor
 * and customer (see store.ts for single use, expiry and the lock). A wrong, expired, used or
 * never-sent code is one and the same 400 `two_factor_invalid`; a locked pair is 429
 * `two_factor_locked` with Retry-After. Any refusal abandons the idempotency claim (the core
 * was not reached), so the vendor may retry with the same key. On success the request goes on
 * without `TwoFactorCode` (ctx.body.value and coreJson).
 *
 * Reads the route, the principal and the body the body step parsed (ctx.body); sets ctx.body
 * on the add. Codes are never logged or stored in clear; a mobile number is logged masked
 * (`+*********456`), and the send limits count it under an HMAC, not the number itself.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { RedisClient } from '../../redis/redis-client';
import { validateBankAccountAdd, validateBankAccountVerification, type BodyValidation } from '../../contracts/bank-accounts';
import { GatewayError } from '../../errors/error-catalogue';
import type { Logger } from '../../logging/logger';
import { context, type RequestContext } from '../../request/context';
import type { Principal } from '../../access/snapshot';
import { maskPhoneNumber, type SmsProvider } from '../../sms/provider';
import { SendLimits } from './send-limits';
import { MemoryTwoFactorStore, RedisTwoFactorStore, type CodeOwner, type TwoFactorStore } from './code-store';
import type { TwoFactorConfig } from './two-factor.schema';

export const ADD_API_ID = 'POSTbankaccounts/add';

export interface TwoFactorDeps {
  /** Null in sandbox mode: codes and send counts live in this process. */
  readonly redis: RedisClient | null;
  /** The deployment's `redis.keyPrefix`. */
  readonly keyPrefix: string;
  readonly sms: SmsProvider;
  readonly logger: Logger;
  /** The clock of code lifetimes and locks (ms since the epoch); tests move it. */
  readonly now?: () => number;
}

export interface TwoFactorSteps {
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

export function twoFactor(config: TwoFactorConfig, deps: TwoFactorDeps): TwoFactorSteps {
  const pepper = config.pepper ?? randomBytes(32).toString('base64');
  const store: TwoFactorStore = deps.redis ? new RedisTwoFactorStore(deps.redis, deps.keyPrefix) : new MemoryTwoFactorStore();
  const limits = new SendLimits({ perNumber: config.sendLimitsPerNumber, perCustomer: config.sendLimitsPerCustomer }, deps.redis, deps.keyPrefix);
  const now = deps.now ?? Date.now;
  const { sms, logger } = deps;
  const ttlMs = config.codeTtlSeconds * 1000;
  const lockMs = config.lockSeconds * 1000;
  const minutes = String(Math.max(1, Math.round(config.codeTtlSeconds / 60)));

  const hmac = (...parts: Array<string | number>): string => createHmac('sha256', pepper).update(parts.join('\u0000')).digest('hex');
  const codeHash = (owner: CodeOwner, code: string): string => hmac('code', owner.vendorId, owner.customerId, code);
  const messageText = (code: string): string => config.messageTemplate.replaceAll('{code}', code).replaceAll('{minutes}', minutes);

  async function redeemCode(ctx: RequestContext): Promise<void> {
    const { TwoFactorCode: code, ...forCore } = validBody(ctx, validateBankAccountAdd);
    const owner: CodeOwner = { vendorId: principalOf(ctx).vendorId, customerId: forCore.CustomerId };
    const log = { requestId: ctx.requestId, vendorId: owner.vendorId, customerId: owner.customerId };
    const result = await store.redeem(owner, { hash: codeHash(owner, code), now: now(), maxAttempts: config.maxAttempts, lockMs });
    if (result.kind === 'locked') {
      const retryAfter = secondsFromMs(result.retryAfterMs);
      throw new GatewayError('two_factor_locked', `Too many wrong two-factor codes for this customer; retry in ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    if (result.kind === 'refused') {
      logger.warn({ ...log, wrongTries: result.wrongTries, locked: result.locked }, 'two-factor code refused');
      throw new GatewayError('two_factor_invalid', 'The two-factor code was not accepted; request a new one with POST /bankaccounts/verification.');
    }
    logger.info(log, 'two-factor code accepted');
    const body = ctx.body as NonNullable<RequestContext['body']>;
    ctx.body = { ...body, value: forCore, coreJson: JSON.stringify(forCore) };
  }

  return {
    verification: async function twoFactorVerification(_req, res, next) {
      const ctx = context(res);
      if (!ctx.route?.answeredByGateway) return next();
      const body = validBody(ctx, validateBankAccountVerification);
      const owner: CodeOwner = { vendorId: principalOf(ctx).vendorId, customerId: body.CustomerId };
      const to = maskPhoneNumber(body.MobileNumber);
      const log = { requestId: ctx.requestId, vendorId: owner.vendorId, customerId: owner.customerId, to };

      const permit = await limits.take(hmac('mobile', body.MobileNumber), String(body.CustomerId));
      if (!permit.granted) {
        const retryAfter = secondsFromMs(permit.retryAfterMs);
        logger.info(log, 'two-factor code not sent: send limit reached');
        throw new GatewayError('rate_limited', `Too many codes sent to this number or for this customer; retry in ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        });
      }
      const code = body.Code ?? String(randomInt(100_000, 1_000_000));
      const hash = codeHash(owner, code);
      let issued;
      try {
        issued = await store.issue(owner, { hash, now: now(), ttlMs });
      } catch (err) {
        await permit.refund();
        throw err;
      }
      if (issued.kind === 'locked') {
        await permit.refund();
        const retryAfter = secondsFromMs(issued.retryAfterMs);
        throw new GatewayError('two_factor_locked', `Too many wrong two-factor codes for this customer; retry in ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        });
      }
      try {
        await sms.send({ to: body.MobileNumber, text: messageText(code) });
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
    },

    check: async function twoFactorCheck(_req, res, next) {
      const ctx = context(res);
      if (ctx.route?.apiId !== ADD_API_ID) return next();
      try {
        await redeemCode(ctx);
      } catch (err) {
        // The core was not reached: free the idempotency key, so a retry with the right code may use it.
        await ctx.idempotencyGuard.abandon();
        throw err;
      }
      next();
    },
  };
}
