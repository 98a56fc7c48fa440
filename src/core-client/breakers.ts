/**
 * The circuit breakers to the core: one opossum breaker per breaker group, built once at
 * start-up, so a sick receipt service cannot take the resource reads down with it.
 *
 * A breaker runs an "attempt": a promise the caller settles when the core's response headers
 * arrive (resolve for an answer below 500; reject for a 5xx or a connection error). The breaker
 * never wraps a whole streamed exchange. Its own refusals come back as CircuitOpenError (the
 * core was not called) and BreakerTimeoutError (the caller must abort its request).
 *
 * Recovery follows the core: a breaker that opens from closed probes after `firstProbeDelayMs`
 * (short, so vendors see the core again within seconds of its return); each failed probe doubles
 * the wait up to `resetTimeoutMs` (a core that stays down costs one failed vendor call per
 * probe, fewer as the outage lasts); closing sets the wait back to the short one.
 *
 * Reads the `core.breakers` config; sets `gateway_circuit_state{group}` from the breaker's
 * events and logs each state change with the wait before the next probe; exposes each breaker's
 * `gateway_upstream_duration_seconds` child so callers observe without a label lookup.
 */
import CircuitBreaker from 'opossum';
import type { Histogram, Gauge } from 'prom-client';
import type { BreakerGroup } from '../catalogue/api-catalogue';
import type { Logger } from '../logging/logger';
import { CIRCUIT_STATE_VALUE, type GatewayMetrics } from '../metrics/metrics';
import type { BreakerGroupConfig, BreakersConfig } from './breakers.schema';

export type BreakerState = keyof typeof CIRCUIT_STATE_VALUE;

const BREAKER_GROUPS: readonly BreakerGroup[] = ['resources', 'bankaccounts', 'receipts', 'customers'];

/** The breaker refused the call (open, or its one half-open probe is out): the core was not called. */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  constructor(
    readonly group: BreakerGroup,
    /** Whole seconds until the breaker lets a probe through; at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(`circuit breaker of group ${group} is open`);
  }
}

/** The core did not answer within the group's timeout; the caller aborts its request. */
export class BreakerTimeoutError extends Error {
  override readonly name = 'BreakerTimeoutError';
  constructor(
    readonly group: BreakerGroup,
    readonly timeoutMs: number,
  ) {
    super(`core did not answer within ${timeoutMs} ms (group ${group})`);
  }
}

type Attempt = () => Promise<unknown>;

function runAttempt(attempt: Attempt): Promise<unknown> {
  return attempt();
}

interface CoreBreakerDeps {
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
}

export class CoreBreaker {
  readonly timeoutMs: number;
  /** `gateway_upstream_duration_seconds{group}` of this group. */
  readonly upstreamDuration: Histogram.Internal<'group'>;
  private readonly breaker: CircuitBreaker<[Attempt], unknown>;
  /**
   * The options object opossum keeps (it does not copy it) and reads `resetTimeout` from each
   * time it opens: setting `resetTimeout` here sets the wait of the next open period. That is
   * opossum 9.0.0's behaviour, not its documented API: package.json pins the exact version, and
   * breakers.test.ts's doubling waits fail if an upgrade changes it.
   */
  private readonly breakerOptions: CircuitBreaker.Options & { resetTimeout: number };
  private readonly firstProbeDelayMs: number;
  private readonly maxProbeDelayMs: number;
  private openedAtMs = 0;
  /** The wait before the probe of the current open period (what opossum's timer was set to). */
  private openForMs = 0;

  constructor(
    readonly group: BreakerGroup,
    config: BreakerGroupConfig,
    defaultTimeoutMs: number,
    deps: CoreBreakerDeps,
  ) {
    this.timeoutMs = config.timeoutMs ?? defaultTimeoutMs;
    this.maxProbeDelayMs = config.resetTimeoutMs;
    // A config from before firstProbeDelayMs with a short resetTimeoutMs keeps its fixed wait.
    this.firstProbeDelayMs = Math.min(config.firstProbeDelayMs, config.resetTimeoutMs);
    this.breakerOptions = {
      name: `core-${group}`,
      timeout: this.timeoutMs,
      errorThresholdPercentage: config.errorThresholdPercentage,
      volumeThreshold: config.volumeThreshold,
      rollingCountTimeout: config.rollingCountTimeoutMs,
      resetTimeout: this.firstProbeDelayMs,
      // Latency percentiles and snapshots cost a sort and a timer per window; metrics do that job.
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    };
    this.breaker = new CircuitBreaker(runAttempt, this.breakerOptions);
    this.upstreamDuration = deps.metrics.upstreamDuration.labels(group);
    const gauge: Gauge.Internal<'group'> = deps.metrics.circuitState.labels(group);
    gauge.set(CIRCUIT_STATE_VALUE.closed);
    const { logger } = deps;
    // opossum sets its half-open timer in its own 'open' listener, registered before this one.
    this.breaker.on('open', () => {
      this.openedAtMs = Date.now();
      this.openForMs = this.breakerOptions.resetTimeout;
      gauge.set(CIRCUIT_STATE_VALUE.open);
      logger.warn(
        { group, nextProbeInMs: this.openForMs, resetTimeoutMs: this.maxProbeDelayMs },
        'circuit breaker opened: the core is failing; answering 503 without calling it',
      );
    });
    this.breaker.on('halfOpen', () => {
      // Set before the probe settles: should it fail, the breaker reopens for this longer wait.
      this.breakerOptions.resetTimeout = Math.min(this.openForMs * 2, this.maxProbeDelayMs);
      gauge.set(CIRCUIT_STATE_VALUE['half-open']);
      logger.info({ group }, 'circuit breaker half-open: the next call probes the core');
    });
    this.breaker.on('close', () => {
      this.breakerOptions.resetTimeout = this.firstProbeDelayMs;
      gauge.set(CIRCUIT_STATE_VALUE.closed);
      logger.info({ group }, 'circuit breaker closed: the core answers again');
    });
  }

  get state(): BreakerState {
    if (this.breaker.opened) return 'open';
    if (this.breaker.halfOpen) return 'half-open';
    return 'closed';
  }

  /**
   * Runs one attempt through the breaker. Rejects with CircuitOpenError without calling
   * `attempt` when the breaker refuses, with BreakerTimeoutError when the attempt has not
   * settled within the timeout, else as the attempt does.
   */
  run<T>(attempt: () => Promise<T>): Promise<T> {
    return this.breaker.fire(attempt).then(undefined, (err: unknown) => {
      throw this.translate(err);
    }) as Promise<T>;
  }

  /** Whole seconds until an open breaker lets a probe through (this open period's wait); 1 while a probe is out. */
  retryAfterSeconds(nowMs = Date.now()): number {
    if (!this.breaker.opened) return 1;
    return Math.max(1, Math.ceil((this.openedAtMs + this.openForMs - nowMs) / 1000));
  }

  /** Stops the breaker's timers; every later call is refused. */
  shutdown(): void {
    this.breaker.shutdown();
  }

  private translate(err: unknown): unknown {
    if (!(err instanceof Error) || !CircuitBreaker.isOurError(err)) return err;
    if ((err as NodeJS.ErrnoException).code === 'ETIMEDOUT') return new BreakerTimeoutError(this.group, this.timeoutMs);
    // EOPENBREAKER, or ESHUTDOWN while the gateway stops: either way the core is not called.
    return new CircuitOpenError(this.group, this.retryAfterSeconds());
  }
}

/** The four breakers, built once at start-up. */
export class CoreBreakers {
  private readonly byGroup: Readonly<Record<BreakerGroup, CoreBreaker>>;

  constructor(config: BreakersConfig, options: CoreBreakerDeps & { readonly defaultTimeoutMs: number }) {
    const make = (group: BreakerGroup): CoreBreaker => new CoreBreaker(group, config[group], options.defaultTimeoutMs, options);
    this.byGroup = { resources: make('resources'), bankaccounts: make('bankaccounts'), receipts: make('receipts'), customers: make('customers') };
  }

  get(group: BreakerGroup): CoreBreaker {
    return this.byGroup[group];
  }

  states(): Record<BreakerGroup, BreakerState> {
    return {
      resources: this.byGroup.resources.state,
      bankaccounts: this.byGroup.bankaccounts.state,
      receipts: this.byGroup.receipts.state,
      customers: this.byGroup.customers.state,
    };
  }

  shutdown(): void {
    for (const group of BREAKER_GROUPS) this.byGroup[group].shutdown();
  }
}
