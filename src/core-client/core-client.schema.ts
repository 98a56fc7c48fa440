/** Config of the connection to the core (config key `core`), its breakers and allow-lists included. */
import { z } from 'zod';
import { whenValid } from '../config/when-valid';
import { breakersSchema } from './breakers.schema';

/** An HTTP field name (RFC 9110 token), kept in lower case. */
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not an HTTP header name')
  .transform((name) => name.toLowerCase());

/**
 * Names no allow-list may carry: framing and connection management belong to the gateway on
 * each side, and the identity and forwarding headers to the core are the gateway's own words.
 */
const GATEWAY_OWNED_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'content-length',
  'transfer-encoding',
  'host',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'x-request-id',
  'traceparent',
  'x-vendor-id',
  'x-vendor-user',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
  // Passed back only as a path of the gateway (core-headers.ts vendorLocation).
  'location',
]);

const allowList = (what: string) =>
  z.array(headerName).superRefine((names, ctx) => {
    for (const [index, name] of names.entries()) {
      if (GATEWAY_OWNED_HEADERS.has(name))
        ctx.addIssue({ code: 'custom', path: [index], message: `${name} is set by the gateway itself and cannot be ${what}` });
    }
  });

/**
 * The core's response headers a vendor sees unless configured otherwise. Not Cache-Control:
 * answers carry customer data, and the gateway itself says `no-store` on every one.
 */
const DEFAULT_RESPONSE_HEADERS = ['content-encoding', 'content-language', 'content-type', 'etag', 'expires', 'last-modified', 'retry-after'];

const pemPath = (what: string) => z.string().min(1).nullable().default(null).describe(what);

/** TLS to an https core: whom to trust, what to present, which name to check. */
const coreTlsSchema = z
  .object({
    caFile: pemPath('PEM of the CAs trusted for the core, instead of the public roots; null: the public roots'),
    certFile: pemPath("PEM of the gateway's client certificate for mutual TLS (with keyFile); re-read when it changes"),
    keyFile: pemPath('PEM of the private key of certFile'),
    serverName: z.string().min(1).nullable().default(null).describe("Name sent in SNI and checked in the core's certificate; null: the host of core.url"),
    minVersion: z.enum(['TLSv1.2', 'TLSv1.3']).default('TLSv1.2').describe('Lowest TLS version offered to the core'),
  })
  .strict()
  .superRefine(
    (tls, ctx) => {
      if ((tls.certFile === null) !== (tls.keyFile === null)) {
        ctx.addIssue({ code: 'custom', path: [tls.certFile === null ? 'certFile' : 'keyFile'], message: 'certFile and keyFile go together' });
      }
    },
    whenValid('certFile', 'keyFile'),
  );

export const coreClientSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe('Base URL of the real core (env CORE_URL); null runs the in-process sandbox core'),
    maxSockets: z.number().int().min(1).default(256).describe('Keep-alive sockets to the core per gateway instance'),
    maxFreeSockets: z.number().int().min(0).default(64).describe('Idle keep-alive sockets kept open to the core'),
    idleSocketTimeoutMs: z
      .number()
      .int()
      .min(1)
      .default(4000)
      .describe(
        "How long an idle keep-alive socket to the core stays open; set it below the core's own keep-alive timeout (4000 for a core that closes idle sockets at 5 s), so the gateway, never the core, closes it. A shorter Keep-Alive: timeout=N from the core wins, less idleSocketMarginMs",
      ),
    idleSocketMarginMs: z
      .number()
      .int()
      .min(0)
      .default(1000)
      .describe(
        "Safety margin before the core's announced Keep-Alive timeout; and a POST, PUT, PATCH or DELETE takes only a socket idle for less than its lifetime minus this margin, never one the core may be closing",
      ),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe("Longest wait for the core's response headers, for every breaker group that sets no timeoutMs of its own"),
    maxStreamedBodyBytes: z
      .number()
      .int()
      .min(1)
      .default(1_048_576)
      .describe('Largest request body on routes whose body the gateway does not parse (413 above); read whole before the core is called'),
    maxBufferedResponseBytes: z
      .number()
      .int()
      .min(1024)
      .default(1_048_576)
      .describe('Largest answer the core may give on buffered routes (receipts, bank-account writes); 502 past it'),
    passHeaders: allowList('passed through')
      .default([])
      .describe(
        "Vendor request headers passed to the core besides the gateway's own (content type and length, accept, request id, trace, identity, forwarding)",
      ),
    passResponseHeaders: allowList('passed back')
      .default(DEFAULT_RESPONSE_HEADERS)
      .describe('Response headers of the core that reach the vendor on streamed routes; every other is dropped'),
    breakers: breakersSchema.prefault({}).describe('Circuit breaker per breaker group'),
    tls: coreTlsSchema.prefault({}).describe('TLS to an https core (CORE_URL https://…): CA, client certificate, name, minimum version'),
  })
  .strict()
  .superRefine(
    (core, ctx) => {
      // Else no POST, PUT, PATCH or DELETE would ever reuse a socket.
      if (core.idleSocketMarginMs >= core.idleSocketTimeoutMs) {
        ctx.addIssue({ code: 'custom', path: ['idleSocketMarginMs'], message: 'must be below idleSocketTimeoutMs' });
      }
    },
    whenValid('idleSocketTimeoutMs', 'idleSocketMarginMs'),
  );

export type CoreClientConfig = z.infer<typeof coreClientSchema>;
