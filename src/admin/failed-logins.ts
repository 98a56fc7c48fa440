/**
 * Failed admin logins on the audit log, aggregated: one `admin.login_failed` entry per client
 * address per minute, with how many wrong credentials it presented (as a bearer token or at the
 * web UI's sign-in) and how many of them were refused by the back-off. Never the credential
 * itself, nor a hint of it: a brute force leaves one line a minute per address, not one per try.
 *
 * Reads the clock; keeps the current minute's counts (at most `maxAddresses` addresses; the rest
 * are summed into one entry for `other addresses`, so a spray of addresses cannot grow it) and
 * appends them to the audit log when the minute is over, or when flushed (at stop).
 */
import type { Logger } from '../logging/logger';
import type { AuditLog } from '../access/audit-log';

const LOGIN_FAILED_ACTION = 'admin.login_failed';
const OTHER_ADDRESSES = 'other addresses';

interface Count {
  failures: number;
  throttled: number;
}

interface FailedLoginOptions {
  readonly audit: AuditLog;
  readonly logger: Logger;
  /** The aggregation window (a minute; tests shorten it). */
  readonly windowMs?: number;
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

export class FailedLoginAudit {
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;
  private counts = new Map<string, Count>();
  private windowStart = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: FailedLoginOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** One wrong credential from `address`; `throttled` when the back-off refused it. */
  record(address: string, throttled: boolean): void {
    if (this.counts.size === 0) {
      this.windowStart = Math.floor(this.now() / this.windowMs) * this.windowMs;
      // The entry is written when the window closes; unref: it never holds the process open.
      this.timer = setTimeout(() => void this.flush(), this.windowStart + this.windowMs - this.now());
      this.timer.unref();
    }
    const key = this.counts.has(address) || this.counts.size < this.maxAddresses ? address : OTHER_ADDRESSES;
    const count = this.counts.get(key) ?? { failures: 0, throttled: 0 };
    count.failures += 1;
    if (throttled) count.throttled += 1;
    this.counts.set(key, count);
  }

  /** Writes the open window's entries now (the timer does it when the window closes). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const counts = this.counts;
    const from = new Date(this.windowStart).toISOString();
    const to = new Date(this.windowStart + this.windowMs).toISOString();
    this.counts = new Map();
    for (const [address, count] of counts) {
      const after = { address, failures: count.failures, throttled: count.throttled, from, to };
      try {
        await this.options.audit.append({ actor: 'anonymous', action: LOGIN_FAILED_ACTION, target: 'admin/login', before: null, after });
      } catch (err) {
        this.options.logger.warn({ err, ...after }, 'failed admin logins could not be written to the audit log');
      }
    }
  }
}
