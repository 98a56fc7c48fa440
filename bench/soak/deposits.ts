/**
 * Every keyed deposit the soak sends, each attempt's answer, and their reconciliation with the
 * sandbox core's ledger: what was posted twice, what was acknowledged but not posted, and
 * whether each key left `outcome_unknown` was posted after all.
 *
 * Reads the core's read-only receipts view (`GET /_sandbox/receipts`, filtered by this run's
 * externalRefNo prefix). The core keeps its ledger in memory, so a snapshot is taken before the
 * core is killed and again at the end; each core process is one generation, and a deposit posted
 * in two generations was posted twice even though each ledger alone holds it once.
 */
import type { PhaseName } from './options';
import type { RequestKind } from './recorder';

export interface DepositAttempt {
  readonly kind: RequestKind;
  readonly instance: string;
  readonly phase: PhaseName;
  readonly at: number;
  readonly status: number | null;
  readonly code: string | null;
  readonly error: string | null;
  readonly replayed: boolean;
}

export interface DepositKey {
  readonly idempotencyKey: string;
  readonly externalRefNo: string;
  readonly accountId: number;
  readonly amount: string;
  readonly format: 'json' | 'xml';
  readonly attempts: DepositAttempt[];
}

export type DepositOutcome = 'created' | 'outcome_unknown' | 'refused' | 'store_unavailable' | 'server_error' | 'in_progress' | 'no_answer' | 'not_sent';

/** A 409 from the core itself (its own externalRefNo check) rather than from the gateway's idempotency. */
export const CORE_DUPLICATE = 'core_duplicate';

interface Posting {
  readonly generation: number;
  readonly receiptNo: number;
}

export class DepositBook {
  readonly keys = new Map<string, DepositKey>();
  private readonly postings = new Map<string, Posting[]>();
  readonly snapshots: { at: number; generation: number; receipts: number; ok: boolean }[] = [];
  private next = 0;

  constructor(readonly runId: string) {}

  get refPrefix(): string {
    return `SOAK-${this.runId}-`;
  }

  create(accountId: number, amount: string, format: 'json' | 'xml'): DepositKey {
    this.next += 1;
    const key: DepositKey = {
      idempotencyKey: `soak-${this.runId}-${this.next}`,
      externalRefNo: `${this.refPrefix}${this.next}`,
      accountId,
      amount,
      format,
      attempts: [],
    };
    this.keys.set(key.externalRefNo, key);
    return key;
  }

  /** Reads the ledger of the core process now running (generation) and merges what it holds. */
  async snapshot(coreUrl: string, generation: number): Promise<void> {
    const at = Date.now();
    try {
      const res = await fetch(`${coreUrl}/_sandbox/receipts?externalRefNoPrefix=${encodeURIComponent(this.refPrefix)}`, {
        signal: AbortSignal.timeout(30_000),
      });
      if (!res.ok) throw new Error(`receipts view answered ${res.status}`);
      const { receipts } = (await res.json()) as { receipts: { receiptNo: number; externalRefNo: string | null }[] };
      for (const receipt of receipts) {
        if (!receipt.externalRefNo) continue;
        const list = this.postings.get(receipt.externalRefNo) ?? [];
        if (!list.some((p) => p.generation === generation && p.receiptNo === receipt.receiptNo)) list.push({ generation, receiptNo: receipt.receiptNo });
        this.postings.set(receipt.externalRefNo, list);
      }
      this.snapshots.push({ at, generation, receipts: receipts.length, ok: true });
    } catch {
      this.snapshots.push({ at, generation, receipts: 0, ok: false });
    }
  }

  postingsOf(externalRefNo: string): number {
    return this.postings.get(externalRefNo)?.length ?? 0;
  }

  outcome(key: DepositKey): DepositOutcome {
    const answered = key.attempts.filter((a) => a.status !== null);
    const has = (test: (a: DepositAttempt) => boolean): boolean => answered.some(test);
    if (key.attempts.length === 0) return 'not_sent';
    if (has((a) => a.status === 201)) return 'created';
    if (has((a) => a.code === 'outcome_unknown')) return 'outcome_unknown';
    if (has((a) => a.status !== null && a.status >= 400 && a.status < 500 && a.code !== 'idempotency_in_progress')) return 'refused';
    const last = answered[answered.length - 1];
    if (!last) return 'no_answer';
    if (last.code === 'store_unavailable') return 'store_unavailable';
    if ((last.status as number) >= 500) return 'server_error';
    return 'in_progress';
  }

  /** The integrity figures of the report. */
  reconcile(): DepositReconciliation {
    const outcomes: Record<string, number> = {};
    const postedTwice: { externalRefNo: string; postings: number; outcome: DepositOutcome }[] = [];
    const repeatsReachingCore: string[] = [];
    const createdTwice: string[] = [];
    const createdNotPosted: { externalRefNo: string; createdAt: number }[] = [];
    const postedWithoutCreated: Record<string, number> = {};
    const outcomeUnknown: { externalRefNo: string; posted: boolean; phase: PhaseName }[] = [];
    let sent = 0;
    let attempts = 0;
    let replays = 0;
    const replayAnswers: Record<string, number> = {};
    let twins = 0;
    const twinAnswers: Record<string, number> = {};
    for (const key of this.keys.values()) {
      const outcome = this.outcome(key);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome === 'not_sent') continue;
      sent += 1;
      attempts += key.attempts.length;
      const posted = this.postingsOf(key.externalRefNo);
      if (posted > 1) postedTwice.push({ externalRefNo: key.externalRefNo, postings: posted, outcome });
      if (key.attempts.some((a) => a.code === CORE_DUPLICATE)) repeatsReachingCore.push(key.externalRefNo);
      if (key.attempts.filter((a) => a.status === 201 && !a.replayed).length > 1) createdTwice.push(key.externalRefNo);
      const created = key.attempts.find((a) => a.status === 201);
      if (created && posted === 0) createdNotPosted.push({ externalRefNo: key.externalRefNo, createdAt: created.at });
      if (!created && posted > 0) postedWithoutCreated[outcome] = (postedWithoutCreated[outcome] ?? 0) + 1;
      if (outcome === 'outcome_unknown') {
        const first = key.attempts.find((a) => a.code === 'outcome_unknown') as DepositAttempt;
        outcomeUnknown.push({ externalRefNo: key.externalRefNo, posted: posted > 0, phase: first.phase });
      }
      for (const attempt of key.attempts) {
        if (attempt.kind !== 'replay' && attempt.kind !== 'twin') continue;
        const label =
          attempt.status === null
            ? (attempt.error ?? 'error')
            : `${attempt.status}${attempt.replayed ? ' replayed' : ''}${attempt.code ? ` ${attempt.code}` : ''}`;
        const answers = attempt.kind === 'replay' ? replayAnswers : twinAnswers;
        answers[label] = (answers[label] ?? 0) + 1;
        if (attempt.kind === 'replay') replays += 1;
        else twins += 1;
      }
    }
    return {
      keysCreated: this.keys.size,
      keysSent: sent,
      attempts,
      outcomes,
      postedTwice,
      repeatsReachingCore,
      createdTwice,
      createdNotPosted,
      postedWithoutCreated,
      outcomeUnknown,
      replays,
      replayAnswers,
      twins,
      twinAnswers,
      ledgerSnapshots: this.snapshots,
    };
  }
}

export interface DepositReconciliation {
  readonly keysCreated: number;
  readonly keysSent: number;
  readonly attempts: number;
  readonly outcomes: Record<string, number>;
  /** Deposits the ledger holds more than once (over every core process). */
  readonly postedTwice: { externalRefNo: string; postings: number; outcome: DepositOutcome }[];
  /** Keys a retry of which reached the core again: only the core's own externalRefNo check stopped a second posting. */
  readonly repeatsReachingCore: string[];
  /** Keys answered a fresh 201 (not a replay) more than once: the gateway let the same key post twice. */
  readonly createdTwice: string[];
  /** 201 answered, but no posting in any ledger snapshot. */
  readonly createdNotPosted: { externalRefNo: string; createdAt: number }[];
  /** Posted, though the client never saw the 201: by the key's outcome. */
  readonly postedWithoutCreated: Record<string, number>;
  readonly outcomeUnknown: { externalRefNo: string; posted: boolean; phase: PhaseName }[];
  readonly replays: number;
  /** Replays follow a 201: anything but "201 replayed" (or a refusal while a fault lasts) is wrong. */
  readonly replayAnswers: Record<string, number>;
  readonly twins: number;
  /** The second of two identical first attempts sent at once. */
  readonly twinAnswers: Record<string, number>;
  readonly ledgerSnapshots: { at: number; generation: number; receipts: number; ok: boolean }[];
}
