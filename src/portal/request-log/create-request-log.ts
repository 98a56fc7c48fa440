/**
 * Builds the request log from `portal.requestLog`: in Redis when the gateway has one (every
 * instance writes, any reads), else in this process's memory; null when it is off.
 *
 * Reads the config; opens nothing (the Redis store uses the shared client); the gateway's log
 * registers its stop on the gateway's lifecycle.
 */
import type { GatewayConfig } from '../../config/config.schema';
import type { DisposalStack } from '../../lifecycle/disposal-stack';
import type { Logger } from '../../logging/logger';
import type { GatewayMetrics } from '../../metrics/metrics';
import type { RedisClient } from '../../redis/redis-client';
import type { RequestLogConfig } from '../portal.schema';
import { BatchedRequestLog } from './batched-request-log';
import type { LogBounds } from './log-store';
import { MemoryLogStore } from './memory-log-store';
import { RedisLogStore } from './redis-log-store';
import type { RequestLog } from './request-log';

interface RequestLogDeps {
  readonly redis: RedisClient | null;
  readonly keyPrefix: string;
  readonly logger: Logger;
  /** Entries dropped because the batch was full (gateway_portal_request_log_dropped_total). */
  readonly onDropped?: (count: number) => void;
}

export function createRequestLog(config: RequestLogConfig, deps: RequestLogDeps): RequestLog | null {
  if (!config.enabled) return null;
  const bounds: LogBounds = {
    retentionMs: config.retentionHours * 3_600_000,
    maxEntriesPerVendor: config.maxEntriesPerVendor,
    maxEntriesTotal: config.maxEntriesTotal,
  };
  const store = deps.redis ? new RedisLogStore(deps.redis, deps.keyPrefix, bounds) : new MemoryLogStore(bounds);
  return new BatchedRequestLog(store, {
    flushIntervalMs: config.flushIntervalMs,
    logger: deps.logger,
    ...(deps.onDropped ? { onDropped: deps.onDropped } : {}),
  });
}

/** The gateway's request log: its drops counted, its stop on the lifecycle (registered here: after the drain, so its last batch is written). */
export function openRequestLog(
  config: Readonly<GatewayConfig>,
  redis: RedisClient | null,
  lifecycle: DisposalStack,
  metrics: GatewayMetrics,
  logger: Logger,
): RequestLog | null {
  const log = createRequestLog(config.portal.requestLog, {
    redis,
    keyPrefix: config.redis.keyPrefix,
    logger,
    onDropped: (count) => metrics.portalRequestLogDroppedTotal.inc(count),
  });
  return lifecycle.adopt(log, (opened) => opened?.stop());
}
