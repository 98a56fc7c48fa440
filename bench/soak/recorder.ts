/**
 * What the soak's load saw, aggregated as it arrives (nothing per request is kept): answers by
 * phase (status, problem code, connection errors, requests dropped for the in-flight bound),
 * latency per minute (p50/p99 from a histogram), runs of 401 for a valid key per instance, and
 * per instance and second the 2xx and 401 counts that readiness is compared with afterwards.
 * Also the first good GET through each instance after a moment (the core's return: breaker
 * recovery).
 *
 * Reads only what the load reports; the current phase is set by the fault schedule.
 */
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { PhaseName } from './options';

/**
 * get: a resource read; deposit: a new key's first attempt; twin: the same key sent at the same
 * moment (a client that double-submits); replay: the same key again after its 201; retry: the
 * same key after an answer that left its outcome open.
 */
export type RequestKind = 'get' | 'deposit' | 'twin' | 'replay' | 'retry';

interface Answer {
  readonly instance: string;
  readonly kind: RequestKind;
  /** When the request was due (epoch ms): latency runs from here, so a stall counts in full. */
  readonly dueAt: number;
  readonly endedAt: number;
  /** null when no HTTP answer came (connection refused or reset, timeout). */
  readonly status: number | null;
  /** The problem `code` of an error answer, when it carried one. */
  readonly code: string | null;
  readonly error: string | null;
  /** Sent with one of the sandbox's published keys, which are never revoked: a 401 is wrong. */
  readonly validKey: boolean;
}

interface PhaseStats {
  sent: number;
  sentByKind: Record<string, number>;
  dropped: number;
  /** Most requests open at once, and when requests were first and last dropped for the bound. */
  maxInFlight: number;
  droppedFrom: string | null;
  droppedTo: string | null;
  byStatus: Record<string, number>;
  /** "503 core_unavailable" and so on. */
  serverErrors: Record<string, number>;
  connectionErrors: Record<string, number>;
}

/** A phase's counts before its first request (also what the report shows for a phase that sent none). */
export function emptyPhaseStats(): PhaseStats {
  return { sent: 0, sentByKind: {}, dropped: 0, maxInFlight: 0, droppedFrom: null, droppedTo: null, byStatus: {}, serverErrors: {}, connectionErrors: {} };
}

/** One request that got no HTTP answer (the first few hundred are kept, for the report). */
interface ConnectionError {
  readonly t: number;
  readonly phase: PhaseName;
  readonly instance: string;
  readonly kind: RequestKind;
  readonly error: string;
}

const KEPT_CONNECTION_ERRORS = 300;

/** One second of the run (from the load's start), to place a stall or a burst of errors in time. */
interface SecondOfRun {
  sent: number;
  dropped: number;
  maxInFlight: number;
  answered: number;
  serverErrors: number;
  noAnswer: number;
  maxLatencyMs: number;
}

interface MinuteStats {
  readonly latencyUs: RecordableHistogram;
  answered: number;
  serverErrors: number;
  connectionErrors: number;
}

interface UnauthorizedRun {
  readonly instance: string;
  readonly from: number;
  readonly to: number;
  readonly length: number;
}

interface SecondCounts {
  ok: number;
  unauthorized: number;
}

export class Recorder {
  phase: PhaseName = 'start';
  readonly byPhase = new Map<PhaseName, PhaseStats>();
  private readonly minutes = new Map<number, MinuteStats>();
  private readonly openRuns = new Map<string, { from: number; to: number; length: number }>();
  readonly unauthorizedRuns: UnauthorizedRun[] = [];
  /** instance → second (epoch s) → counts of valid-key answers. */
  readonly perSecond = new Map<string, Map<number, SecondCounts>>();
  private recoveryWatch: { since: number; pending: Set<string>; found: Map<string, number> } | null = null;
  readonly recoveries: { since: number; firstGoodGetMs: Record<string, number | null> }[] = [];
  readonly connectionErrorSamples: ConnectionError[] = [];
  readonly timeline = new Map<number, SecondOfRun>();

  constructor(
    private readonly loadStartedAt: number,
    private readonly stormThreshold: number,
  ) {}

  private stats(phase: PhaseName): PhaseStats {
    let stats = this.byPhase.get(phase);
    if (!stats) this.byPhase.set(phase, (stats = emptyPhaseStats()));
    return stats;
  }

  private second(at: number): SecondOfRun {
    const index = Math.max(0, Math.floor((at - this.loadStartedAt) / 1000));
    let second = this.timeline.get(index);
    if (!second) this.timeline.set(index, (second = { sent: 0, dropped: 0, maxInFlight: 0, answered: 0, serverErrors: 0, noAnswer: 0, maxLatencyMs: 0 }));
    return second;
  }

  sent(kind: RequestKind, inFlight: number): PhaseName {
    const second = this.second(Date.now());
    second.sent += 1;
    second.maxInFlight = Math.max(second.maxInFlight, inFlight);
    const stats = this.stats(this.phase);
    stats.sent += 1;
    stats.sentByKind[kind] = (stats.sentByKind[kind] ?? 0) + 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    return this.phase;
  }

  dropped(): void {
    const stats = this.stats(this.phase);
    stats.dropped += 1;
    this.second(Date.now()).dropped += 1;
    const now = new Date().toISOString();
    stats.droppedFrom ??= now;
    stats.droppedTo = now;
  }

  answered(phase: PhaseName, answer: Answer): void {
    const stats = this.stats(phase);
    const minute = this.minute(answer.dueAt);
    const second = this.second(answer.dueAt);
    if (answer.status === null) {
      second.noAnswer += 1;
      const error = answer.error ?? 'error';
      const label = `${error} (${answer.kind})`;
      stats.connectionErrors[label] = (stats.connectionErrors[label] ?? 0) + 1;
      minute.connectionErrors += 1;
      if (this.connectionErrorSamples.length < KEPT_CONNECTION_ERRORS) {
        this.connectionErrorSamples.push({ t: (answer.endedAt - this.loadStartedAt) / 1000, phase, instance: answer.instance, kind: answer.kind, error });
      }
      return;
    }
    stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1;
    second.answered += 1;
    second.maxLatencyMs = Math.max(second.maxLatencyMs, answer.endedAt - answer.dueAt);
    if (answer.status >= 500) second.serverErrors += 1;
    if (answer.status >= 500) {
      const label = `${answer.status} ${answer.code ?? '(no code)'}`;
      stats.serverErrors[label] = (stats.serverErrors[label] ?? 0) + 1;
      minute.serverErrors += 1;
    }
    minute.answered += 1;
    minute.latencyUs.record(Math.max(1, Math.round((answer.endedAt - answer.dueAt) * 1000)));
    if (answer.validKey) this.trackAuthorization(answer);
    if (answer.kind === 'get' && answer.status >= 200 && answer.status < 300) this.noteGoodGet(answer);
  }

  private minute(dueAt: number): MinuteStats {
    const index = Math.max(0, Math.floor((dueAt - this.loadStartedAt) / 60_000));
    let minute = this.minutes.get(index);
    if (!minute)
      this.minutes.set(
        index,
        (minute = { latencyUs: createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 }), answered: 0, serverErrors: 0, connectionErrors: 0 }),
      );
    return minute;
  }

  private trackAuthorization(answer: Answer): void {
    const second = Math.floor(answer.endedAt / 1000);
    let seconds = this.perSecond.get(answer.instance);
    if (!seconds) this.perSecond.set(answer.instance, (seconds = new Map()));
    let counts = seconds.get(second);
    if (!counts) seconds.set(second, (counts = { ok: 0, unauthorized: 0 }));
    const open = this.openRuns.get(answer.instance);
    if (answer.status === 401) {
      counts.unauthorized += 1;
      if (open) {
        open.to = answer.endedAt;
        open.length += 1;
      } else this.openRuns.set(answer.instance, { from: answer.endedAt, to: answer.endedAt, length: 1 });
      return;
    }
    if ((answer.status as number) < 300) counts.ok += 1;
    if (open) this.closeRun(answer.instance, open);
  }

  private closeRun(instance: string, run: { from: number; to: number; length: number }): void {
    this.unauthorizedRuns.push({ instance, ...run });
    this.openRuns.delete(instance);
  }

  /** Ends the runs still open (the load has stopped). */
  finish(): void {
    for (const [instance, run] of [...this.openRuns]) this.closeRun(instance, run);
  }

  /** Runs long enough to be a storm. */
  storms(): UnauthorizedRun[] {
    return this.unauthorizedRuns.filter((run) => run.length >= this.stormThreshold);
  }

  /** Starts timing, for each instance, the first 2xx GET that ends after `since`. */
  watchRecovery(since: number, instances: readonly string[]): void {
    this.recoveryWatch = { since, pending: new Set(instances), found: new Map() };
    this.recoveries.push({ since, firstGoodGetMs: Object.fromEntries(instances.map((name) => [name, null])) });
  }

  private noteGoodGet(answer: Answer): void {
    const watch = this.recoveryWatch;
    if (!watch || answer.endedAt < watch.since || !watch.pending.has(answer.instance)) return;
    watch.pending.delete(answer.instance);
    const entry = this.recoveries[this.recoveries.length - 1];
    if (entry) entry.firstGoodGetMs[answer.instance] = answer.endedAt - watch.since;
  }

  latencyPerMinute(): { minute: number; answered: number; p50Ms: number; p99Ms: number; maxMs: number; serverErrors: number; connectionErrors: number }[] {
    return [...this.minutes.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, m]) => ({
        minute: index + 1,
        answered: m.answered,
        p50Ms: m.answered ? m.latencyUs.percentile(50) / 1000 : Number.NaN,
        p99Ms: m.answered ? m.latencyUs.percentile(99) / 1000 : Number.NaN,
        maxMs: m.answered ? m.latencyUs.max / 1000 : Number.NaN,
        serverErrors: m.serverErrors,
        connectionErrors: m.connectionErrors,
      }));
  }
}
