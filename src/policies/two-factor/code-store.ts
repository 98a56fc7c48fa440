/**
 * Where two-factor codes live between the SMS and the change they allow: per customer, the hash
 * of the live code and when it expires, and the count of wrong codes with the lock they lead
 * to. Per customer, not per vendor: a second vendor can neither go on guessing where the first
 * was locked out nor hold a code beside the first one's (the code's hash binds the vendor that
 * asked for it, so only that vendor can redeem it).
 * Two stores behind one interface: memory (one instance) and Redis (shared by every instance).
 *
 * Rules both stores keep, each operation atomic:
 * - issuing a code replaces the earlier one, but never touches the wrong-code count: a new
 *   send does not undo wrong guesses; while locked, no code is issued;
 * - redeeming succeeds once: the code matches one of the hashes the caller offers (a code is
 *   bound to what it authorises, so an operation may be allowed by more than one binding), has
 *   not expired, and the pair is not locked; success deletes the code and the count and answers
 *   what restoring needs: the matched hash, its absolute expiry and how often it was restored;
 * - restoring (the core refused the change the code allowed) puts the code back with its
 *   original expiry, never a fresh one, and only while it is unexpired, no newer code was issued
 *   meanwhile, the pair is not locked and it was restored fewer than MAX_RESTORES times: a
 *   code's lifetime is absolute, and refusals cannot keep it alive;
 * - any other redeem is a wrong try: the count grows (wrong tries are remembered until
 *   `lockMs` after the last one); the try that reaches `maxAttempts` deletes the code and
 *   locks the pair for `lockMs`. A wrong try answers whether the caller's code is still live
 *   and until when (a code is issued to a holder, the vendor that asked: only that holder hears
 *   of it, so no vendor learns of another's codes), so the vendor knows whether to ask the
 *   customer again or to send a new code.
 *
 * Times are the caller's clock (`now`, ms), so that expiry follows an injected clock. Redis
 * keys also get a TTL, as garbage collection only. Both keys of a pair share one hash tag
 * (`{2fa:<customer>}`), so each script touches one Redis Cluster slot. Only hashes
 * are stored, never a code. Redis errors surface as StoreUnavailableError (503).
 */
import { timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '../../redis/redis-client';
import { StoreUnavailableError } from '../../errors/error-catalogue';

/** Whose code: the customer the bank account belongs to. */
export interface CodeOwner {
  readonly customerId: number;
}

export interface IssueRequest {
  readonly hash: string;
  readonly now: number;
  readonly ttlMs: number;
  /** Who may redeem it (the vendor that asked): a wrong try of this holder hears whether it is live. */
  readonly holder: string;
}

/** How often a code can be handed back after the core refused its change; then it is spent. */
const MAX_RESTORES = 3;

export interface RedeemRequest {
  /** The hashes that would allow this operation; the code held must be one of them. */
  readonly hashes: readonly string[];
  readonly now: number;
  readonly maxAttempts: number;
  readonly lockMs: number;
  /** Who redeems: told of the live code's expiry on a wrong try, when the code is theirs. */
  readonly holder: string;
}

export interface RestoreRequest {
  readonly hash: string;
  /** The code's original expiry (ms): restoring never extends it. */
  readonly expiresAt: number;
  /** Restores before this one. */
  readonly restores: number;
  readonly now: number;
  readonly holder: string;
}

/** What a redeemed code needs to be put back as it was. */
interface RedeemedCodeState {
  readonly hash: string;
  readonly expiresAt: number;
  readonly restores: number;
}

type LiveCode = { readonly expiresAt: number } | 'none' | 'unknown';

export type IssueResult = { readonly kind: 'issued' } | { readonly kind: 'locked'; readonly retryAfterMs: number };

export type RedeemResult =
  | ({ readonly kind: 'accepted' } & RedeemedCodeState)
  /**
   * `wrongTries` counts this one; `locked` says this try locked the pair; `liveCode` is the
   * holder's code still live after this try (when it expires), `none` (none of theirs is), or
   * `unknown` (a live code stored without a holder, by an instance older than holders).
   */
  | { readonly kind: 'refused'; readonly wrongTries: number; readonly locked: boolean; readonly liveCode: LiveCode }
  | { readonly kind: 'locked'; readonly retryAfterMs: number };

export interface TwoFactorStore {
  issue(owner: CodeOwner, request: IssueRequest): Promise<IssueResult>;
  redeem(owner: CodeOwner, request: RedeemRequest): Promise<RedeemResult>;
  /** Puts a redeemed code back (see the rules above); false when it is spent instead. */
  restore(owner: CodeOwner, request: RestoreRequest): Promise<boolean>;
  /** Deletes the code if it is still the one with this hash (a newer send keeps its own). */
  discard(owner: CodeOwner, hash: string): Promise<void>;
}

interface MemoryEntry {
  code: { hash: string; expiresAt: number; restores: number; holder: string } | null;
  wrongTries: number;
  /** Wrong tries are forgotten after this. */
  triesResetAt: number;
  lockedUntil: number;
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class MemoryTwoFactorStore implements TwoFactorStore {
  private readonly entries = new Map<string, MemoryEntry>();

  /** Past `sweepThreshold` entries, a write first forgets those with nothing left to remember. */
  constructor(private readonly sweepThreshold = 10_000) {}

  /** Pairs held: live codes, counted wrong tries, locks. */
  get size(): number {
    return this.entries.size;
  }

  async issue(owner: CodeOwner, { hash, now, ttlMs, holder }: IssueRequest): Promise<IssueResult> {
    const entry = this.entry(owner);
    if (entry.lockedUntil > now) return { kind: 'locked', retryAfterMs: entry.lockedUntil - now };
    entry.code = { hash, expiresAt: now + ttlMs, restores: 0, holder };
    this.remember(owner, entry, now);
    return { kind: 'issued' };
  }

  async redeem(owner: CodeOwner, { hashes, now, maxAttempts, lockMs, holder }: RedeemRequest): Promise<RedeemResult> {
    const entry = this.entry(owner);
    if (entry.lockedUntil > now) return { kind: 'locked', retryAfterMs: entry.lockedUntil - now };
    const code = entry.code;
    if (code && code.expiresAt > now && hashes.some((hash) => sameHash(code.hash, hash))) {
      this.entries.delete(key(owner));
      return { kind: 'accepted', hash: code.hash, expiresAt: code.expiresAt, restores: code.restores };
    }
    const wrongTries = (entry.triesResetAt > now ? entry.wrongTries : 0) + 1;
    const locked = wrongTries >= maxAttempts;
    if (locked) {
      entry.code = null;
      entry.wrongTries = 0;
      entry.lockedUntil = now + lockMs;
    } else {
      entry.wrongTries = wrongTries;
      entry.triesResetAt = now + lockMs;
    }
    this.remember(owner, entry, now);
    const live = entry.code !== null && entry.code.expiresAt > now && entry.code.holder === holder;
    return { kind: 'refused', wrongTries, locked, liveCode: live && entry.code ? { expiresAt: entry.code.expiresAt } : 'none' };
  }

  async restore(owner: CodeOwner, { hash, expiresAt, restores, now, holder }: RestoreRequest): Promise<boolean> {
    const entry = this.entry(owner);
    if (entry.lockedUntil > now || entry.code !== null || expiresAt <= now || restores >= MAX_RESTORES) return false;
    entry.code = { hash, expiresAt, restores: restores + 1, holder };
    this.remember(owner, entry, now);
    return true;
  }

  async discard(owner: CodeOwner, hash: string): Promise<void> {
    const entry = this.entries.get(key(owner));
    if (entry?.code && sameHash(entry.code.hash, hash)) entry.code = null;
  }

  private entry(owner: CodeOwner): MemoryEntry {
    return this.entries.get(key(owner)) ?? { code: null, wrongTries: 0, triesResetAt: 0, lockedUntil: 0 };
  }

  private remember(owner: CodeOwner, entry: MemoryEntry, now: number): void {
    if (this.entries.size >= this.sweepThreshold) this.sweep(now);
    this.entries.set(key(owner), entry);
  }

  private sweep(now: number): void {
    for (const [name, entry] of this.entries) {
      const live = (entry.code !== null && entry.code.expiresAt > now) || entry.triesResetAt > now || entry.lockedUntil > now;
      if (!live) this.entries.delete(name);
    }
  }
}

function key(owner: CodeOwner): string {
  return String(owner.customerId);
}

/** KEYS: code, tries. ARGV: hash, now, expiresAt, ttlMs, holder. Returns 0, or the ms the lock still lasts. */
const ISSUE = `
local lockedUntil = tonumber(redis.call('HGET', KEYS[2], 'lockedUntil') or '0')
local now = tonumber(ARGV[2])
if lockedUntil > now then return lockedUntil - now end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'expiresAt', ARGV[3], 'restores', 0, 'holder', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 0`;

/**
 * KEYS: code, tries. ARGV: now, maxAttempts, now + lockMs, lockMs, holder, then the hashes offered.
 * Returns {0, hash, expiresAt, restores} accepted, {1, wrongTries, lockedNow, live} refused
 * (live: the holder's live code's expiry, 0 for none of theirs, -1 for a live code stored without
 * a holder by an older instance, whose holder is unknown), {2, ms} locked.
 */
const REDEEM = `
local now = tonumber(ARGV[1])
local tries = redis.call('HMGET', KEYS[2], 'count', 'resetAt', 'lockedUntil')
local lockedUntil = tonumber(tries[3] or '0')
if lockedUntil > now then return {2, lockedUntil - now} end
local code = redis.call('HMGET', KEYS[1], 'hash', 'expiresAt', 'restores', 'holder')
if code[1] and tonumber(code[2]) > now then
  for i = 6, #ARGV do
    if code[1] == ARGV[i] then
      redis.call('DEL', KEYS[1], KEYS[2])
      return {0, code[1], code[2], tonumber(code[3] or '0')}
    end
  end
end
local count = 1
if tries[1] and tonumber(tries[2]) > now then count = tonumber(tries[1]) + 1 end
redis.call('DEL', KEYS[2])
if count >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[2], 'lockedUntil', ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  return {1, count, 1, 0}
end
redis.call('HSET', KEYS[2], 'count', count, 'resetAt', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local live = 0
if code[1] and tonumber(code[2]) > now then
  if code[4] == ARGV[5] then live = tonumber(code[2]) elseif not code[4] then live = -1 end
end
return {1, count, 0, live}`;

/** KEYS: code, tries. ARGV: hash, now, expiresAt, restores, maxRestores, holder. Returns 1 restored, 0 spent. */
const RESTORE = `
local now = tonumber(ARGV[2])
local expiresAt = tonumber(ARGV[3])
local restores = tonumber(ARGV[4])
if tonumber(redis.call('HGET', KEYS[2], 'lockedUntil') or '0') > now then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 or expiresAt <= now or restores >= tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'expiresAt', ARGV[3], 'restores', restores + 1, 'holder', ARGV[6])
redis.call('PEXPIRE', KEYS[1], expiresAt - now)
return 1`;

/** KEYS: code. ARGV: hash. */
const DISCARD = `
if redis.call('HGET', KEYS[1], 'hash') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

async function unavailableOnRedisError<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    throw new StoreUnavailableError(err);
  }
}

export class RedisTwoFactorStore implements TwoFactorStore {
  constructor(
    private readonly client: RedisClient,
    /** The deployment's `redis.keyPrefix`, e.g. `cbg:`. */
    private readonly keyPrefix: string,
  ) {}

  /** The pair's keys: the code, and the wrong-try count with its lock. */
  keys(owner: CodeOwner): [code: string, tries: string] {
    const tag = `${this.keyPrefix}{2fa:${owner.customerId}}`;
    return [`${tag}:code`, `${tag}:tries`];
  }

  async issue(owner: CodeOwner, { hash, now, ttlMs, holder }: IssueRequest): Promise<IssueResult> {
    const lockMs = Number(await unavailableOnRedisError(this.client.eval(ISSUE, 2, ...this.keys(owner), hash, now, now + ttlMs, ttlMs, holder)));
    return lockMs > 0 ? { kind: 'locked', retryAfterMs: lockMs } : { kind: 'issued' };
  }

  async redeem(owner: CodeOwner, { hashes, now, maxAttempts, lockMs, holder }: RedeemRequest): Promise<RedeemResult> {
    const reply = (await unavailableOnRedisError(
      this.client.eval(REDEEM, 2, ...this.keys(owner), now, maxAttempts, now + lockMs, lockMs, holder, ...hashes),
    )) as Array<number | string>;
    const [kind, first = 0, second = 0, third = 0] = reply;
    if (kind === 0) return { kind: 'accepted', hash: String(first), expiresAt: Number(second), restores: Number(third) };
    if (kind === 2) return { kind: 'locked', retryAfterMs: Number(first) };
    const live = Number(third);
    return { kind: 'refused', wrongTries: Number(first), locked: second === 1, liveCode: live > 0 ? { expiresAt: live } : live < 0 ? 'unknown' : 'none' };
  }

  async restore(owner: CodeOwner, { hash, expiresAt, restores, now, holder }: RestoreRequest): Promise<boolean> {
    const reply = await unavailableOnRedisError(this.client.eval(RESTORE, 2, ...this.keys(owner), hash, now, expiresAt, restores, MAX_RESTORES, holder));
    return Number(reply) === 1;
  }

  async discard(owner: CodeOwner, hash: string): Promise<void> {
    await unavailableOnRedisError(this.client.eval(DISCARD, 1, this.keys(owner)[0], hash));
  }
}
