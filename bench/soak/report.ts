/**
 * The soak's integrity report: built from what the recorder, the monitors, the deposit book and
 * the fault log gathered; judged (pass only with nothing posted twice, re-sent to the core or
 * answered a fresh 201 twice,
 * nothing acknowledged and lost, no 401 storm, no readiness that said ready while valid keys got
 * 401, no live access record set to expire, every restart done); printed as text and returned
 * as the JSON written beside the logs.
 *
 * Reads only its inputs; writes nothing itself.
 */
import type { StoreSample, WholeDocumentWrite } from './access';
import type { DepositReconciliation } from './deposits';
import type { FaultLog } from './faults';
import { slopeMbPerMinute, type Monitors, type RssSample } from './monitors';
import type { Phase, SoakOptions } from './options';
import { emptyPhaseStats, type Recorder } from './recorder';

/** A valid-key 401 this long after a restart still counts as the restart's. */
const AFTER_RESTART_MS = 120_000;

interface ReportInputs {
  readonly options: SoakOptions;
  readonly runId: string;
  readonly outDir: string;
  readonly phases: readonly Phase[];
  readonly loadStartedAt: number;
  readonly loadEndedAt: number;
  readonly instances: readonly string[];
  readonly recorder: Recorder;
  readonly monitors: Monitors;
  readonly storeSamples: readonly StoreSample[];
  readonly writes: readonly WholeDocumentWrite[];
  readonly deposits: DepositReconciliation;
  readonly faults: FaultLog;
}

const round = (value: number, digits = 1): number => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

function readinessMismatches(inputs: ReportInputs): { instance: string; from: string; to: string; seconds: number; unauthorized: number; ok: number }[] {
  const found: { instance: string; from: number; to: number; seconds: number; unauthorized: number; ok: number }[] = [];
  for (const instance of inputs.instances) {
    const seconds = [...(inputs.recorder.perSecond.get(instance) ?? new Map()).entries()].filter(([, c]) => c.unauthorized > 0).sort(([a], [b]) => a - b);
    for (const [second, counts] of seconds) {
      if (inputs.monitors.readinessAt(instance, second * 1000 + 999)?.state !== 'ready') continue;
      const last = found[found.length - 1];
      if (last && last.instance === instance && last.to === second - 1) {
        last.to = second;
        last.seconds += 1;
        last.unauthorized += counts.unauthorized;
        last.ok += counts.ok;
      } else found.push({ instance, from: second, to: second, seconds: 1, unauthorized: counts.unauthorized, ok: counts.ok });
    }
  }
  return found.map((m) => ({ ...m, from: new Date(m.from * 1000).toISOString(), to: new Date(m.to * 1000 + 999).toISOString() }));
}

function restarts(inputs: ReportInputs) {
  return inputs.faults.restarts.map((event) => {
    const from = event.startedAt ?? event.stoppedAt;
    const to = from + AFTER_RESTART_MS;
    const readyAt = (inputs.monitors.readiness.get(event.instance) ?? []).find((s) => s.at >= from && s.state === 'ready')?.at ?? null;
    let unauthorized = 0;
    for (const [second, counts] of inputs.recorder.perSecond.get(event.instance) ?? new Map())
      if (second * 1000 >= from && second * 1000 < to) unauthorized += counts.unauthorized;
    const runs = inputs.recorder.unauthorizedRuns.filter((r) => r.instance === event.instance && r.from >= from && r.from < to);
    const longestRun = runs.reduce((max, r) => Math.max(max, r.length), 0);
    return {
      ...event,
      stoppedAt: new Date(event.stoppedAt).toISOString(),
      startedAt: event.startedAt === null ? null : new Date(event.startedAt).toISOString(),
      downMs: event.startedAt === null ? null : event.startedAt - event.stoppedAt,
      readyAfterStartMs: readyAt === null ? null : readyAt - from,
      validKey401sWithin120s: unauthorized,
      longest401Run: longestRun,
      storm: longestRun >= inputs.options.stormThreshold,
      minutesAfterLastWholeConfigWrite: lastStagedWriteBefore(inputs, event.stoppedAt),
    };
  });
}

/** Minutes from the last write that replaced the records whole (the start's bulk write, a write-back) to `at`. */
function lastStagedWriteBefore(inputs: ReportInputs, at: number): number | null {
  const times = inputs.writes.filter((w) => w.applied).map((w) => w.at);
  if (inputs.faults.redis?.startedAt) times.push(inputs.faults.redis.startedAt);
  const before = times.filter((t) => t <= at);
  return before.length ? round((at - Math.max(...before)) / 60_000, 1) : null;
}

function rss(inputs: ReportInputs) {
  return inputs.instances.map((instance) => {
    const samples = inputs.monitors.rss.get(instance) ?? [];
    const incarnations = [...new Set(samples.map((s) => s.incarnation))].map((incarnation) => {
      const own = samples.filter((s) => s.incarnation === incarnation);
      // The first minute is start-up (JIT, pools, the config load), not a trend.
      const settled = own.filter((s) => s.at - (own[0] as RssSample).at >= 60_000);
      return {
        incarnation,
        samples: own.length,
        minutes: own.length ? round(((own[own.length - 1] as RssSample).at - (own[0] as RssSample).at) / 60_000, 1) : 0,
        firstMb: round(own[0]?.mb ?? Number.NaN),
        lastMb: round(own[own.length - 1]?.mb ?? Number.NaN),
        maxMb: round(Math.max(...own.map((s) => s.mb))),
        slopeMbPerMinuteAfterFirstMinute: round(slopeMbPerMinute(settled), 2),
        slopeMbPerMinuteWhole: round(slopeMbPerMinute(own), 2),
      };
    });
    return {
      instance,
      incarnations,
      series: samples.map((s) => ({ t: round((s.at - inputs.loadStartedAt) / 1000, 0), incarnation: s.incarnation, mb: round(s.mb) })),
    };
  });
}

function breakerRecovery(inputs: ReportInputs) {
  const core = inputs.faults.core;
  if (!core) return null;
  const recovery = inputs.recorder.recoveries.find((r) => r.since === core.startedAt);
  const breakers = inputs.instances.map((instance) => {
    const samples = (inputs.monitors.readiness.get(instance) ?? []).filter((s) => s.at >= core.killedAt && s.breakers);
    const opened = samples.find((s) => s.breakers?.resources !== 'closed');
    const closed = core.startedAt === null ? undefined : samples.find((s) => s.at >= (core.startedAt as number) && s.breakers?.resources === 'closed');
    return {
      instance,
      firstGoodGetAfterCoreBackMs: recovery?.firstGoodGetMs[instance] ?? null,
      resourcesBreakerLeftClosedAfterKillMs: opened ? opened.at - core.killedAt : null,
      resourcesBreakerClosedAfterCoreBackMs: closed && core.startedAt ? closed.at - core.startedAt : null,
    };
  });
  return {
    coreKilledAt: new Date(core.killedAt).toISOString(),
    coreBackAt: core.startedAt ? new Date(core.startedAt).toISOString() : null,
    downMs: core.startedAt ? core.startedAt - core.killedAt : null,
    perInstance: breakers,
  };
}

function accessStore(inputs: ReportInputs) {
  const samples = inputs.storeSamples;
  const expiring = samples.filter((s) => s.ttlMs && Object.values(s.ttlMs).some((ttl) => ttl > 0));
  const first = expiring[0];
  const redis = inputs.faults.redis;
  const healed = redis?.startedAt ? samples.find((s) => s.at >= (redis.startedAt as number) && (s.keys ?? 0) > 0) : undefined;
  const vanished = samples.filter(
    (s, i) => s.keys === 0 && (samples[i - 1]?.keys ?? 0) > 0 && !(redis && s.at >= redis.killedAt && s.at < (healed?.at ?? Infinity)),
  );
  return {
    samples: samples.length,
    recordsSetToExpire: expiring.length > 0,
    firstSeenExpiring: first
      ? {
          at: new Date(first.at).toISOString(),
          after: first.label,
          ttlMs: first.ttlMs,
          expiresAt: new Date(first.at + Math.max(...Object.values(first.ttlMs ?? {}))).toISOString(),
        }
      : null,
    labelledSamples: samples.filter((s) => s.label).map((s) => ({ ...s, at: new Date(s.at).toISOString() })),
    samplesWithExpiringRecords: expiring.length,
    healedAfterRedisRestartMs: healed && redis?.startedAt ? healed.at - redis.startedAt : null,
    recordsVanishedOutsideRedisRestart: vanished.map((s) => new Date(s.at).toISOString()),
  };
}

export function buildReport(inputs: ReportInputs) {
  const mismatches = readinessMismatches(inputs);
  const restartRows = restarts(inputs);
  const storms = inputs.recorder.storms();
  const store = accessStore(inputs);
  const core = inputs.faults.core;
  // A 201 answered between the last ledger read and the kill may be missing from that read.
  const inReadWindow = (at: number): boolean => Boolean(core && at >= core.ledgerReadAt - 1000 && at <= core.killedAt + 1000);
  const lost = inputs.deposits.createdNotPosted.filter((d) => !inReadWindow(d.createdAt));
  const reasons: string[] = [];
  if (inputs.deposits.postedTwice.length) reasons.push(`${inputs.deposits.postedTwice.length} deposit(s) posted twice`);
  if (inputs.deposits.repeatsReachingCore.length)
    reasons.push(`${inputs.deposits.repeatsReachingCore.length} deposit key(s) re-sent to the core (its own externalRefNo check refused the repeat)`);
  if (inputs.deposits.createdTwice.length) reasons.push(`${inputs.deposits.createdTwice.length} deposit key(s) answered a fresh (not replayed) 201 twice`);
  if (lost.length) reasons.push(`${lost.length} deposit(s) answered 201 but not in the ledger`);
  for (const storm of storms)
    reasons.push(
      `401 storm on instance ${storm.instance}: ${storm.length} valid-key 401s in a row from ${new Date(storm.from).toISOString()} to ${new Date(storm.to).toISOString()}`,
    );
  for (const m of mismatches)
    reasons.push(`readiness mismatch on instance ${m.instance}: ready while ${m.unauthorized} valid-key request(s) got 401 (${m.from} to ${m.to})`);
  if (store.recordsSetToExpire)
    reasons.push(
      `live access records in Redis carry a TTL (first seen ${store.firstSeenExpiring?.at}, when ${store.firstSeenExpiring?.after ?? 'sampled'}; they would vanish at ${store.firstSeenExpiring?.expiresAt}, and an instance started after that loads no keys)`,
    );
  for (const r of inputs.faults.restarts) if (r.startedAt === null) reasons.push(`instance ${r.instance} did not start again after ${r.signal}: ${r.error}`);
  if (inputs.faults.core && inputs.faults.core.startedAt === null) reasons.push('the sandbox core did not start again');
  const ledgerReads = inputs.deposits.ledgerSnapshots;
  if (ledgerReads.some((s) => !s.ok)) reasons.push('a read of the sandbox ledger failed: the posting checks are incomplete');

  return {
    verdict: { pass: reasons.length === 0, reasons },
    run: {
      runId: inputs.runId,
      outDir: inputs.outDir,
      options: inputs.options,
      loadStartedAt: new Date(inputs.loadStartedAt).toISOString(),
      loadEndedAt: new Date(inputs.loadEndedAt).toISOString(),
      phases: inputs.phases.map((p) => ({ ...p, atSeconds: p.atMs / 1000 })),
      events: inputs.faults.events.map((e) => ({ ...e, t: round((e.at - inputs.loadStartedAt) / 1000, 1), at: new Date(e.at).toISOString() })),
    },
    wholeDocumentWrites: inputs.writes.map((w) => ({ ...w, at: new Date(w.at).toISOString() })),
    deposits: {
      ...inputs.deposits,
      createdNotPostedInLedgerReadWindow: inputs.deposits.createdNotPosted.length - lost.length,
      outcomeUnknownPosted: inputs.deposits.outcomeUnknown.filter((k) => k.posted).length,
    },
    phases: inputs.phases.map((p) => ({
      phase: p.name,
      ...(inputs.recorder.byPhase.get(p.name) ?? emptyPhaseStats()),
    })),
    latencyPerMinute: inputs.recorder.latencyPerMinute().map((m) => ({ ...m, p50Ms: round(m.p50Ms, 2), p99Ms: round(m.p99Ms, 2), maxMs: round(m.maxMs, 1) })),
    restarts: restartRows,
    unauthorized: {
      validKey401s: inputs.recorder.unauthorizedRuns.reduce((sum, r) => sum + r.length, 0),
      runs: inputs.recorder.unauthorizedRuns.map((r) => ({ ...r, from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() })),
    },
    connectionErrorSamples: inputs.recorder.connectionErrorSamples,
    timeline: [...inputs.recorder.timeline.entries()].sort(([x], [y]) => x - y).map(([t, second]) => ({ t, ...second })),
    readinessMismatches: mismatches,
    rss: rss(inputs),
    breakerRecovery: breakerRecovery(inputs),
    accessStore: store,
    redisRestart: inputs.faults.redis
      ? {
          killedAt: new Date(inputs.faults.redis.killedAt).toISOString(),
          startedAt: inputs.faults.redis.startedAt ? new Date(inputs.faults.redis.startedAt).toISOString() : null,
        }
      : null,
    adminChurn: inputs.faults.churn,
  };
}

export type SoakReport = ReturnType<typeof buildReport>;
