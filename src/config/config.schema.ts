/**
 * The configuration schema: every key with its type, default and a one-line description.
 *
 * Reads nothing; `config.ts` merges config/default.yaml, config/<NODE_ENV>.yaml and the
 * environment, then validates the result against this schema once at start-up. Every rule
 * across keys is here too, so one run names every problem. The schema is the one source of the
 * configuration: config/default.yaml and the `config` part of the Helm chart's
 * values.schema.json are generated from it (`npm run config:generate`, config-files.ts).
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
import { portalSchema } from '../portal/portal.schema';
import { whenValid } from './when-valid';

const port = z.number().int().min(0).max(65535);

const sections = z
  .object({
    server: serverSchema.prefault({}).describe("The listeners: ports, Node's server limits, HTTPS, and whom to believe about where a call came from"),
    core: coreClientSchema.prefault({}).describe('The connection to the core banking system: URL, sockets, timeouts, header allow-lists, breakers, TLS'),
    sandbox: z
      .object({
        port: port.default(8090).describe('Sandbox core port (env SANDBOX_PORT)'),
        host: z.string().min(1).default('127.0.0.1').describe('Address the in-process sandbox core binds to'),
        seed: z.number().int().default(42).describe('Seed of the sandbox data; the same seed gives the same data'),
        defaultPageSize: z.number().int().min(1).default(20).describe('Page size of paged answers when none is asked'),
        maxPageSize: z.number().int().min(1).default(100).describe('Largest pageSize a SEARCH may ask for'),
        allowWithRealCore: z
          .boolean()
          .default(false)
          .describe('A test rig: with CORE_URL set, still allow the sandbox access file and the outbox SMS provider'),
      })
      .strict()
      .prefault({})
      .describe('The in-process sandbox core, run when core.url is null (demo and tests)'),
    access: z
      .object({
        file: z.string().min(1).default('config/sandbox-access.yaml').describe('Declarative access file seeding the memory store (env ACCESS_FILE)'),
        keyUsageFlushIntervalMs: z
          .number()
          .int()
          .min(100)
          .default(5000)
          .describe("How often each instance saves its keys' last-use times (lastUsedAt) to the store"),
      })
      .strict()
      .prefault({})
      .describe('The access config: vendors, keys, licences, admins'),
    requestContext: requestContextSchema.prefault({}).describe('Request ids'),
    authentication: authenticateSchema.prefault({}).describe('Where vendors send their API key'),
    rateLimit: rateLimitConfigSchema.prefault({}).describe('Requests per vendor per window, and per address on the keyless public files'),
    cors: corsSchema.prefault({}).describe('Browser-based vendor apps (CORS); off unless origins are named'),
    compression: compressionSchema.prefault({}).describe("Compression of JSON and XML answers, as the client's Accept-Encoding allows"),
    body: bodyConfigSchema.prefault({}).describe('Receipts and bank-account operations: body limits and translation tables'),
    xml: xmlConfigSchema.prefault({}).describe('The XML the gateway writes'),
    idempotency: idempotencySchema.prefault({}).describe('Idempotent money movement: a retried posting is answered, never posted twice'),
    twoFactor: twoFactorSchema.prefault({}).describe('The SMS code that adding or switching a bank account needs'),
    sms: smsSchema.prefault({}).describe('The SMS provider that carries two-factor codes'),
    redis: redisSchema.prefault({}).describe('The Redis the instances share (access config, rate limits, idempotency, codes); none: memory, one instance'),
    admin: adminSchema.prefault({}).describe('The admin API and web UI'),
    audit: auditSchema.prefault({}).describe('The admin audit log (a Redis Stream with Redis)'),
    shutdown: shutdownSchema.prefault({}).describe('On SIGTERM/SIGINT readiness turns 503 at once, then these'),
    tracing: tracingSchema.prefault({}).describe('OpenTelemetry spans by OTLP/HTTP; off (no cost) without an endpoint'),
    portal: portalSchema.prefault({}).describe("The vendor portal at /portal/ on the vendor port: vendors' developers see their keys, usage and requests"),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('Log level (env LOG_LEVEL)'),
      })
      .strict()
      .prefault({})
      .describe('The JSON log on stdout'),
  })
  .strict();

// Rules across sections: each names every key it involves.
export const configSchema = sections
  .superRefine(
    (config, ctx) => {
      if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
        ctx.addIssue({ code: 'custom', path: ['server', 'headersTimeoutMs'], message: 'must not exceed server.requestTimeoutMs (Node refuses it)' });
      }
    },
    whenValid('server.headersTimeoutMs', 'server.requestTimeoutMs'),
  )
  // A request still waiting for the core must never be declared outcome_unknown under its feet.
  .superRefine(
    (config, ctx) => {
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
    },
    whenValid('idempotency.inFlightTimeoutMs', 'core.timeoutMs', 'core.breakers'),
  )
  // A hold shorter than the records it stands in for would let a retry of a forgotten one post again.
  .superRefine(
    (config, ctx) => {
      if (config.redis.dataLossHoldSeconds < config.idempotency.retentionSeconds) {
        ctx.addIssue({
          code: 'custom',
          path: ['redis', 'dataLossHoldSeconds'],
          message: `must be at least idempotency.retentionSeconds (${config.idempotency.retentionSeconds}): a shorter hold after a Redis data loss lets a retry post again`,
        });
      }
    },
    whenValid('redis.dataLossHoldSeconds', 'idempotency.retentionSeconds'),
  )
  .superRefine(
    (config, ctx) => {
      if (config.twoFactor.pepper === null && redisConfigured(config.redis)) {
        ctx.addIssue({
          code: 'custom',
          path: ['twoFactor', 'pepper'],
          message: 'is required with Redis (redis.url, redis.sentinels or redis.nodes): every instance must hash codes alike',
        });
      }
    },
    whenValid('twoFactor.pepper', 'redis.url', 'redis.sentinels', 'redis.nodes'),
  )
  // An open admin API is a sandbox's convenience (a token generated and printed at start), never a bank's.
  .superRefine(
    (config, ctx) => {
      if (config.admin.token === null && (redisConfigured(config.redis) || config.core.url !== null)) {
        ctx.addIssue({
          code: 'custom',
          path: ['admin', 'token'],
          message: 'admin.token (ADMIN_TOKEN) is required with Redis (REDIS_URL) or a real core (CORE_URL)',
        });
      }
    },
    whenValid('admin.token', 'redis.url', 'redis.sentinels', 'redis.nodes', 'core.url'),
  )
  // Codes kept at the admin API instead of reaching phones: a sandbox's convenience, never a bank's.
  .superRefine(
    (config, ctx) => {
      if (config.core.url !== null && config.sms.provider !== 'http' && !config.sandbox.allowWithRealCore) {
        ctx.addIssue({
          code: 'custom',
          path: ['sms', 'provider'],
          message: 'must be http with a real core (core.url / CORE_URL); sandbox.allowWithRealCore allows the outbox on a test rig',
        });
      }
    },
    whenValid('core.url', 'sms.provider', 'sandbox.allowWithRealCore'),
  )
  .superRefine(
    (config, ctx) => {
      const credentials = new Set([config.authentication.tokenHeader, config.authentication.receiptTokenHeader].map((name) => name.toLowerCase()));
      for (const [index, name] of config.core.passHeaders.entries()) {
        if (credentials.has(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['core', 'passHeaders', index],
            message: `${name} is a vendor credential (authentication.tokenHeader or receiptTokenHeader) and never reaches the core`,
          });
        }
      }
    },
    whenValid('authentication.tokenHeader', 'authentication.receiptTokenHeader', 'core.passHeaders'),
  );

export type GatewayConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
