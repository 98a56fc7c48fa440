/**
 * Config of the SMS provider that carries two-factor codes (config key `sms`).
 *
 * Reads nothing; exports the schema and its type. `outbox` keeps messages in memory for the
 * admin API (`GET /v1/sandbox/sms`, sandbox mode); `http` POSTs each message as JSON to a
 * provider. The bearer token is a secret: set it through the environment
 * (`GATEWAY__sms__http__bearerToken`), never in a committed file; it is never logged.
 */
import { z } from 'zod';
import { whenValid } from '../config/when-valid';

const ms = z.number().int().min(1);

export const smsHttpSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe('Provider endpoint that receives POST {"to": "+447…", "text": "…", "from"?: sender} (required with provider http)'),
    bearerToken: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .meta({ secret: true })
      .describe('Sent as "Authorization: Bearer <token>" (env GATEWAY__sms__http__bearerToken; required with provider http; never logged)'),
    sender: z.string().min(1).max(11).nullable().default(null).describe('Sender id sent as "from" (at most 11 characters); null leaves it to the provider'),
    timeoutMs: ms.default(3000).describe('Longest wait for one attempt, answer body included'),
    maxRetries: z.number().int().min(0).max(5).default(2).describe('Retries after a 5xx, a timeout or a network error; a 4xx is never retried'),
    retryBackoffMs: z.number().int().min(0).default(200).describe('Wait before the first retry; it doubles for each further one'),
  })
  .strict();

export const smsSchema = z
  .object({
    provider: z
      .enum(['outbox', 'http'])
      .default('outbox')
      .describe('outbox: messages kept in memory and listed at the admin API (sandbox); http: POSTed to sms.http.url'),
    outboxCapacity: z.number().int().min(1).max(10_000).default(100).describe('Messages the outbox keeps; the oldest are dropped first'),
    http: smsHttpSchema.prefault({}).describe('The http provider (sms.provider http)'),
  })
  .strict()
  .superRefine(
    (sms, ctx) => {
      if (sms.provider !== 'http') return;
      if (sms.http.url === null) ctx.addIssue({ code: 'custom', path: ['http', 'url'], message: 'required when sms.provider is http' });
      if (sms.http.bearerToken === null) ctx.addIssue({ code: 'custom', path: ['http', 'bearerToken'], message: 'required when sms.provider is http' });
    },
    whenValid('provider', 'http.url', 'http.bearerToken'),
  );

export type SmsConfig = z.infer<typeof smsSchema>;
export type SmsHttpConfig = z.infer<typeof smsHttpSchema>;
