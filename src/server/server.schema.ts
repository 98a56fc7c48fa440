/** Config of the listeners (config key `server`): ports, Node's server limits, and whom to believe about where a call came from. */
import { isIP } from 'node:net';
import { z } from 'zod';
import { whenValid } from '../config/when-valid';

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

const pemPath = (what: string) => z.string().min(1).nullable().default(null).describe(what);

/** HTTPS on a listener: its certificate and key, re-read when they change. */
export const listenerTlsSchema = z
  .object({
    certFile: pemPath('PEM certificate (chain) served on this port; with keyFile, the port speaks HTTPS only'),
    keyFile: pemPath('PEM private key of certFile'),
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

const vendorTlsSchema = listenerTlsSchema
  .safeExtend({
    clientCaFile: pemPath("PEM of the CAs that sign vendors' client certificates"),
    clientCertificate: z
      .enum(['off', 'optional', 'required'])
      .default('off')
      .describe('Ask vendors for a client certificate: off, optional (none allowed; one from an unknown CA refused at the handshake), required'),
  })
  .superRefine(
    (tls, ctx) => {
      if (tls.clientCertificate !== 'off' && (tls.clientCaFile === null || tls.certFile === null)) {
        ctx.addIssue({ code: 'custom', path: ['clientCertificate'], message: 'needs certFile, keyFile and clientCaFile' });
      }
    },
    whenValid('clientCertificate', 'clientCaFile', 'certFile'),
  );

export const serverSchema = z
  .object({
    host: z.string().min(1).default('0.0.0.0').describe('Address every listener binds to'),
    port: port.default(8080).describe('Vendor API port (env PORT)'),
    adminPort: port.default(8081).describe('Admin API and UI port (env ADMIN_PORT)'),
    adminHost: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe(
        'Address the admin port binds to (env ADMIN_HOST); loopback unless a network policy guards it (the Helm chart keeps loopback: kubectl port-forward reaches it)',
      ),
    maxConnections: z
      .number()
      .int()
      .min(1)
      .default(4096)
      .describe('Most open connections on the vendor port; past it a new one is closed at once (about 20 KiB each)'),
    adminMaxConnections: z
      .number()
      .int()
      .min(1)
      .default(256)
      .describe(
        'Most open connections on the admin port (a few admins and their browsers need far fewer); at it, a new one closes the least recently active connection not answering a complete request (silent, slow headers or body, idle), else itself',
      ),
    adminHeadersTimeoutMs: ms
      .default(3000)
      .describe(
        "Time an admin client has to send a request's headers (admins send small ones at once); drops slow-header clients sooner than on the vendor port; capped at requestTimeoutMs",
      ),
    statusPort: port.default(8082).describe('Metrics and health port (env STATUS_PORT)'),
    keepAliveTimeoutMs: ms.default(65_000).describe('Idle keep-alive time; above the 60 s idle timeout of common load balancers'),
    headersTimeoutMs: ms.default(10_000).describe("Time a client has to send a request's headers; drops slow-header clients"),
    requestTimeoutMs: ms.default(30_000).describe('Time a client has to send a whole request'),
    maxHeaderSize: z.number().int().min(1024).default(16_384).describe('Largest request header block in bytes'),
    trustedProxies: z
      .array(z.string().refine(isAddressOrCidr, 'not an IP address or CIDR range'))
      .default([])
      .describe('Addresses or CIDR ranges of the load balancers whose X-Forwarded-For/Proto/Host are believed; none by default'),
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .regex(/^https?:\/\/[^/?#]+\/?$/, 'must be an origin only (scheme, host, port)')
      .nullable()
      .default(null)
      .describe(
        "The vendors' base URL (https://api.bank.example): paging links, /openapi.json's servers, the collection's baseUrl; null: trusted forwarded headers, else the listener",
      ),
    tls: vendorTlsSchema.prefault({}).describe('HTTPS on the vendor port, and client certificates'),
    clientCertificateHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/)
      .nullable()
      .default(null)
      .describe(
        "Header in which a TLS-terminating ingress passes the vendor's URL-encoded PEM certificate (e.g. ssl-client-cert); believed only from trustedProxies",
      ),
  })
  .strict();

export type ServerConfig = z.infer<typeof serverSchema>;
