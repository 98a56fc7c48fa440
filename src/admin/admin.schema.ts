/** Config of the admin API (config key `admin`). */
import { z } from 'zod';
import { listenerTlsSchema } from '../server/server.schema';

/** An http: issuer is for tests on this machine only; a bank's provider speaks HTTPS. */
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;
const providerUrl = z.url({ protocol: /^https?$/ }).refine((text) => {
  const url = new URL(text);
  return url.protocol === 'https:' || LOOPBACK_HOST.test(url.hostname);
}, 'an https: address (http: only on a loopback address, for tests)');
const groupList = (role: string) =>
  z.array(z.string().min(1).max(256)).max(100).default([]).describe(`Provider groups (names or ids) that make an admin ${role}`);

export const oidcSchema = z
  .object({
    issuer: providerUrl
      .nullable()
      .default(null)
      .describe("The bank's OpenID provider (its issuer, found through OpenID Connect discovery); null: no single sign-on"),
    clientId: z.string().min(1).nullable().default(null).describe('The client id the provider registered for the gateway'),
    clientSecret: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .meta({ secret: true })
      .describe('The client secret (env ADMIN_OIDC_CLIENT_SECRET, from a Secret); null: a public client, PKCE only'),
    redirectUrl: providerUrl
      .nullable()
      .default(null)
      .describe("Where the provider sends the browser back: the admin port's /ui/sso/callback as the browser reaches it"),
    rolesClaim: z.string().min(1).default('groups').describe("The ID token claim listing the admin's groups or app roles (Entra ID with many groups: roles)"),
    roles: z
      .object({ owner: groupList('owner'), approver: groupList('approver'), operator: groupList('operator'), viewer: groupList('viewer') })
      .strict()
      .prefault({})
      .describe(
        'Role to the provider group names or ids that give it; an admin gets the first of owner, approver, operator, viewer that matches, none: no entry',
      ),
    roleRefreshMinutes: z
      .number()
      .positive()
      .max(1440)
      .default(15)
      .describe('A single-sign-on session ends this long after signing in, so a role taken away at the provider takes effect within it'),
    scopes: z.string().min(1).default('openid profile email').describe('Scopes asked of the provider (openid always)'),
  })
  .strict()
  .superRefine((oidc, ctx) => {
    if (oidc.issuer === null) return;
    for (const key of ['clientId', 'redirectUrl'] as const) {
      if (oidc[key] === null) ctx.addIssue({ code: 'custom', path: [key], message: `required when admin.oidc.issuer is set` });
    }
    if (Object.values(oidc.roles).every((groups) => groups.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['roles'], message: 'map at least one role to a group when admin.oidc.issuer is set' });
    }
  });

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
    tokenSignIn: z
      .boolean()
      .default(true)
      .describe('Named admins may sign in to the web UI with their token; false: only the bootstrap token (break-glass, each use logged and counted)'),
    oidc: oidcSchema.prefault({}).describe("Single sign-on to the admin web UI through the bank's OpenID provider"),
  })
  .strict();
