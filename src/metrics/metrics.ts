/**
 * The gateway's Prometheus metrics (names are public contract, DESIGN.md "Status port"), on a
 * registry injected per app so tests and several instances in one process never share state.
 *
 * Reads nothing; creates the metrics on the given registry. Labels are bounded: `api` is an
 * API id or `unmatched`, `vendor` a configured vendor id or `anonymous`, `reason` a fixed set.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Sub-millisecond buckets, so the gateway's own overhead is visible next to the core's time. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly requestsTotal: Counter<'api' | 'status' | 'vendor'>;
  readonly requestDuration: Histogram<'api'>;
  readonly rateLimitedTotal: Counter<'vendor'>;
  readonly authFailuresTotal: Counter<'reason'>;
  readonly accessDeniedTotal: Counter<'reason'>;
  readonly accessConfigVersion: Gauge;
  readonly redisUp: Gauge;
}

export function createMetrics(registry = new Registry(), options: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    requestsTotal: new Counter({
      name: 'gateway_requests_total',
      help: 'Vendor requests answered, by API id, HTTP status and vendor',
      labelNames: ['api', 'status', 'vendor'] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from request arrival to the end of the response, by API id',
      labelNames: ['api'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    rateLimitedTotal: new Counter({
      name: 'gateway_rate_limited_total',
      help: 'Requests refused with 429 by the per-key rate limit, by vendor',
      labelNames: ['vendor'] as const,
      registers,
    }),
    authFailuresTotal: new Counter({
      name: 'gateway_auth_failures_total',
      help: 'Requests refused with 401, by reason (missing, malformed, unknown, revoked, expired)',
      labelNames: ['reason'] as const,
      registers,
    }),
    accessDeniedTotal: new Counter({
      name: 'gateway_access_denied_total',
      help: 'Authenticated requests refused with 403, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    accessConfigVersion: new Gauge({
      name: 'gateway_access_config_version',
      help: 'Version of the access config this instance serves from',
      registers,
    }),
    redisUp: new Gauge({
      name: 'gateway_redis_up',
      help: '1 when this instance has a ready Redis connection, else 0 (always 1 without Redis)',
      registers,
    }),
  };
}
