/**
 * The configuration schema: every key with its type, default and a one-line description.
 *
 * Reads nothing; `config.ts` merges config/default.yaml, config/<NODE_ENV>.yaml and the
 * environment, then validates the result against this schema once at start-up.
 */
import { isIP } from 'node:net';
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

/** `10.0.0.0/8`, `::1`, `fd00::/8`: what proxy-addr compiles. */
function isAddressOrCidr(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  if (rest.length > 0) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  return bits >= 0 && bits <= (version === 4 ? 32 : 128);
}
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
        trustedProxies: z
          .array(z.string().refine(isAddressOrCidr, 'not an IP address or CIDR range'))
          .default([])
          .describe('Addresses or CIDR ranges of the load balancers whose X-Forwarded-For/Proto/Host are believed; none by default'),
        publicUrl: z
          .url({ protocol: /^https?$/ })
          .refine((url) => new URL(url).pathname === '/' && !url.includes('?') && !url.includes('#'), 'must be an origin only (scheme, host, port)')
          .nullable()
          .default(null)
          .describe("The vendors' base URL (https://api.bank.example), used in paging links; null: trusted forwarded headers, else the listener"),
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
  .strict()
  // Rules across sections: each names every key it involves.
  .superRefine((config, ctx) => {
    if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
      ctx.addIssue({ code: 'custom', path: ['server', 'headersTimeoutMs'], message: 'must not exceed server.requestTimeoutMs (Node refuses it)' });
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
