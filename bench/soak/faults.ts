/**
 * The soak's faults, one phase after another at the times of the schedule: Redis killed and
 * started again empty, instance A killed (SIGKILL) and started again, instance B stopped
 * (SIGTERM) and started again, the sandbox core killed and started again after a while (its
 * ledger read first: it lives in the core's memory), admin churn through both admin APIs, and a
 * late restart of instance A.
 *
 * Reads and changes the processes it is given; calls the admin APIs with the admin token and
 * the vendor ports with the keys churn issues. Sets the recorder's phase. Bounded: nothing starts
 * after `endAt`, and the churn loop stops at the next phase.
 */
import type { RedisServerHandle } from '../../test/support/redis-server';
import { adminCall } from './access';
import type { DepositBook } from './deposits';
import type { Phase, PhaseName, SoakOptions } from './options';
import { sleep, type ChildRole, type GatewayPorts } from './processes';
import type { Recorder } from './recorder';

const REDIS_DOWN_MS = 2000;
const INSTANCE_DOWN_MS = 1000;
const PROPAGATION_LIMIT_MS = 5000;

export interface Instance {
  readonly name: string;
  readonly role: ChildRole;
  readonly ports: GatewayPorts;
}

export interface RestartEvent {
  readonly instance: string;
  readonly signal: 'SIGKILL' | 'SIGTERM';
  readonly phase: PhaseName;
  readonly stoppedAt: number;
  /** When the new process answered /health/live; null when it failed to start. */
  readonly startedAt: number | null;
  readonly error: string | null;
}

export interface ChurnStats {
  readonly operations: Record<string, Record<string, number>>;
  serverErrors: number;
  /** Milliseconds until the other instance let a newly granted key in (neither 401 nor 403), per cycle. */
  readonly grantEnforcedMs: (number | null)[];
  /** Milliseconds until the other instance refused a revoked key (401), per cycle. */
  readonly revokeEnforcedMs: (number | null)[];
}

export interface FaultLog {
  readonly events: { at: number; phase: PhaseName; what: string }[];
  readonly restarts: RestartEvent[];
  redis: { killedAt: number; startedAt: number | null } | null;
  core: { killedAt: number; startedAt: number | null; ledgerReadAt: number } | null;
  readonly churn: ChurnStats;
}

interface FaultContext {
  readonly options: SoakOptions;
  readonly phases: readonly Phase[];
  readonly loadStartedAt: number;
  readonly endAt: number;
  readonly recorder: Recorder;
  readonly book: DepositBook;
  readonly redis: RedisServerHandle;
  readonly core: ChildRole;
  readonly coreUrl: string;
  readonly a: Instance;
  readonly b: Instance;
  readonly adminToken: string;
}

export async function runFaults(ctx: FaultContext): Promise<FaultLog> {
  const log: FaultLog = {
    events: [],
    restarts: [],
    redis: null,
    core: null,
    churn: { operations: {}, serverErrors: 0, grantEnforcedMs: [], revokeEnforcedMs: [] },
  };
  const note = (what: string): void => {
    log.events.push({ at: Date.now(), phase: ctx.recorder.phase, what });
    process.stderr.write(`[soak +${((Date.now() - ctx.loadStartedAt) / 1000).toFixed(0)} s] ${what}\n`);
  };
  for (const [index, phase] of ctx.phases.entries()) {
    const startAt = ctx.loadStartedAt + phase.atMs;
    if (startAt >= ctx.endAt) break;
    await sleep(startAt - Date.now());
    ctx.recorder.phase = phase.name;
    note(`phase ${phase.name}: ${phase.description}`);
    const nextAt = Math.min(ctx.endAt, ctx.loadStartedAt + (ctx.phases[index + 1]?.atMs ?? Infinity));
    switch (phase.name) {
      case 'redis-restart': {
        const killedAt = Date.now();
        await ctx.redis.stop(true);
        log.redis = { killedAt, startedAt: null };
        await sleep(REDIS_DOWN_MS);
        await ctx.redis.start();
        log.redis.startedAt = Date.now();
        note('redis-server is back, empty');
        break;
      }
      case 'sigkill':
        log.restarts.push(await restart(ctx.a, 'SIGKILL', phase.name, note));
        break;
      case 'sigterm':
        log.restarts.push(await restart(ctx.b, 'SIGTERM', phase.name, note));
        break;
      case 'core-stop': {
        // The ledger lives in the core's memory: read it just before the kill, in the same breath.
        const ledgerReadAt = Date.now();
        await ctx.book.snapshot(ctx.coreUrl, ctx.core.incarnation);
        const killedAt = Date.now();
        await ctx.core.stop('SIGKILL');
        log.core = { killedAt, startedAt: null, ledgerReadAt };
        note('sandbox core killed');
        await sleep(ctx.options.coreDownSeconds * 1000);
        await ctx.core.start();
        log.core.startedAt = Date.now();
        ctx.recorder.watchRecovery(log.core.startedAt, [ctx.a.name, ctx.b.name]);
        note('sandbox core is back');
        break;
      }
      case 'admin-churn':
        await churn(ctx, log.churn, nextAt);
        note('admin churn ends');
        break;
      case 'late-restart':
        log.restarts.push(await restart(ctx.a, 'SIGTERM', phase.name, note));
        break;
      default:
        break;
    }
  }
  return log;
}

async function restart(instance: Instance, signal: 'SIGKILL' | 'SIGTERM', phase: PhaseName, note: (what: string) => void): Promise<RestartEvent> {
  const stoppedAt = Date.now();
  await instance.role.stop(signal);
  note(`instance ${instance.name} stopped by ${signal}`);
  await sleep(INSTANCE_DOWN_MS);
  // A port can linger a moment after a kill: a failed start is tried twice more.
  let error: string | null = null;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await instance.role.start();
      note(`instance ${instance.name} started again`);
      return { instance: instance.name, signal, phase, stoppedAt, startedAt: Date.now(), error: null };
    } catch (err) {
      error = (err as Error).message;
      await sleep(2000);
    }
  }
  note(`instance ${instance.name} did not start again: ${error}`);
  return { instance: instance.name, signal, phase, stoppedAt, startedAt: null, error };
}

/**
 * Polls a vendor port with a key until its answer says the change is enforced there; the
 * milliseconds that took, or null. Granted: anything but 401 and 403 (a 503 from an open
 * breaker still means the key was let in); revoked: 401.
 */
async function enforcedWithin(port: number, secret: string, change: 'granted' | 'revoked'): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started < PROPAGATION_LIMIT_MS) {
    const res = await fetch(`http://127.0.0.1:${port}/accounts/50001`, { headers: { 'x-vendor-token': secret }, signal: AbortSignal.timeout(2000) }).catch(
      () => null,
    );
    await res?.arrayBuffer().catch(() => undefined);
    const enforced = change === 'granted' ? res !== null && res.status !== 401 && res.status !== 403 : res?.status === 401;
    if (enforced) return Date.now() - started;
    await sleep(50);
  }
  return null;
}

/**
 * One admin change every churnEverySeconds, alternating between the two admin APIs: a vendor is
 * created, given a key, a licence and its user a permission (the other instance must then serve
 * the key), renamed and given another rate limit, then everything is revoked (the other instance
 * must then refuse the key) and the vendor deleted; then the next vendor.
 */
async function churn(ctx: FaultContext, stats: ChurnStats, until: number): Promise<void> {
  const instances = [ctx.a, ctx.b];
  let step = 0;
  for (let cycle = 1; Date.now() < until; cycle++) {
    const vendorId = `soak-churn-${cycle}`;
    const userId = `soak.churn.${cycle}`;
    let keyId = '';
    let secret = '';
    let licenceId = '';
    let permissionId = '';
    const steps: [string, string, () => string, unknown?][] = [
      ['createVendor', 'POST', () => '/v1/vendors', { id: vendorId, name: `Soak churn ${cycle}`, rateLimit: { points: 600, durationSeconds: 60 } }],
      ['issueKey', 'POST', () => `/v1/vendors/${vendorId}/keys`, { userId }],
      ['grantLicence', 'POST', () => `/v1/vendors/${vendorId}/licences`, { api: 'GETaccounts*' }],
      ['grantPermission', 'POST', () => `/v1/users/${userId}/permissions`, { api: 'GETaccounts*' }],
      ['patchVendor', 'PATCH', () => `/v1/vendors/${vendorId}`, { name: `Soak churn ${cycle} (renamed)` }],
      ['setRateLimit', 'PUT', () => `/v1/vendors/${vendorId}/rate-limit`, { points: 900, durationSeconds: 60 }],
      ['revokePermission', 'DELETE', () => `/v1/users/${userId}/permissions/${permissionId}`],
      ['revokeLicence', 'DELETE', () => `/v1/vendors/${vendorId}/licences/${licenceId}`],
      ['revokeKey', 'DELETE', () => `/v1/keys/${keyId}`],
      ['deleteVendor', 'DELETE', () => `/v1/vendors/${vendorId}`],
    ];
    for (const [operation, method, pathname, body] of steps) {
      if (Date.now() >= until) return;
      const writer = instances[step % 2] as Instance;
      const other = instances[(step + 1) % 2] as Instance;
      step += 1;
      const call = await adminCall(`http://127.0.0.1:${writer.ports.admin}`, ctx.adminToken, method, pathname(), body).catch((err: Error) => ({
        status: 0,
        body: err.message,
        ms: 0,
      }));
      const counts = (stats.operations[operation] ??= {});
      counts[call.status] = (counts[call.status] ?? 0) + 1;
      if (call.status >= 500) stats.serverErrors += 1;
      if (call.status >= 200 && call.status < 300 && call.body) {
        const parsed = JSON.parse(call.body) as { id?: string; secret?: string };
        if (operation === 'issueKey') [keyId, secret] = [parsed.id ?? '', parsed.secret ?? ''];
        if (operation === 'grantLicence') licenceId = parsed.id ?? '';
        if (operation === 'grantPermission') permissionId = parsed.id ?? '';
      }
      if (operation === 'grantPermission' && secret) stats.grantEnforcedMs.push(await enforcedWithin(other.ports.vendor, secret, 'granted'));
      if (operation === 'revokeKey' && secret && call.status === 204) stats.revokeEnforcedMs.push(await enforcedWithin(other.ports.vendor, secret, 'revoked'));
      await sleep(Math.min(until - Date.now(), ctx.options.churnEverySeconds * 1000 - call.ms));
    }
  }
}
