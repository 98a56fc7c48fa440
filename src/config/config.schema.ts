/**
 * The configuration schema: every key with its type, default and a one-line description.
 *
 * Reads nothing; `config.ts` merges config/default.yaml, config/<NODE_ENV>.yaml and the
 * environment, then validates the result against this schema once at start-up.
 */
import { z } from 'zod';
import { adminSchema } from '../admin/admin.schema';
import { auditSchema } from '../access/audit-log.schema';
import { redisConfigured, redisSchema } from '../redis/redis.schema';
import { coreClientSchema } from '../core-client/core-client.schema';
import { authenticateSchema } from '../policies/authenticate/authenticate.schema';
import { bodyConfigSchema } from '../policies/body/body.schema';
import { corsSchema } from '../policies/cors/cors.schema';
import { compressionSchema } from '../policies/compression/compression.schema';
import { idempotencySchema } from '../policies/idempotency/idempotency.schema';
import { twoFactorSchema } from '../policies/two-factor/two-factor.schema';
import { smsSchema } from '../sms/sms.schema';
import { rateLimitConfigSchema } from '../policies/rate-limit/rate-limit.schema';
import { requestContextSchema } from '../policies/request-context/request-context.schema';
import { serverSchema } from '../server/server.schema';
import { shutdownSchema } from '../server/shutdown.schema';
import { tracingSchema } from '../tracing/tracing.schema';
import { xmlConfigSchema } from '../xml/xml.schema';

const port = z.number().int().min(0).max(65535);

export const configSchema = z
  .object({
    server: serverSchema.prefault({}),
    core: coreClientSchema.prefault({}),
    sandbox: z
      .object({
        port: port.default(8090).describe('Sandbox core port (env SANDBOX_PORT)'),
        host: z.string().default('127.0.0.1').describe('Address the in-process sandbox core binds to'),
        seed: z.number().int().default(42).describe('Seed of the sandbox data; the same seed gives the same data'),
        defaultPageSize: z.number().int().min(1).default(20).describe('Page size of paged answers when none is asked'),
        maxPageSize: z.number().int().min(1).default(100).describe('Largest pageSize a SEARCH may ask for'),
        allowWithRealCore: z
          .boolean()
          .default(false)
          .describe('A test rig: with CORE_URL set, still allow the sandbox access file and the outbox SMS provider'),
      })
      .strict()
      .prefault({}),
    access: z
      .object({
        file: z
          .string()
          .default('config/sandbox-access.yaml')
          .describe('Declarative access file seeding the memory store (env ACCESS_FILE)'),
        keyUsageFlushIntervalMs: z
          .number()
          .int()
          .min(100)
          .default(5000)
          .describe("How often each instance saves its keys' last-use times (lastUsedAt) to the store"),
      })
      .strict()
      .prefault({}),
    requestContext: requestContextSchema.prefault({}),
    authentication: authenticateSchema.prefault({}),
    rateLimit: rateLimitConfigSchema.prefault({}),
    cors: corsSchema.prefault({}),
    compression: compressionSchema.prefault({}),
    body: bodyConfigSchema.prefault({}),
    xml: xmlConfigSchema.prefault({}),
    idempotency: idempotencySchema.prefault({}),
    twoFactor: twoFactorSchema.prefault({}),
    sms: smsSchema.prefault({}),
    redis: redisSchema.prefault({}),
    admin: adminSchema.prefault({}),
    audit: auditSchema.prefault({}),
    shutdown: shutdownSchema.prefault({}),
    tracing: tracingSchema.prefault({}),
    log: z
      .object({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info')
          .describe('Log level (env LOG_LEVEL)'),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  // Rules across sections: each names every key it involves.
  .superRefine((config, ctx) => {
    if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
      ctx.addIssue({ code: 'custom', path: ['server', 'headersTimeoutMs'], message: 'must not exceed server.requestTimeoutMs (Node refuses it)' });
    }
    // A request still waiting for the core must never be declared outcome_unknown under its feet.
    for (const group of ['receipts', 'bankaccounts'] as const) {
      const coreTimeoutMs = config.core.breakers[group].timeoutMs ?? config.core.timeoutMs;
      if (config.idempotency.inFlightTimeoutMs <= coreTimeoutMs) {
        ctx.addIssue({
          code: 'custom',
          path: ['idempotency', 'inFlightTimeoutMs'],
          message: `must be longer than the ${group} core timeout (core.breakers.${group}.timeoutMs, else core.timeoutMs: ${coreTimeoutMs} ms)`,
        });
      }
    }
    // A hold shorter than the records it stands in for would let a retry of a forgotten one post again.
    if (config.redis.dataLossHoldSeconds < config.idempotency.retentionSeconds) {
      ctx.addIssue({
        code: 'custom',
        path: ['redis', 'dataLossHoldSeconds'],
        message: `must be at least idempotency.retentionSeconds (${config.idempotency.retentionSeconds}): a shorter hold after a Redis data loss lets a retry post again`,
      });
    }
    if (config.twoFactor.pepper === null && redisConfigured(config.redis)) {
      ctx.addIssue({ code: 'custom', path: ['twoFactor', 'pepper'], message: 'is required with Redis (redis.url, redis.sentinels or redis.nodes): every instance must hash codes alike' });
    }
    // Codes kept at the admin API instead of reaching phones: a sandbox's convenience, never a bank's.
    if (config.core.url !== null && config.sms.provider !== 'http' && !config.sandbox.allowWithRealCore) {
      ctx.addIssue({ code: 'custom', path: ['sms', 'provider'], message: 'must be http with a real core (core.url / CORE_URL); sandbox.allowWithRealCore allows the outbox on a test rig' });
    }
    const credentials = new Set([config.authentication.tokenHeader, config.authentication.receiptTokenHeader].map((name) => name.toLowerCase()));
    for (const [index, name] of config.core.passHeaders.entries()) {
      if (credentials.has(name)) {
        ctx.addIssue({ code: 'custom', path: ['core', 'passHeaders', index], message: `${name} is a vendor credential (authentication.tokenHeader or receiptTokenHeader) and never reaches the core` });
      }
    }
  });

export type GatewayConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
