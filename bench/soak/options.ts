/**
 * The soak's knobs (command-line flags, parsed by commander) and its fault schedule, which is
 * scaled to the run's length so that `--minutes 3` goes through every phase that `--minutes 15`
 * does, only closer together.
 *
 * Reads argv; returns frozen options and the phases with their start times (ms from the start
 * of the load).
 */
import { Command, InvalidArgumentError } from 'commander';

export interface SoakOptions {
  /** How long the load runs; the faults are spread over it. */
  readonly minutes: number;
  /** Requests per second over both instances, issued on schedule whatever the answers (open loop). */
  readonly rate: number;
  /** Share of requests that are new keyed deposits; the rest are GETs. */
  readonly depositShare: number;
  /** Share of deposits answered 201 that are sent again with the same key and body (a replay), 0.05–3 s later. */
  readonly replayShare: number;
  /** Share of deposits sent as XML (the rest JSON). */
  readonly xmlShare: number;
  /** Requests in flight at most; a request due while the bound is reached is dropped and counted. */
  readonly maxInFlight: number;
  /** Seconds between two admin changes during the admin-churn phase. */
  readonly churnEverySeconds: number;
  /** How long the sandbox core stays down in the core-stop phase. */
  readonly coreDownSeconds: number;
  /** The gateway's hold on keyed money movement after Redis lost its data (24 h in production). */
  readonly dataLossHoldSeconds: number;
  /** Extra keys in the whole-document write, so that it takes the staged (bulk) path. */
  readonly bulkKeys: number;
  /** The instances' shutdown.lameDuckMs: serving on after SIGTERM while the balancer (readiness, polled every second) takes them out. */
  readonly lameDuckMs: number;
  /** Consecutive 401s for a valid key on one instance that count as a storm. */
  readonly stormThreshold: number;
  /** Seeds the request mix, so two runs send the same sequence. */
  readonly seed: number;
  /** Run `npm run build` first (the instances run dist/, as the image does). */
  readonly build: boolean;
  /** LOG_LEVEL of the gateway instances (their logs go to files beside the report). */
  readonly logLevel: string;
  /** Directory for the report and the logs; default bench/results/soak-<time>/. */
  readonly out: string | null;
}

export type PhaseName = 'start' | 'baseline' | 'redis-restart' | 'sigkill' | 'sigterm' | 'core-stop' | 'admin-churn' | 'late-restart';

export interface Phase {
  readonly name: PhaseName;
  /** Milliseconds after the load started. */
  readonly atMs: number;
  readonly description: string;
}

function number(min: number, max: number, integer = false) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw new InvalidArgumentError(`expected ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
    }
    return value;
  };
}

export function parseOptions(argv: readonly string[]): SoakOptions {
  const program = new Command('soak')
    .description(
      'Soak with faults: two gateway instances, Redis and the sandbox core, under open-loop load, with restarts and outages; prints an integrity report.',
    )
    .option('--minutes <n>', 'length of the load, faults spread over it (at least 2)', number(2, 240), 15)
    .option('--rate <n>', 'requests per second over both instances', number(1, 5000, true), 300)
    .option('--deposit-share <f>', 'share of requests that are new keyed deposits', number(0, 1), 0.2)
    .option('--replay-share <f>', 'share of deposits answered 201 that are sent again with the same key', number(0, 1), 0.15)
    .option('--xml-share <f>', 'share of deposits sent as XML', number(0, 1), 0.3)
    .option('--max-in-flight <n>', 'requests in flight at most (more are dropped and counted)', number(1, 10_000, true), 512)
    .option('--churn-every <seconds>', 'seconds between admin changes in the admin-churn phase', number(0.2, 60), 2)
    .option('--core-down <seconds>', 'how long the sandbox core stays stopped', number(1, 300), 20)
    .option(
      '--data-loss-hold <seconds>',
      "the gateway's money-movement hold after Redis lost its data, and its idempotency retention (at least 60)",
      number(60, 86_400, true),
      60,
    )
    .option('--bulk-keys <n>', 'extra keys in the whole-document write (above 1,000 differences it is staged)', number(0, 100_000, true), 1100)
    .option('--lame-duck-ms <ms>', "the instances' shutdown.lameDuckMs (the balancer polls readiness every second)", number(0, 60_000, true), 2000)
    .option('--storm-threshold <n>', 'consecutive valid-key 401s on one instance that make a storm', number(1, 10_000, true), 3)
    .option('--seed <n>', 'seed of the request mix', number(0, 2 ** 31, true), 1)
    .option('--no-build', 'use dist/ as it is instead of running npm run build')
    .option('--log-level <level>', 'LOG_LEVEL of the gateway instances', 'warn')
    .option('--out <dir>', 'directory for report.json and the logs')
    .allowExcessArguments(false);
  program.parse(argv, { from: 'user' });
  const o = program.opts<{
    minutes: number;
    rate: number;
    depositShare: number;
    replayShare: number;
    xmlShare: number;
    maxInFlight: number;
    churnEvery: number;
    coreDown: number;
    dataLossHold: number;
    bulkKeys: number;
    lameDuckMs: number;
    stormThreshold: number;
    seed: number;
    build: boolean;
    logLevel: string;
    out?: string;
  }>();
  return Object.freeze({
    minutes: o.minutes,
    rate: o.rate,
    depositShare: o.depositShare,
    replayShare: o.replayShare,
    xmlShare: o.xmlShare,
    maxInFlight: o.maxInFlight,
    churnEverySeconds: o.churnEvery,
    coreDownSeconds: o.coreDown,
    dataLossHoldSeconds: o.dataLossHold,
    bulkKeys: o.bulkKeys,
    lameDuckMs: o.lameDuckMs,
    stormThreshold: o.stormThreshold,
    seed: o.seed,
    build: o.build,
    logLevel: o.logLevel,
    out: o.out ?? null,
  });
}

/**
 * The phases, as shares of the run. The late restart sits at 86 %: in a 15-minute run that is
 * more than 10 minutes after the last whole-config write (the start's, and the copy the instances
 * write back after the Redis restart at 8 %), the span after which a bug once let the live
 * access records expire; shorter runs cannot reach it and rely on the TTL probe instead.
 */
export function schedule(options: SoakOptions): Phase[] {
  const total = options.minutes * 60_000;
  const at = (share: number): number => Math.round(total * share);
  return [
    { name: 'baseline', atMs: 0, description: 'load only' },
    { name: 'redis-restart', atMs: at(0.08), description: 'redis-server killed and started again empty on the same port' },
    { name: 'sigkill', atMs: at(0.2), description: 'instance A killed (SIGKILL), then started again' },
    { name: 'sigterm', atMs: at(0.32), description: 'instance B stopped (SIGTERM, graceful), then started again' },
    { name: 'core-stop', atMs: at(0.44), description: `sandbox core killed, started again after ${options.coreDownSeconds} s` },
    { name: 'admin-churn', atMs: at(0.56), description: `an admin change every ${options.churnEverySeconds} s through both admin APIs` },
    { name: 'late-restart', atMs: at(0.86), description: 'instance A restarted (SIGTERM, then started again)' },
  ];
}
