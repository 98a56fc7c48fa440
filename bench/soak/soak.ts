/**
 * `npm run soak`: a soak with faults, run for real on this machine (not in CI). About 15 minutes
 * by default (`--minutes N`; `--help` lists every flag).
 *
 * Starts its own redis-server on a free loopback port (no persistence: a restart comes back
 * empty), the standalone sandbox core, and two gateway instances (dist/main.js, built first) on
 * free ports sharing that Redis, with CORE_URL at the core, the sandbox access file (rate limits
 * raised) and an admin token. Right after the start it makes the whole-document writes, then
 * drives open-loop mixed load at both instances while the fault phases run (faults.ts), watching
 * readiness, memory and the access records (monitors.ts). At the end it reads the core's ledger,
 * prints the integrity report and writes it as JSON to <out>/report.json (the logs of every
 * process beside it).
 *
 * Exit code: 0 when the report passes (nothing posted twice, no 401 storm, no readiness mismatch,
 * and the other checks of report.ts), 1 when it does not (the reasons are printed), 2 when the
 * soak itself could not run. Every load targets 127.0.0.1; every loop ends at the run's end; a
 * watchdog ends the whole run 5 minutes after its planned end; every process started is stopped.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../test/support/free-port';
import { startRedisServer, type RedisServerHandle } from '../../test/support/redis-server';
import { AccessStoreProbe, wholeDocumentWrites, writeSoakAccessFile } from './access';
import { DepositBook } from './deposits';
import { runFaults, type Instance } from './faults';
import { OpenLoopLoad, type SandboxResources } from './load';
import { Monitors } from './monitors';
import { parseOptions, schedule, type SoakOptions } from './options';
import { reportText } from './print';
import { gatewayInstance, sandboxCore, sleep, type ChildRole } from './processes';
import { Recorder } from './recorder';
import { buildReport } from './report';

const ROOT = path.resolve(__dirname, '..', '..');
const WATCHDOG_GRACE_MS = 5 * 60_000;

function log(line: string): void {
  process.stderr.write(`[soak] ${line}\n`);
}

function build(): void {
  log('npm run build');
  const run = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
  if (run.status !== 0) throw new Error('npm run build failed');
}

async function waitReady(instance: Instance): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const res = await fetch(`http://127.0.0.1:${instance.ports.status}/health/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    await sleep(200);
  }
  throw new Error(`instance ${instance.name} was not ready within 60 s`);
}

/** Ids that exist in the sandbox data, read from the core itself (it needs no key). */
async function sandboxResources(coreUrl: string): Promise<SandboxResources> {
  const accounts = (await (await fetch(`${coreUrl}/accounts/`)).json()) as { id: number; productTypeId: number; status: number }[];
  const customers = (await (await fetch(`${coreUrl}/customers/`)).json()) as { Number: number }[];
  // Open or dormant share and savings accounts take deposits (loans, bonds and closed ones refuse).
  const depositAccounts = accounts.filter((a) => a.productTypeId === 1 && (a.status === 0 || a.status === 1)).map((a) => a.id);
  const everyNth = <T>(items: readonly T[], n: number): T[] => items.filter((_, i) => i % n === 0);
  const someAccounts = everyNth(accounts, 7).map((a) => a.id);
  const someCustomers = everyNth(customers, 5).map((c) => c.Number);
  const getPaths = [
    ...someAccounts.map((id) => `/accounts/${id}`),
    ...someAccounts.map((id) => `/accounts/${id}`),
    ...someCustomers.map((n) => `/customers/${n}`),
    ...someCustomers.map((n) => `/customers/${n}/accounts`),
    ...everyNth(someAccounts, 4).map((id) => `/accounts/${id}/transactions`),
    ...Array.from({ length: 5 }, (_, page) => `/banks?paged=true&page=${page + 1}&pageSize=10`),
  ];
  if (depositAccounts.length === 0 || getPaths.length === 0) throw new Error('the sandbox core answered no accounts or customers');
  return { getPaths, depositAccounts };
}

async function soak(options: SoakOptions, stopAll: { roles: ChildRole[]; redis: RedisServerHandle | null }): Promise<number> {
  const runId = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomBytes(2).toString('hex')}`;
  const outDir = path.resolve(options.out ?? path.join(ROOT, 'bench', 'results', `soak-${runId}`));
  mkdirSync(outDir, { recursive: true });
  if (options.build) build();
  for (const file of ['main.js', path.join('sandbox', 'main.js')]) {
    if (!existsSync(path.join(ROOT, 'dist', file))) throw new Error(`dist/${file} is missing: run npm run build (or drop --no-build)`);
  }
  log(`run ${runId}; logs and report in ${outDir}`);

  const redis = await startRedisServer();
  stopAll.redis = redis;
  const corePort = await freePort();
  const coreUrl = `http://127.0.0.1:${corePort}`;
  const core = sandboxCore(corePort, outDir);
  stopAll.roles.push(core);
  await core.start();
  log(`redis-server on ${redis.port}, sandbox core on ${corePort}`);

  const adminToken = `soak-admin-${randomBytes(16).toString('hex')}`;
  const settings = {
    redisUrl: redis.url,
    coreUrl,
    accessFile: writeSoakAccessFile(outDir, options.rate),
    adminToken,
    pepper: randomBytes(32).toString('hex'),
    logLevel: options.logLevel,
    dataLossHoldSeconds: options.dataLossHoldSeconds,
    lameDuckMs: options.lameDuckMs,
  };
  const instances: Instance[] = [];
  for (const name of ['A', 'B']) {
    const ports = { vendor: await freePort(), admin: await freePort(), status: await freePort() };
    const role = gatewayInstance(name, ports, settings, outDir);
    stopAll.roles.push(role);
    const instance = { name, role, ports };
    await role.start();
    await waitReady(instance);
    instances.push(instance);
    log(`instance ${name}: vendor ${ports.vendor}, admin ${ports.admin}, status ${ports.status}`);
  }
  const [a, b] = instances as [Instance, Instance];

  const store = new AccessStoreProbe(redis.url);
  await store.connected();
  // Before the writes as well as after: a TTL already there came with the seed, not the writes.
  await store.sample('instances started (Redis seeded from the access file)');
  const writes = await wholeDocumentWrites(`http://127.0.0.1:${a.ports.admin}`, adminToken, options.bulkKeys);
  for (const w of writes) log(`whole-document write (${w.what}): ${w.status}, applied ${w.applied}, version ${w.versionAfter}`);
  const resources = await sandboxResources(coreUrl);

  const phases = schedule(options);
  const book = new DepositBook(runId);
  await store.sample('whole-document writes done');
  const monitors = new Monitors(
    instances.map((i) => ({ name: i.name, role: i.role, statusPort: i.ports.status })),
    store,
  );
  await monitors.pollReadiness();
  const loadStartedAt = Date.now();
  const endAt = loadStartedAt + options.minutes * 60_000;
  const recorder = new Recorder(loadStartedAt, options.stormThreshold);
  const targets = instances.map((i) => ({ name: i.name, port: i.ports.vendor, routable: () => monitors.routable(i.name) }));
  const load = new OpenLoopLoad(targets, resources, options, recorder, book, endAt);
  log(`load: ${options.rate} req/s for ${options.minutes} min; phases at ${phases.map((p) => `${p.name} +${Math.round(p.atMs / 1000)} s`).join(', ')}`);

  const [faults] = await Promise.all([
    runFaults({ options, phases, loadStartedAt, endAt, recorder, book, redis, core, coreUrl, a, b, adminToken }),
    load.run(),
    monitors.run(endAt),
  ]);
  const loadEndedAt = Date.now();
  recorder.finish();
  await book.snapshot(coreUrl, core.incarnation);
  store.close();

  const report = buildReport({
    options,
    runId,
    outDir,
    phases,
    loadStartedAt,
    loadEndedAt,
    instances: instances.map((i) => i.name),
    recorder,
    monitors,
    storeSamples: store.samples,
    writes,
    deposits: book.reconcile(),
    faults,
  });
  const reportFile = path.join(outDir, 'report.json');
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${reportText(report, reportFile)}\n`);
  return report.verdict.pass ? 0 : 1;
}

async function stopEverything(stopAll: { roles: ChildRole[]; redis: RedisServerHandle | null }): Promise<void> {
  await Promise.all(stopAll.roles.map((role) => role.stop('SIGTERM').catch(() => undefined)));
  await stopAll.redis?.stop().catch(() => undefined);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const stopAll: { roles: ChildRole[]; redis: RedisServerHandle | null } = { roles: [], redis: null };
  // The whole run is bounded: past its planned end and a grace, everything is killed.
  const watchdog = setTimeout(
    () => {
      log('watchdog: the run overran its time; stopping everything');
      void stopEverything(stopAll).finally(() => process.exit(2));
    },
    options.minutes * 60_000 + WATCHDOG_GRACE_MS,
  );
  process.once('SIGINT', () => void stopEverything(stopAll).finally(() => process.exit(130)));
  let code = 2;
  try {
    code = await soak(options, stopAll);
  } catch (err) {
    log(`the soak could not run: ${(err as Error).stack ?? String(err)}`);
  } finally {
    await stopEverything(stopAll);
    clearTimeout(watchdog);
  }
  process.exit(code);
}

void main();
