/** Config of the admin API (config key `admin`). */
import { z } from 'zod';
import { listenerTlsSchema } from '../server/server.schema';

export const adminSchema = z
  .object({
    token: z
      .string()
      .min(16)
      .nullable()
      .default(null)
      .meta({ secret: true })
      .describe('Bootstrap admin bearer token (env ADMIN_TOKEN); generated and printed when null in sandbox mode'),
    authFailuresBeforeBackoff: z
      .number()
      .int()
      .min(1)
      .default(5)
      .describe('Wrong admin tokens in a row one address may send before it must wait (1 s, then doubling)'),
    maxBackoffSeconds: z.number().int().min(1).default(900).describe('Longest wait an address is given after wrong admin tokens'),
    approvals: z
      .enum(['off', 'required'])
      .default('off')
      .describe('Four eyes: required files every write that grants access as a pending change another approver applies (banks set required)'),
    sessionIdleMinutes: z.number().int().min(1).max(1440).default(30).describe('The admin web UI signs a browser out after this long without a request'),
    sessionMaxHours: z
      .number()
      .int()
      .min(1)
      .max(720)
      .default(12)
      .describe('The admin web UI signs a browser out this long after it signed in, however busy; signing out ends it on every instance at once'),
    changeTtlHours: z.number().int().min(1).max(720).default(72).describe('How long a pending change waits for approval before it expires'),
    maxDocumentBytes: z
      .number()
      .int()
      .min(1024)
      .default(64 * 1024 * 1024)
      .describe('Largest access document PUT /v1/access (gatewayctl apply) takes, in bytes; 64 MiB holds about 150,000 keys'),
    prometheusUrl: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe(
        "The SREs' Prometheus (its base address, e.g. http://prometheus:9090) that scrapes gateway_requests_total: GET /v1/traffic and the UI's traffic charts query it; null: the gateway's own counts (per minute, through Redis when used, kept 8 days)",
      ),
    tls: listenerTlsSchema.prefault({}).describe('HTTPS on the admin port'),
  })
  .strict();
