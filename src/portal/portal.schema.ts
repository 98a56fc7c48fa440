/**
 * The vendor portal's config (`portal`): whether `/portal/` is served on the vendor port, how long
 * a portal token and a portal session last, how often a portal user may rotate keys, and the
 * request log's bounds. Reads nothing; the schema is the one description of each key.
 */
import { z } from 'zod';

export const requestLogSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe("Keep each vendor request's metadata (never a body, header value or customer identifier) for the portal's Requests page"),
    retentionHours: z.number().int().min(1).max(720).default(72).describe('How long a request stays in the log'),
    maxEntriesPerVendor: z.number().int().min(100).max(10_000_000).default(100_000).describe('The most requests kept per vendor; the oldest go first'),
    maxEntriesTotal: z
      .number()
      .int()
      .min(1000)
      .max(100_000_000)
      .default(500_000)
      .describe(
        'The most requests kept across all vendors (the biggest vendors lose their oldest first), so the log can never fill Redis: 24 MB of Redis memory per 100,000 requests (46 MB if vendors send 128-character X-Request-Ids), 120 MB at the default',
      ),
    flushIntervalMs: z
      .number()
      .int()
      .min(10)
      .max(60_000)
      .default(250)
      .describe('How often an instance writes its batch of logged requests (off the request path)'),
  })
  .strict();

export const portalSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Serve the vendor portal at /portal/ on the vendor port (a browser cannot reach it when server.tls.clientCertificate is required)'),
    tokenTtlDays: z.number().int().min(1).max(365).default(90).describe('A portal token works this long after it is issued; an admin issues a new one'),
    sessionIdleMinutes: z.number().int().min(1).max(1440).default(30).describe('The portal signs a browser out after this long without a request'),
    sessionMaxHours: z.number().int().min(1).max(720).default(12).describe('The portal signs a browser out this long after it signed in, however busy'),
    rotationsPerHour: z.number().int().min(1).max(1000).default(10).describe('Key rotations one portal user may make per hour'),
    requestLog: requestLogSchema.prefault({}).describe("The log behind the portal's Requests page"),
  })
  .strict();

export type RequestLogConfig = z.infer<typeof requestLogSchema>;
