/**
 * The configuration schema: every key with its type, default and a one-line description.
 *
 * Reads nothing; `config.ts` merges config/default.yaml, config/<NODE_ENV>.yaml and the
 * environment, then validates the result against this schema once at start-up.
 */
import { z } from 'zod';
import { redisSchema } from '../access/redis.schema';
import { coreClientSchema } from '../core-client/core-client.schema';
import { authenticateSchema } from '../policies/authenticate/authenticate.schema';
import { bodyConfigSchema } from '../policies/body/body.schema';
import { idempotencySchema } from '../policies/idempotency/idempotency.schema';
import { twoFactorSchema } from '../policies/two-factor/two-factor.schema';
import { smsSchema } from '../sms/sms.schema';
import { rateLimitConfigSchema } from '../policies/rate-limit/rate-limit.schema';
import { requestContextSchema } from '../policies/request-context/request-context.schema';
import { shutdownSchema } from '../status/shutdown.schema';

const port = z.number().int().min(0).max(65535);
const ms = z.number().int().min(1);

export const configSchema = z
  .object({
    server: z
      .object({
        host: z.string().default('0.0.0.0').describe('Address every listener binds to'),
        port: port.default(8080).describe('Vendor API port (env PORT)'),
        adminPort: port.default(8081).describe('Admin API and UI port (env ADMIN_PORT)'),
        statusPort: port.default(8082).describe('Metrics and health port (env STATUS_PORT)'),
        keepAliveTimeoutMs: ms
          .default(65_000)
          .describe('Idle keep-alive time; above the 60 s idle timeout of common load balancers'),
        headersTimeoutMs: ms.default(10_000).describe('Time a client has to send a request\'s headers; drops slow-header clients'),
        requestTimeoutMs: ms.default(30_000).describe('Time a client has to send a whole request'),
        maxHeaderSize: z.number().int().min(1024).default(16_384).describe('Largest request header block in bytes'),
      })
      .strict()
      .prefault({}),
    core: coreClientSchema.prefault({}),
    sandbox: z
      .object({
        port: port.default(8090).describe('Sandbox core port (env SANDBOX_PORT)'),
        host: z.string().default('127.0.0.1').describe('Address the in-process sandbox core binds to'),
        seed: z.number().int().default(42).describe('Seed of the sandbox data; the same seed gives the same data'),
        defaultPageSize: z.number().int().min(1).default(20).describe('Page size of paged answers when none is asked'),
        maxPageSize: z.number().int().min(1).default(100).describe('Largest pageSize a SEARCH may ask for'),
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
    body: bodyConfigSchema.prefault({}),
    idempotency: idempotencySchema.prefault({}),
    twoFactor: twoFactorSchema.prefault({}),
    sms: smsSchema.prefault({}),
    redis: redisSchema.prefault({}),
    admin: z
      .object({
        token: z
          .string()
          .min(16)
          .nullable()
          .default(null)
          .describe('Bootstrap admin bearer token (env ADMIN_TOKEN); generated and printed when null in sandbox mode'),
      })
      .strict()
      .prefault({}),
    shutdown: shutdownSchema.prefault({}),
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
  .strict();

export type GatewayConfig = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
