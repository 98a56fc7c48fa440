/**
 * `npm run bench:scale`: what access-config changes cost as the config grows (1,000, 10,000 and
 * 100,000 keys, each key its own user with two permissions), on this machine, in one run.
 *
 * For each size: a private redis-server, the bench upstream and two gateway instances (A, B) in
 * their own processes. The whole config is uploaded with PUT /v1/access on A; then it measures
 * B's cold start to ready and its longest event-loop stall while loading, one admin change's
 * latency on A and the time until B enforces it (a key revoked on A answered 401 by B; median of
 * 5), the p99 of 200 req/s of vendor traffic on each instance, quiet and during 10 admin changes
 * a second, admin answers of 5xx, and each instance's peak RSS. Then the largest upload, the
 * pod's memory budget (bench/memory-budget.ts) and what deeply nested admin bodies cost
 * (`nestedBodies`). Prints tables and writes them to
 * bench/results/scale-latest.json. Pass sizes to run only those: `npm run bench:scale -- 1000`.
 *
 * Every load is bounded in time and targets 127.0.0.1 only; every process started is stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startRedisServer } from '../test/support/redis-server';
import { adminSchema } from '../src/admin/admin.schema';
import { openLoop } from './load/open-loop';
import { imageNodeOptions } from './servers/image-node-options';
import { nextMessage, stopChild } from './child-process';
import { accessDocument } from './scale-support';
import { budgetTable, memoryBudget, type BudgetRow } from './memory-budget';

const BENCH = __dirname;
const ADMIN_TOKEN = 'bench-admin-token-not-secret-0001';
const RATE = 200;
const LOAD_SECONDS = 10;
const CHANGES_PER_SECOND = 10;
const ENFORCEMENT_TRIALS = 5;
const SAMPLE_KEYS = 2 + ENFORCEMENT_TRIALS;
const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
/** `npm run bench:scale -- --upload-only`: only the largest-upload, memory-budget and nested-bodies rows. */
const UPLOAD_ONLY = process.argv.includes('--upload-only');
/** `npm run bench:scale -- --nested-only`: only the nested-bodies rows. */
const NESTED_ONLY = process.argv.includes('--nested-only');
/** admin.maxDocumentBytes's default, or MAX_DOCUMENT_BYTES: the largest upload an operator may send. */
const MAX_DOCUMENT_BYTES = Number(process.env.MAX_DOCUMENT_BYTES ?? adminSchema.shape.maxDocumentBytes.parse(undefined));
/** Uploads sent at once in the largest-upload row: all but one must be refused (429), not parsed. */
const PARALLEL_UPLOADS = 3;

interface Instance {
  readonly child: ChildProcess;
  readonly vendorUrl: string;
  readonly adminUrl: string;
  readonly readyMs: number;
  readonly loadStallMs: number;
}

interface Row {
  readonly keys: number;
  readonly documentMb: number;
  readonly uploadMs: number;
  readonly coldStartMs: number;
  readonly loadStallMs: number;
  readonly changeMs: number;
  readonly enforcedMs: number;
  readonly quietP99Ms: number;
  readonly busyP99Ms: number;
  readonly admin5xx: number;
  /** A took the whole-config upload; B only loaded it. */
  readonly peakRssMbA: number;
  readonly peakRssMbB: number;
}

/** The image's node flags, then extra ones to look inside one run: `SCALE_NODE_ARGS=--trace-gc`. */
const NODE_ARGS = [...imageNodeOptions(), ...(process.env.SCALE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
/** The chart's memory limit (resources.limits.memory, 512Mi), which the largest-upload row must fit. */
const POD_LIMIT_MIB = 512;
/**
 * In a pod, `--max-old-space-size-percentage=75` (the image's) sizes the old generation from the
 * container's limit; this machine has no such limit, so the row names the size the pod gets.
 */
const POD_NODE_ARGS = [
  ...NODE_ARGS.filter((arg) => !arg.startsWith('--max-old-space-size-percentage')),
  `--max-old-space-size=${Math.floor(POD_LIMIT_MIB * 0.75)}`,
];

function startProcess(file: string, args: string[], nodeArgs: readonly string[] = file === 'scale-gateway.ts' ? NODE_ARGS : []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(BENCH, 'servers', file), ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

async function startUpstream(): Promise<{ child: ChildProcess; url: string }> {
  const child = startProcess('upstream.ts', []);
  const { port } = await nextMessage<{ port: number }>(child, 'upstream');
  return { child, url: `http://127.0.0.1:${port}` };
}

async function startInstance(upstreamUrl: string, redisUrl: string, keyPrefix: string, nodeArgs = NODE_ARGS, extraArgs: string[] = []): Promise<Instance> {
  const child = startProcess('scale-gateway.ts', [upstreamUrl, redisUrl, keyPrefix, ...extraArgs], nodeArgs);
  const ready = await nextMessage<{ vendorPort: number; adminPort: number; readyMs: number; loadStallMs: number }>(child, 'gateway');
  return {
    child,
    vendorUrl: `http://127.0.0.1:${ready.vendorPort}`,
    adminUrl: `http://127.0.0.1:${ready.adminPort}`,
    readyMs: ready.readyMs,
    loadStallMs: ready.loadStallMs,
  };
}

async function admin(instance: Instance, method: string, pathname: string, body?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${instance.adminUrl}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
    signal: AbortSignal.timeout(300_000),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

async function statusFor(instance: Instance, secret: string): Promise<number> {
  const res = await fetch(`${instance.vendorUrl}/accounts/40012`, { headers: { 'x-vendor-token': secret } });
  await res.arrayBuffer();
  return res.status;
}

/** Milliseconds from the admin call on A until B answers 401 to the revoked key. */
async function enforcement(a: Instance, b: Instance, keyId: string, secret: string): Promise<{ changeMs: number; enforcedMs: number }> {
  if ((await statusFor(b, secret)) !== 200) throw new Error(`key ${keyId} does not work on B before the revocation`);
  const started = performance.now();
  const revoked = admin(a, 'DELETE', `/v1/keys/${keyId}`);
  let enforcedMs = Number.NaN;
  while (performance.now() - started < 15_000) {
    if ((await statusFor(b, secret)) === 401) {
      enforcedMs = performance.now() - started;
      break;
    }
  }
  const { status, ms } = await revoked;
  if (status !== 204) throw new Error(`revoking ${keyId} answered ${status}`);
  return { changeMs: ms, enforcedMs };
}

function load(instance: Instance, secret: string, seconds = LOAD_SECONDS): Promise<{ p99Ms: number; failed: number }> {
  return openLoop(
    {
      kind: 'open-loop',
      url: instance.vendorUrl,
      request: { method: 'GET', path: '/accounts/40012', headers: { 'x-vendor-token': secret } },
      seconds,
      connections: 0,
      rate: RATE,
      warmupSeconds: 1,
    },
    () => undefined,
  );
}

/** 10 rate-limit changes a second on A until `until` settles; counts 5xx answers. */
async function changeLoop(a: Instance, until: Promise<unknown>): Promise<{ count: number; errors5xx: number }> {
  let done = false;
  void until.finally(() => (done = true));
  let count = 0;
  let errors5xx = 0;
  const started = performance.now();
  while (!done) {
    const due = started + (count * 1000) / CHANGES_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (done) break;
    const { status } = await admin(a, 'PUT', '/v1/vendors/bench/rate-limit', JSON.stringify({ points: 1_000_000 + (count % 2), durationSeconds: 1 }));
    if (status >= 500) errors5xx += 1;
    count += 1;
  }
  return { count, errors5xx };
}

const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;

async function measure(size: number, upstreamUrl: string): Promise<Row> {
  const redis = await startRedisServer();
  const instances: Instance[] = [];
  try {
    const prefix = `scale${size}:`;
    const a = await startInstance(upstreamUrl, redis.url, prefix);
    instances.push(a);
    const { json, secrets, keyIds } = accessDocument(size, SAMPLE_KEYS);
    const upload = await admin(a, 'PUT', '/v1/access', json);
    if (upload.status !== 200) throw new Error(`PUT /v1/access answered ${upload.status}`);

    const b = await startInstance(upstreamUrl, redis.url, prefix);
    instances.push(b);

    const trials = [];
    for (let t = 0; t < ENFORCEMENT_TRIALS; t++) trials.push(await enforcement(a, b, keyIds[2 + t] as string, secrets[2 + t] as string));

    // Warm both instances up (JIT, connection pools) before anything is measured.
    await Promise.all([load(a, secrets[0] as string, 3), load(b, secrets[1] as string, 3)]);
    const quiet = await Promise.all([load(a, secrets[0] as string), load(b, secrets[1] as string)]);
    const busyLoads = Promise.all([load(a, secrets[0] as string), load(b, secrets[1] as string)]);
    const [busy, changes] = await Promise.all([busyLoads, changeLoop(a, busyLoads)]);

    const stats = await Promise.all(
      instances.map(async (instance) => {
        const answer = nextMessage<{ peakRssMb: number }>(instance.child, 'stats');
        instance.child.send('stats');
        return answer;
      }),
    );
    const failed = [...quiet, ...busy].reduce((sum, r) => sum + r.failed, 0);
    if (failed > 0) console.error(`size ${size}: ${failed} vendor requests failed`);
    return {
      keys: size,
      documentMb: Buffer.byteLength(json) / 1024 / 1024,
      uploadMs: upload.ms,
      coldStartMs: b.readyMs,
      loadStallMs: b.loadStallMs,
      changeMs: median(trials.map((t) => t.changeMs)),
      enforcedMs: median(trials.map((t) => t.enforcedMs)),
      quietP99Ms: Math.max(...quiet.map((r) => r.p99Ms)),
      busyP99Ms: Math.max(...busy.map((r) => r.p99Ms)),
      admin5xx: changes.errors5xx,
      peakRssMbA: (stats[0] as { peakRssMb: number }).peakRssMb,
      peakRssMbB: (stats[1] as { peakRssMb: number }).peakRssMb,
    };
  } finally {
    for (const instance of instances) await stopChild(instance.child);
    await redis.stop();
  }
}

interface UploadRow {
  readonly keys: number;
  readonly documentMb: number;
  readonly uploadMs: number;
  readonly statuses: number[];
  /** MiB (maxRSS is in KiB). */
  readonly peakRssMb: number;
}

/**
 * The largest upload an operator may send (just under admin.maxDocumentBytes of keys), sent
 * PARALLEL_UPLOADS times at once to one fresh instance run as in the chart's pod (POD_NODE_ARGS):
 * its peak RSS is what the pod limit must hold. One is parsed; the others are refused before
 * their bodies are read.
 */
async function largestUpload(upstreamUrl: string): Promise<UploadRow> {
  // Ids grow with the count: estimate from a sample, then shrink until the document fits.
  let size = Math.floor(MAX_DOCUMENT_BYTES / (Buffer.byteLength(accessDocument(10_000, SAMPLE_KEYS).json) / 10_000));
  let json = accessDocument(size, SAMPLE_KEYS).json;
  while (Buffer.byteLength(json) > MAX_DOCUMENT_BYTES - 4096) {
    size = Math.floor(size * (MAX_DOCUMENT_BYTES / Buffer.byteLength(json)) * 0.995);
    json = accessDocument(size, SAMPLE_KEYS).json;
  }
  const redis = await startRedisServer();
  let instance: Instance | undefined;
  try {
    instance = await startInstance(upstreamUrl, redis.url, 'upload:', POD_NODE_ARGS);
    const a = instance;
    const started = performance.now();
    const uploads = await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, () => admin(a, 'PUT', '/v1/access', json)));
    const uploadMs = performance.now() - started;
    const answer = nextMessage<{ peakRssMb: number }>(a.child, 'stats');
    a.child.send('stats');
    const { peakRssMb } = await answer;
    return { keys: size, documentMb: Buffer.byteLength(json) / 1024 / 1024, uploadMs, statuses: uploads.map((u) => u.status).sort(), peakRssMb };
  } finally {
    if (instance) await stopChild(instance.child);
    await redis.stop();
  }
}

interface NestedRow {
  readonly attack: string;
  readonly sent: string;
  /** Answers by status (`err`: no answer). */
  readonly answers: Record<string, number>;
  readonly untilAnsweredMs: number;
  /** Peak RSS after the flood less peak RSS before it, MiB. */
  readonly rssGrowthMb: number;
  readonly longestStallMs: number;
}

const nested = (bytes: number): string => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2);

/**
 * Deeply nested bodies (`[[[[…]]]]`), each attack against one fresh instance run as in the pod:
 * what they cost before they are refused. Without a credential to the enrolment route, by a
 * viewer to a write, and one whole document by an operator, as JSON and as YAML.
 */
async function nestedBodies(upstreamUrl: string): Promise<NestedRow[]> {
  const MB = 1024 * 1024;
  const attacks: { attack: string; who: 'none' | 'viewer' | 'operator'; method: string; path: string; count: number; body: string; type: string }[] = [
    { attack: 'enrol, no credential', who: 'none', method: 'POST', path: '/v1/admins/enrol', count: 20, body: nested(MB), type: 'application/json' },
    { attack: 'enrol, no credential', who: 'none', method: 'POST', path: '/v1/admins/enrol', count: 100, body: nested(MB), type: 'application/json' },
    { attack: 'POST /v1/vendors, viewer', who: 'viewer', method: 'POST', path: '/v1/vendors', count: 20, body: nested(MB), type: 'application/json' },
    {
      attack: 'PUT /v1/access?dryRun, operator, JSON',
      who: 'operator',
      method: 'PUT',
      path: '/v1/access?dryRun=true',
      count: 1,
      body: nested(16 * MB),
      type: 'application/json',
    },
    {
      attack: 'PUT /v1/access?dryRun, operator, YAML',
      who: 'operator',
      method: 'PUT',
      path: '/v1/access?dryRun=true',
      count: 1,
      body: `vendors: ${nested(16 * MB)}`,
      type: 'application/yaml',
    },
  ];
  const rows: NestedRow[] = [];
  for (const a of attacks) {
    const redis = await startRedisServer();
    let instance: Instance | undefined;
    try {
      instance = await startInstance(upstreamUrl, redis.url, 'nested:', POD_NODE_ARGS);
      const url = instance.adminUrl;
      let token: string | undefined;
      if (a.who !== 'none') {
        const made = await fetch(`${url}/v1/admins`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: a.who, name: a.who, role: a.who }),
        });
        const { enrolmentCode } = (await made.json()) as { enrolmentCode: string };
        const enrolled = await fetch(`${url}/v1/admins/enrol`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ enrolmentCode }),
        });
        token = ((await enrolled.json()) as { token: string }).token;
      }
      const child = instance.child;
      const stats = async (): Promise<{ peakRssMb: number; stallMs: number }> => {
        const answer = nextMessage<{ peakRssMb: number; stallMs: number }>(child, 'stats');
        child.send('stats');
        return answer;
      };
      const before = await stats();
      const headers = { 'content-type': a.type, 'x-requested-by': 'cbg-admin-ui', ...(token ? { authorization: `Bearer ${token}` } : {}) };
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: a.count }, () =>
          fetch(`${url}${a.path}`, { method: a.method, headers, body: a.body, signal: AbortSignal.timeout(120_000) }).then(
            async (res) => (await res.arrayBuffer(), String(res.status)),
            () => 'err',
          ),
        ),
      );
      const untilAnsweredMs = performance.now() - started;
      // An instance that ran out of memory answers no more: its row says so.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const after = child.connected ? await stats() : { peakRssMb: Number.NaN, stallMs: Number.NaN };
      const counts: Record<string, number> = {};
      for (const status of answers) counts[status] = (counts[status] ?? 0) + 1;
      const sent = `${a.count} × ${(Buffer.byteLength(a.body) / MB).toFixed(0)} MiB`;
      rows.push({ attack: a.attack, sent, answers: counts, untilAnsweredMs, rssGrowthMb: after.peakRssMb - before.peakRssMb, longestStallMs: after.stallMs });
    } finally {
      if (instance) await stopChild(instance.child);
      await redis.stop();
    }
  }
  return rows;
}

function nestedTable(rows: readonly NestedRow[]): string {
  return [
    `| nested bodies (\`[[[[…]]]]\`) | sent at once | answers | until all answered | peak RSS growth (node ${POD_NODE_ARGS.join(' ')}) | longest event-loop stall |`,
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.attack} | ${r.sent} | ${Object.entries(r.answers)
          .map(([status, n]) => `${n}× ${status}`)
          .join(', ')} | ${(r.untilAnsweredMs / 1000).toFixed(2)} s | ` +
        (Number.isNaN(r.rssGrowthMb) ? 'the instance died (out of memory) | – |' : `${r.rssGrowthMb.toFixed(0)} MiB | ${r.longestStallMs.toFixed(0)} ms |`),
    ),
  ].join('\n');
}

function uploadTable(row: UploadRow): string {
  return [
    `| keys | document | uploads sent at once | answers | until all answered | peak RSS (node ${POD_NODE_ARGS.join(' ')}) | pod limit |`,
    '|---|---|---|---|---|---|---|',
    `| ${row.keys.toLocaleString('en-GB')} | ${row.documentMb.toFixed(1)} MiB | ${PARALLEL_UPLOADS} | ${row.statuses.join(', ')} | ${(row.uploadMs / 1000).toFixed(2)} s | ${row.peakRssMb.toFixed(0)} MiB | ${POD_LIMIT_MIB} MiB |`,
  ].join('\n');
}

function table(rows: readonly Row[]): string {
  const header =
    '| keys | document | upload (PUT /v1/access) | cold start to ready | longest stall while loading | one change (admin) | enforced on the other instance | vendor p99 quiet → during 10 changes/s | admin 5xx | peak RSS: A (took the upload) / B |';
  const line = '|---|---|---|---|---|---|---|---|---|---|';
  const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
  const body = rows.map(
    (r) =>
      `| ${r.keys.toLocaleString('en-GB')} | ${r.documentMb.toFixed(1)} MB | ${fmt(r.uploadMs)} | ${fmt(r.coldStartMs)} | ${fmt(r.loadStallMs)} | ${fmt(r.changeMs)} | ${fmt(r.enforcedMs)} | ${fmt(r.quietP99Ms)} → ${fmt(r.busyP99Ms)} | ${r.admin5xx} | ${r.peakRssMbA.toFixed(0)} / ${r.peakRssMbB.toFixed(0)} MB |`,
  );
  return [header, line, ...body].join('\n');
}

async function main(): Promise<void> {
  const sizes = UPLOAD_ONLY || NESTED_ONLY ? [] : SIZES.length > 0 ? SIZES : [1000, 10_000, 100_000];
  const upstream = await startUpstream();
  const rows: Row[] = [];
  let upload: UploadRow | null = null;
  let budget: BudgetRow | null = null;
  let nestedRows: NestedRow[] = [];
  try {
    for (const size of sizes) {
      console.error(`bench:scale: ${size} keys`);
      rows.push(await measure(size, upstream.url));
    }
    if (!NESTED_ONLY && (UPLOAD_ONLY || SIZES.length === 0)) {
      console.error(`bench:scale: the largest upload (${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB), ${PARALLEL_UPLOADS} at once`);
      upload = await largestUpload(upstream.url);
      console.error('bench:scale: the memory budget (100,000 keys, a request log, one upload parsed)');
      budget = await memoryBudget({
        start: (redisUrl, extraArgs) => startInstance(upstream.url, redisUrl, 'budget:', POD_NODE_ARGS, extraArgs),
        upload: (instance, json) => admin(instance as Instance, 'PUT', '/v1/access', json),
        vendorLoad: (instance, secret) => load(instance as Instance, secret),
      });
    }
    if (NESTED_ONLY || UPLOAD_ONLY || SIZES.length === 0) {
      console.error('bench:scale: deeply nested admin bodies');
      nestedRows = await nestedBodies(upstream.url);
    }
  } finally {
    await stopChild(upstream.child);
  }
  if (rows.length > 0) console.log(table(rows));
  if (upload) console.log(uploadTable(upload));
  if (budget) console.log(budgetTable(budget, POD_LIMIT_MIB, POD_NODE_ARGS));
  if (nestedRows.length > 0) console.log(nestedTable(nestedRows));
  mkdirSync(path.join(BENCH, 'results'), { recursive: true });
  writeFileSync(
    path.join(BENCH, 'results', 'scale-latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), rows, upload, budget, nested: nestedRows }, null, 2)}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
