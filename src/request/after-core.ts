/**
 * The after-core phase: what steps must do once the outcome of the request's one call to the
 * core is known, and the one place that outcome is told.
 *
 * A step that leaves something half-done until the core has spoken (idempotency: a claimed key;
 * two-factor: a redeemed code) registers its duties here, one per outcome it cares about. The
 * step that calls the core (exchange) settles the registry once with the outcome; every duty of
 * that outcome runs, in registration order, before the vendor hears the answer. A request whose
 * response ends before the core call began (an error later in the chain, a client gone) settles
 * as `neverSent` when the response closes; once the call began, only its end settles (a vendor
 * going away changes nothing, the money may move), and a call that would begin after such an
 * end is not made (its duties already let go of the key and the code). A settle after the first
 * does nothing, so every duty runs at most once; a step that registers after the outcome is known
 * (its own awaits outlasted a vendor gone) hears that outcome at once. A duty that fails is
 * logged on its step's logger and does not stop the others.
 *
 * Reads nothing of the request; the request context holds one registry per request
 * (`ctx.afterCore`), bound to its response by `setContext`.
 */
import type { Logger } from '../logging/logger';

/** What a vendor receives for a buffered answer, as stored for replays. */
export interface StoredResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** The Location the first answer carried (a gateway path: a bank account added), sent again with each replay. */
  readonly location?: string;
}

/** What became of the request's call to the core. */
export type CoreOutcome =
  /** The core answered with the contract's answer (2xx); `response` is what the vendor is about to receive. */
  | { readonly kind: 'answered'; readonly response: StoredResponse }
  /** Sent, and no usable answer (a timeout, a cut connection, a 5xx, an answer that is not the contract's): the core may have acted. */
  | { readonly kind: 'unknown' }
  /** The core refused (4xx): nothing happened. */
  | { readonly kind: 'refused' }
  /** The core was certainly not reached (breaker open, connection refused, a refusal or an end before the call). */
  | { readonly kind: 'neverSent' };

/** A step's duties, one per outcome it must act on; an outcome without one asks nothing of the step. */
export interface AfterCoreDuties {
  /** Names the step in the log line of a failed duty. */
  readonly step: string;
  /** Where a failed duty is logged. */
  readonly logger: Logger;
  readonly answered?: (response: StoredResponse) => Promise<void>;
  readonly unknown?: () => Promise<void>;
  readonly refused?: () => Promise<void>;
  readonly neverSent?: () => Promise<void>;
}

/** The one event of a response the registry needs: its end, finished or cut off. */
interface ClosingResponse {
  once(event: 'close', listener: () => void): unknown;
}

export class AfterCore {
  private readonly duties: AfterCoreDuties[] = [];
  private response: ClosingResponse | null = null;
  private watching = false;
  private callStarted = false;
  private outcome: CoreOutcome | null = null;
  private settling: Promise<void> | null = null;

  constructor(private readonly requestId: string) {}

  /** Called by setContext: the response whose end settles a request that never reached the core. */
  bindResponse(response: ClosingResponse): void {
    this.response = response;
  }

  /** Adds a step's duties; after the outcome is known (the response closed first), they run with that outcome at once. */
  register(duties: AfterCoreDuties): void {
    if (this.response === null) throw new Error(`${duties.step} registered after-core duties on a context bound to no response`);
    this.duties.push(duties);
    if (this.outcome !== null && this.settling !== null) {
      const outcome = this.outcome;
      this.settling = this.settling.then(() => this.runDutiesOf(duties, outcome));
      return;
    }
    // The listener only on requests with duties: most requests have none.
    if (!this.watching) {
      this.watching = true;
      this.response.once('close', () => this.responseClosed());
    }
  }

  /**
   * The core call begins: from here only its end settles the duties. False when the outcome is
   * already known (the response closed before the call): the call must not be made.
   */
  coreCallStarted(): boolean {
    if (this.outcome !== null) return false;
    this.callStarted = true;
    return true;
  }

  /**
   * Tells every registered duty the outcome, once: later calls return the first settle's promise
   * and run nothing. Resolves when every duty has run; never rejects.
   */
  settle(outcome: CoreOutcome): Promise<void> {
    if (this.settling === null) {
      this.outcome = outcome;
      this.settling = this.runDuties(outcome);
    }
    return this.settling;
  }

  /** The steps that registered duties, in order. */
  get steps(): readonly string[] {
    return this.duties.map((duties) => duties.step);
  }

  /** Whether the outcome has been told (or is being told). */
  get settled(): boolean {
    return this.settling !== null;
  }

  private responseClosed(): void {
    if (!this.callStarted) void this.settle({ kind: 'neverSent' });
  }

  private async runDuties(outcome: CoreOutcome): Promise<void> {
    for (const duties of this.duties) await this.runDutiesOf(duties, outcome);
  }

  private async runDutiesOf(duties: AfterCoreDuties, outcome: CoreOutcome): Promise<void> {
    try {
      await runDuty(duties, outcome);
    } catch (err) {
      duties.logger.error({ err, requestId: this.requestId, step: duties.step, outcome: outcome.kind }, 'an after-core duty failed');
    }
  }
}

function runDuty(duties: AfterCoreDuties, outcome: CoreOutcome): Promise<void> | undefined {
  switch (outcome.kind) {
    case 'answered':
      return duties.answered?.(outcome.response);
    case 'unknown':
      return duties.unknown?.();
    case 'refused':
      return duties.refused?.();
    case 'neverSent':
      return duties.neverSent?.();
  }
}
