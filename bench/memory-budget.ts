/**
 * The pod's memory budget, measured for `npm run bench:scale` (docs/performance.md, "One memory
 * budget for the pod"): one instance run as in the chart's default pod (the image's flags, the
 * old generation the pod's limit gives), holding a full request log (REQUEST_LOG_ENTRIES summaries
 * of about 300 bytes: the vendor portal's, to come) and the 100,000-key access config, then
 * parsing one whole-document upload of 100,000 keys (the config replaced, every permission
 * renamed) while vendor traffic runs at 200 req/s. Its peak RSS must stay below the pod's limit,
 * and what it holds once settled below the 400 MB goal.
 *
 * Starts a private redis-server and the instance (through the runner's `start`); stops both.
 */
import type { ChildProcess } from 'node:child_process';
import { startRedisServer } from '../test/support/redis-server';
import { nextMessage, stopChild } from './child-process';
import { accessDocument } from './scale-support';

const KEYS = 100_000;
const REQUEST_LOG_ENTRIES = 10_000;
/** The goal for an instance holding the 100,000-key config (issue 30's scale goals). */
const HELD_GOAL_MB = 400;

interface BudgetInstance {
  readonly child: ChildProcess;
}

interface Stats {
  readonly peakRssMb: number;
  readonly rssMb: number;
  readonly ringMb: number;
}

export interface BudgetRow {
  readonly keys: number;
  readonly documentMb: number;
  readonly requestLogEntries: number;
  readonly requestLogMb: number;
  /** RSS once the first upload has settled: the config and the request log held. */
  readonly heldRssMb: number;
  /** Peak RSS over the instance's life, the second upload's parse included. */
  readonly peakRssMb: number;
  readonly vendorP99Ms: number;
  readonly vendorFailed: number;
}

interface BudgetDeps {
  start(redisUrl: string, extraArgs: string[]): Promise<BudgetInstance>;
  upload(instance: BudgetInstance, json: string): Promise<{ status: number }>;
  vendorLoad(instance: BudgetInstance, secret: string): Promise<{ p99Ms: number; failed: number }>;
}

async function stats(instance: BudgetInstance): Promise<Stats> {
  const answer = nextMessage<Stats>(instance.child, 'stats');
  instance.child.send('stats');
  return answer;
}

export async function memoryBudget(deps: BudgetDeps): Promise<BudgetRow> {
  const redis = await startRedisServer();
  let instance: BudgetInstance | undefined;
  try {
    instance = await deps.start(redis.url, ['--request-log', String(REQUEST_LOG_ENTRIES)]);
    const { json, secrets } = accessDocument(KEYS, 1);
    const first = await deps.upload(instance, json);
    if (first.status !== 200) throw new Error(`budget: the first upload answered ${first.status}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const held = await stats(instance);
    // The same keys (traffic goes on), every permission renamed: a whole new document to parse and apply.
    const replacement = json.replaceAll('"read-customers"', '"read-customers-v2"');
    const [second, vendor] = await Promise.all([deps.upload(instance, replacement), deps.vendorLoad(instance, secrets[0] as string)]);
    if (second.status !== 200) throw new Error(`budget: the replacement upload answered ${second.status}`);
    const after = await stats(instance);
    return {
      keys: KEYS,
      documentMb: Buffer.byteLength(replacement) / 2 ** 20,
      requestLogEntries: REQUEST_LOG_ENTRIES,
      requestLogMb: held.ringMb,
      heldRssMb: held.rssMb,
      peakRssMb: after.peakRssMb,
      vendorP99Ms: vendor.p99Ms,
      vendorFailed: vendor.failed,
    };
  } finally {
    if (instance) await stopChild(instance.child);
    await redis.stop();
  }
}

/** The budget's row as a table, with its goals met or not. */
export function budgetTable(row: BudgetRow, podLimitMib: number, nodeArgs: readonly string[]): string {
  const met = (ok: boolean): string => (ok ? 'met' : '**not met**');
  return [
    `| held: access config + request log | upload parsed beside them | held RSS (goal < ${HELD_GOAL_MB} MB) | peak RSS (node ${nodeArgs.join(' ')}) | pod limit | vendor p99 during the upload |`,
    '|---|---|---|---|---|---|',
    `| ${row.keys.toLocaleString('en-GB')} keys + ${row.requestLogEntries.toLocaleString('en-GB')} summaries (${row.requestLogMb.toFixed(1)} MiB heap) | ${row.documentMb.toFixed(1)} MiB, ${row.keys.toLocaleString('en-GB')} keys | ${row.heldRssMb.toFixed(0)} MiB: ${met(row.heldRssMb < HELD_GOAL_MB)} | ${row.peakRssMb.toFixed(0)} MiB: ${met(row.peakRssMb < podLimitMib)} | ${podLimitMib} MiB | ${row.vendorP99Ms.toFixed(1)} ms (${row.vendorFailed} failed) |`,
  ].join('\n');
}
