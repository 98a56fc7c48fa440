/**
 * The gateway's Prometheus metrics (names are public contract: docs/operations.md "Metrics"), on a
 * registry injected per app so tests and several instances in one process never share state.
 *
 * Reads nothing but the access-config sources it is given, at scrape time; creates the
 * metrics on the given registry. Labels are bounded: `api` is an API id or `unmatched`,
 * `vendor` a configured vendor id or `anonymous`, `reason` a fixed set, `group` a breaker group.
 *
 * Additions to the contract list: `gateway_access_config_age_seconds` (the dashboard's config
 * age), `gateway_sms_sent_total{outcome}` (two-factor SMS) and
 * `gateway_audit_trimmed_before_retention_total` (audit entries lost to the count guard),
 * `gateway_access_config_records{kind}`, `gateway_access_config_inconsistent` and
 * `gateway_access_config_inconsistencies_total` (an access store whose records vanished),
 * `gateway_build_info{version,node}` (always 1: which release and Node each instance runs),
 * `gateway_portal_request_log_dropped_total` (request-log entries dropped while the log could not be written).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Sub-millisecond buckets, so the gateway's own overhead (a few hundred µs) is visible next to the core's time. */
const DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly requestsTotal: Counter<'api' | 'status' | 'vendor'>;
  readonly requestDuration: Histogram<'api'>;
  readonly rateLimitedTotal: Counter<'vendor'>;
  readonly authFailuresTotal: Counter<'reason'>;
  readonly accessDeniedTotal: Counter<'reason'>;
  readonly accessConfigVersion: Gauge;
  readonly accessConfigAge: Gauge;
  readonly accessConfigRecords: Gauge<'kind'>;
  readonly accessConfigInconsistent: Gauge;
  readonly accessConfigInconsistenciesTotal: Counter;
  readonly redisUp: Gauge;
  readonly redisDataLossHold: Gauge;
  readonly redisEvictionHold: Gauge;
  readonly adminAuthFailuresTotal: Counter;
  readonly adminSsoSignInsTotal: Counter<'outcome'>;
  readonly portalSignInsTotal: Counter<'outcome'>;
  readonly adminBreakGlassTotal: Counter<'via'>;
  readonly tlsCertificateExpiry: Gauge<'use'>;
  readonly connectionsDroppedTotal: Counter;
  readonly redisDataLossDetectedTotal: Counter;
  readonly upstreamDuration: Histogram<'group'>;
  readonly circuitState: Gauge<'group'>;
  readonly idempotencyReplaysTotal: Counter;
  readonly smsSentTotal: Counter<'outcome'>;
  readonly smsBudgetExhaustedTotal: Counter<'vendor'>;
  readonly auditTrimmedBeforeRetentionTotal: Counter;
  readonly portalRequestLogDroppedTotal: Counter;
  readonly buildInfo: Gauge<'version' | 'node'>;
  /**
   * Where the access-config gauges read at scrape time. Told once the access cache exists, so the
   * metrics can be made first and handed to everything opened before it.
   */
  readAccessConfigFrom(sources: AccessConfigSources): void;
}

export interface AccessConfigSources {
  /** Seconds since the served access config was loaded; null while none is. */
  readonly ageSeconds: () => number | null;
  /** The served config's records by kind. */
  readonly records: () => Readonly<Record<'vendor' | 'key' | 'user', number>>;
}

interface MetricsOptions {
  /** Node's default process metrics; off in tests that build many registries. */
  readonly defaultMetrics?: boolean;
  /** The release `gateway_build_info` names (package.json's version); the gauge has no sample without it. */
  readonly version?: string;
}

/** `gateway_circuit_state` values (public contract). */
export const CIRCUIT_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * prom-client's gauges that break Prometheus naming (a `_total` suffix on a gauge), which
 * `promtool check metrics` rejects; their per-type gauges (`nodejs_active_handles{type}`, ...)
 * stay and add up to them.
 */
const MISNAMED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The counter with these series at 0 from the start: an alert on their increase then sees the very first one. */
function withSeries<L extends string>(counter: Counter<L>, series: ReadonlyArray<Partial<Record<L, string>>>): Counter<L> {
  for (const labels of series) counter.labels(labels).inc(0);
  return counter;
}

export function createMetrics(registry = new Registry(), options: MetricsOptions = {}): GatewayMetrics {
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    for (const name of MISNAMED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  }
  const registers = [registry];
  let accessConfig: AccessConfigSources | null = null;
  const buildInfo = new Gauge({
    name: 'gateway_build_info',
    help: 'Always 1; its labels name the gateway release (version) and the Node.js version (node) this instance runs',
    labelNames: ['version', 'node'] as const,
    registers,
  });
  if (options.version !== undefined) buildInfo.set({ version: options.version, node: process.versions.node }, 1);
  return {
    registry,
    buildInfo,
    readAccessConfigFrom(sources) {
      accessConfig = sources;
    },
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
    accessConfigAge: new Gauge({
      name: 'gateway_access_config_age_seconds',
      help: 'Seconds since this instance loaded the access config it serves from (a change anywhere reloads it)',
      registers,
      collect() {
        const age = accessConfig?.ageSeconds();
        if (age !== undefined && age !== null) this.set(age);
      },
    }),
    accessConfigRecords: new Gauge({
      name: 'gateway_access_config_records',
      help: 'Records of the access config this instance serves, by kind (vendor, key, user)',
      labelNames: ['kind'] as const,
      registers,
      collect() {
        const counts = accessConfig?.records();
        if (!counts) return;
        for (const [kind, count] of Object.entries(counts)) this.set({ kind }, count);
      },
    }),
    accessConfigInconsistent: new Gauge({
      name: 'gateway_access_config_inconsistent',
      help: "1 while the access store's records do not add up to its version (records expired, evicted or deleted) or a load was refused for losing most of them, else 0",
      registers,
    }),
    accessConfigInconsistenciesTotal: new Counter({
      name: 'gateway_access_config_inconsistencies_total',
      help: 'Times this instance found the access store inconsistent (each finding, until it is mended, counts once)',
      registers,
    }),
    redisUp: new Gauge({
      name: 'gateway_redis_up',
      help: '1 when this instance has a ready Redis connection, else 0 (always 1 without Redis)',
      registers,
    }),
    tlsCertificateExpiry: new Gauge({
      name: 'gateway_tls_certificate_expiry_timestamp_seconds',
      help: 'When each configured certificate expires, in seconds since the epoch, by use (core_client, core_ca, server, admin, redis)',
      labelNames: ['use'] as const,
      registers,
    }),
    adminAuthFailuresTotal: new Counter({
      name: 'gateway_admin_auth_failures_total',
      help: 'Admin API requests with a missing or wrong admin token',
      registers,
    }),
    portalSignInsTotal: new Counter({
      name: 'gateway_portal_sign_ins_total',
      help: 'Vendor portal sign-ins by how they ended: signed_in, invalid_token, throttled, vendor_suspended',
      labelNames: ['outcome'] as const,
      registers,
    }),
    adminSsoSignInsTotal: new Counter({
      name: 'gateway_admin_sso_sign_ins_total',
      help: 'Admin single-sign-on attempts by how they ended: signed_in, or the refusal (no_role, groups_overage, invalid_token, wrong_issuer, state_mismatch, blocked, ...)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    adminBreakGlassTotal: withSeries(
      new Counter({
        name: 'gateway_admin_break_glass_total',
        help: 'Uses of the bootstrap admin token while token sign-in to the web UI is off (admin.tokenSignIn: false), by sign_in or request',
        labelNames: ['via'] as const,
        registers,
      }),
      [{ via: 'sign_in' }, { via: 'request' }],
    ),
    connectionsDroppedTotal: new Counter({
      name: 'gateway_connections_dropped_total',
      help: 'Vendor connections closed at once because server.maxConnections were open',
      registers,
    }),
    redisDataLossHold: new Gauge({
      name: 'gateway_redis_data_loss_hold',
      help: '1 while keyed money movement answers 503 because Redis lost its data (redis.dataLossHoldSeconds), else 0',
      registers,
    }),
    redisEvictionHold: new Gauge({
      name: 'gateway_redis_eviction_hold',
      help: '1 while keyed money movement answers 503 because Redis runs with an evicting maxmemory-policy (it may drop idempotency records), else 0',
      registers,
    }),
    redisDataLossDetectedTotal: new Counter({
      name: 'gateway_redis_data_loss_detected_total',
      help: 'Times this instance found the Redis epoch marker gone or replaced (Redis restarted empty, failed over unsynced, or evicted)',
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'gateway_upstream_duration_seconds',
      help: 'Time the core took to answer, by breaker group: to its response headers on streamed routes, to its whole answer on buffered calls',
      labelNames: ['group'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    circuitState: new Gauge({
      name: 'gateway_circuit_state',
      help: 'State of the circuit breaker to the core, by breaker group: 0 closed, 1 half-open, 2 open',
      labelNames: ['group'] as const,
      registers,
    }),
    idempotencyReplaysTotal: new Counter({
      name: 'gateway_idempotency_replays_total',
      help: 'Money-movement requests answered from the idempotency store instead of the core',
      registers,
    }),
    smsSentTotal: new Counter({
      name: 'gateway_sms_sent_total',
      help: 'Two-factor SMS handed to the provider, by outcome (sent, rejected, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    smsBudgetExhaustedTotal: new Counter({
      name: 'gateway_sms_budget_exhausted_total',
      help: "Two-factor sends refused because the vendor's SMS budget (twoFactor.sendLimitsPerVendor) was spent, by vendor",
      labelNames: ['vendor'] as const,
      registers,
    }),
    auditTrimmedBeforeRetentionTotal: new Counter({
      name: 'gateway_audit_trimmed_before_retention_total',
      help: 'Audit entries younger than audit.retentionDays removed because the log reached audit.maxEntries',
      registers,
    }),
    portalRequestLogDroppedTotal: new Counter({
      name: 'gateway_portal_request_log_dropped_total',
      help: "Requests left out of the vendor portal's request log because its batch was full while the log could not be written (Redis down)",
      registers,
    }),
  };
}
