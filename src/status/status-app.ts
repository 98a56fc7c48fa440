/**
 * The status port's app: liveness and readiness for the orchestrator, and metrics.
 *
 * `/health/live` says only that the event loop turns (a restart cannot fix anything else);
 * `/health/ready` is 503 until the access config is loaded and the vendor and admin listeners
 * are open, and from the moment shutdown begins, so a load balancer stops sending before the listeners close; a 503 says why
 * (`reason`). Its body reports the access config (loaded, version, age, and any problem with
 * the store's records), Redis, and each circuit breaker's state. An instance that found the
 * store inconsistent at start holds no config, so it is not ready and says so; one that still
 * serves a good copy stays ready and reports the problem (its alert pages). Neither Redis nor an
 * open breaker makes the instance unready either: every instance shares the same core and Redis,
 * so taking them all out of the load balancer would only turn 503s into refused connections.
 *
 * `/metrics` is the Prometheus exposition; it lives here, not on the vendor port, so vendors
 * never see it.
 *
 * Reads the access cache status, Redis health, the breakers' states, the start-up and shutdown
 * flags and the metrics registry; sets nothing.
 */
import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { AccessCacheStatus } from '../access/cache';
import type { BreakerGroup } from '../catalogue/api-catalogue';
import type { BreakerState } from '../core-client/breakers';

interface StatusAppDeps {
  readonly accessStatus: () => AccessCacheStatus;
  /**
   * Null in memory mode. Redis down does not make the instance unready: it serves its last good
   * copy. Nor does a hold of keyed money movement (after a data loss, or under an evicting
   * maxmemory-policy): it is reported here and every other route goes on.
   */
  readonly redisStatus: (() => { up: boolean; downSeconds: number; dataLossHoldSeconds?: number; evictingPolicy?: string | null }) | null;
  readonly breakerStates: () => Record<BreakerGroup, BreakerState>;
  /** True until the vendor and admin listeners are open (the status port opens before them). */
  readonly isStarting?: () => boolean;
  readonly isShuttingDown: () => boolean;
  readonly mode: { readonly accessStore: 'memory' | 'redis'; readonly core: 'sandbox' | 'remote' };
  readonly registry: Registry;
}

export function createStatusApp(deps: StatusAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/health/live', function liveness(_req, res) {
    res.json({ status: 'ok' });
  });
  app.get('/health/ready', function readiness(_req, res) {
    const access = deps.accessStatus();
    const shuttingDown = deps.isShuttingDown();
    const starting = deps.isStarting?.() ?? false;
    const ready = access.loaded && !shuttingDown && !starting;
    const reason = shuttingDown
      ? 'shutting down'
      : starting
        ? 'starting: the listeners are not open yet'
        : access.loaded
          ? null
          : access.problem !== null
            ? `the access config in Redis is inconsistent: ${access.problem}`
            : 'the access config is not loaded yet';
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      ...(reason === null ? {} : { reason }),
      shuttingDown,
      mode: deps.mode,
      accessConfig: access,
      ...(deps.redisStatus ? { redis: deps.redisStatus() } : {}),
      breakers: deps.breakerStates(),
    });
  });
  app.get('/metrics', async function metrics(_req, res) {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });
  return app;
}
