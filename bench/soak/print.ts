/**
 * The soak report as text for the terminal: verdict first, then each check in a few lines.
 *
 * Reads the report; returns the text.
 */
import type { SoakReport } from './report';

const counts = (record: Record<string, number>): string =>
  Object.entries(record)
    .sort(([, a], [, b]) => b - a)
    .map(([label, n]) => `${label}: ${n}`)
    .join(', ') || '–';

const ms = (value: number | null | undefined): string => (value === null || value === undefined ? 'never' : `${(value / 1000).toFixed(1)} s`);

export function reportText(report: SoakReport, reportFile: string): string {
  const lines: string[] = [];
  const add = (line = ''): number => lines.push(line);
  const { verdict, deposits } = report;
  add(`SOAK ${verdict.pass ? 'PASSED' : 'FAILED'} (run ${report.run.runId}, ${report.run.options.minutes} min at ${report.run.options.rate} req/s)`);
  for (const reason of verdict.reasons) add(`  ✗ ${reason}`);
  add();
  add('Whole-document writes');
  for (const w of report.wholeDocumentWrites) add(`  ${w.what}: ${w.status}, applied ${w.applied}, version ${w.versionAfter} (${w.ms.toFixed(0)} ms)`);
  add();
  add('Deposits');
  add(
    `  keys sent ${deposits.keysSent} (${deposits.attempts} attempts; ${deposits.keysCreated - deposits.keysSent} never sent: dropped for the in-flight bound)`,
  );
  add(`  outcomes: ${counts(deposits.outcomes)}`);
  add(
    `  posted twice: ${deposits.postedTwice.length}; re-sent to the core: ${deposits.repeatsReachingCore.length}; fresh 201 twice: ${deposits.createdTwice.length}; answered 201 but not in the ledger: ${deposits.createdNotPosted.length} (${deposits.createdNotPostedInLedgerReadWindow} of them in the moment between the last ledger read and the core's kill)`,
  );
  add(`  outcome_unknown: ${deposits.outcomeUnknown.length} keys, ${deposits.outcomeUnknownPosted} of them posted per the ledger`);
  for (const key of deposits.outcomeUnknown.slice(0, 20)) add(`    ${key.externalRefNo} (${key.phase}): ${key.posted ? 'posted' : 'not posted'}`);
  if (deposits.outcomeUnknown.length > 20) add(`    … ${deposits.outcomeUnknown.length - 20} more in the JSON`);
  add(`  posted though no 201 was seen, by outcome: ${counts(deposits.postedWithoutCreated)}`);
  add(`  replays (after a 201) ${deposits.replays}: ${counts(deposits.replayAnswers)}`);
  add(`  twins (sent twice at once) ${deposits.twins}: ${counts(deposits.twinAnswers)}`);
  add(`  ledger reads: ${deposits.ledgerSnapshots.map((s) => `core #${s.generation} ${s.ok ? `${s.receipts} receipts` : 'FAILED'}`).join('; ')}`);
  add();
  add('Answers by phase (5xx by status and code; connection errors; dropped for the in-flight bound)');
  for (const p of report.phases) {
    add(
      `  ${p.phase.padEnd(13)} sent ${p.sent} (${counts(p.sentByKind)}), most in flight ${p.maxInFlight}, dropped ${p.dropped}${p.droppedFrom ? ` (${p.droppedFrom.slice(11, 19)}–${p.droppedTo?.slice(11, 19)})` : ''}`,
    );
    add(`  ${''.padEnd(13)} ${counts(p.byStatus)}`);
    if (Object.keys(p.serverErrors).length) add(`  ${''.padEnd(13)} 5xx: ${counts(p.serverErrors)}`);
    if (Object.keys(p.connectionErrors).length) add(`  ${''.padEnd(13)} no answer: ${counts(p.connectionErrors)}`);
  }
  add();
  add('Latency per minute (from each request’s due time; all answers)');
  for (const m of report.latencyPerMinute)
    add(
      `  min ${String(m.minute).padStart(2)}: ${String(m.answered).padStart(6)} answers, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, max ${m.maxMs} ms; 5xx ${m.serverErrors}, no answer ${m.connectionErrors}`,
    );
  add();
  add('Restarts');
  for (const r of report.restarts) {
    add(
      `  ${r.phase}: instance ${r.instance} by ${r.signal}, down ${ms(r.downMs)}, ready ${ms(r.readyAfterStartMs)} after start; valid-key 401s in the next 120 s: ${r.validKey401sWithin120s} (longest run ${r.longest401Run}${r.storm ? ': STORM' : ''}); ${r.minutesAfterLastWholeConfigWrite ?? '?'} min after the last whole-config write`,
    );
  }
  add(`  valid-key 401s in all: ${report.unauthorized.validKey401s}`);
  add(`  readiness mismatches (ready while valid keys got 401): ${report.readinessMismatches.length === 0 ? 'none' : ''}`);
  for (const m of report.readinessMismatches) add(`    instance ${m.instance} ${m.from} → ${m.to}: ${m.unauthorized} × 401, ${m.ok} × 2xx`);
  add();
  add('Breaker recovery after the core came back');
  const breaker = report.breakerRecovery;
  if (breaker) {
    add(`  core down ${ms(breaker.downMs)}`);
    for (const i of breaker.perInstance) {
      add(
        `  instance ${i.instance}: first 2xx GET ${ms(i.firstGoodGetAfterCoreBackMs)} after the core was back; resources breaker left closed ${ms(i.resourcesBreakerLeftClosedAfterKillMs)} after the kill, closed again ${ms(i.resourcesBreakerClosedAfterCoreBackMs)} after the core was back`,
      );
    }
  } else add('  (no core outage in this run)');
  add();
  add('Memory (RSS) per instance and process');
  for (const instance of report.rss) {
    for (const i of instance.incarnations) {
      add(
        `  ${instance.instance} #${i.incarnation}: ${i.firstMb} → ${i.lastMb} MB (max ${i.maxMb}) over ${i.minutes} min; slope ${i.slopeMbPerMinuteAfterFirstMinute} MB/min after its first minute (${i.slopeMbPerMinuteWhole} whole)`,
      );
    }
  }
  add();
  add('Access records in Redis');
  const store = report.accessStore;
  add(
    `  set to expire: ${store.recordsSetToExpire ? `YES, first seen ${store.firstSeenExpiring?.at} (TTL ms ${JSON.stringify(store.firstSeenExpiring?.ttlMs)}), gone at ${store.firstSeenExpiring?.expiresAt}` : 'no'}`,
  );
  for (const s of store.labelledSamples) add(`    ${s.label}: TTL ms ${JSON.stringify(s.ttlMs)}, ${s.keys} keys`);
  add(
    `  healed after the Redis restart: ${ms(store.healedAfterRedisRestartMs)}; records vanished otherwise: ${store.recordsVanishedOutsideRedisRestart.length ? store.recordsVanishedOutsideRedisRestart.join(', ') : 'never'}`,
  );
  add();
  add('Admin churn');
  add(
    `  ${
      Object.entries(report.adminChurn.operations)
        .map(([op, c]) => `${op} ${counts(c)}`)
        .join('; ') || '–'
    }`,
  );
  add(
    `  5xx: ${report.adminChurn.serverErrors}; new key served by the other instance after ${report.adminChurn.grantEnforcedMs.map((v) => (v === null ? 'never' : `${v} ms`)).join(', ') || '–'}; revoked key refused after ${report.adminChurn.revokeEnforcedMs.map((v) => (v === null ? 'never' : `${v} ms`)).join(', ') || '–'}`,
  );
  add();
  add(`Report: ${reportFile}`);
  return lines.join('\n');
}
