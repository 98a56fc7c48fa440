/**
 * Exponential back-off per client address on the admin port, for wrong tokens only: once one
 * address has sent `freeFailures` wrong tokens, its wrong tokens wait 1 s, then 2 s, 4 s, … up
 * to `maxBackoffMs` (429 with Retry-After); each wrong one counts, also while it waits. What a
 * right token gets is auth.ts's rule: it always passes, and clears nothing (a valid token
 * must not reset the back-off for a guesser at the same address). Guessing a 192-bit token was
 * never practical; this keeps a scanner from filling the logs with tries, and makes it visible.
 *
 * Reads the clock; keeps one record per address that failed, forgotten once its back-off has
 * run out for as long again (so memory stays bounded under a spray of addresses).
 */
interface AuthThrottleConfig {
  readonly freeFailures: number;
  readonly maxBackoffMs: number;
}

interface FailureRecord {
  failures: number;
  blockedUntil: number;
}

export class AuthThrottle {
  private readonly records = new Map<string, FailureRecord>();

  constructor(
    private readonly config: AuthThrottleConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds `address` must still wait; 0 when it may try. */
  waitMs(address: string): number {
    const record = this.records.get(address);
    return record ? Math.max(0, record.blockedUntil - this.now()) : 0;
  }

  /**
   * Counts a wrong credential from `address`, and answers the Retry-After (whole seconds) of a
   * 429 when the address was already made to wait, or null when this one may be told plainly
   * that it was wrong. The one rule of the admin port's tokens and the portal's alike.
   */
  refused(address: string): number | null {
    const waiting = this.waitMs(address) > 0;
    this.failed(address);
    return waiting ? Math.ceil(this.waitMs(address) / 1000) : null;
  }

  failed(address: string): void {
    const now = this.now();
    this.sweep(now);
    const record = this.records.get(address) ?? { failures: 0, blockedUntil: 0 };
    record.failures += 1;
    const over = record.failures - this.config.freeFailures;
    if (over >= 0) record.blockedUntil = now + Math.min(this.config.maxBackoffMs, 1000 * 2 ** Math.min(over, 30));
    this.records.set(address, record);
  }

  get size(): number {
    return this.records.size;
  }

  private sweep(now: number): void {
    if (this.records.size < 1024) return;
    for (const [address, record] of this.records) {
      if (record.blockedUntil + this.config.maxBackoffMs < now) this.records.delete(address);
    }
  }
}
