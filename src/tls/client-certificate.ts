/**
 * Which certificate a vendor presented, as the `x5t#S256` thumbprint that certificate-bound keys
 * carry: from the TLS connection itself (the vendor port serving HTTPS with client
 * certificates, and only a certificate that passed verification), or, behind an ingress that
 * ends TLS, from `server.clientCertificateHeader` (a URL-encoded PEM, as ingress-nginx's
 * `ssl-client-cert`), believed only when the connection comes from `server.trustedProxies`.
 * Anyone else sending that header binds nothing.
 *
 * Reads the request's socket and, from trusted proxies only, that header.
 */
import { X509Certificate } from 'node:crypto';
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';
import { certificateThumbprint } from './pem-files';

interface ClientCertificateConfig {
  readonly trustedProxies: readonly string[];
  readonly clientCertificateHeader: string | null;
}

/** The thumbprint of the vendor's certificate, or null when it presented none the gateway believes. */
type ClientCertificateReader = (req: http.IncomingMessage) => string | null;

export function createClientCertificateReader(config: ClientCertificateConfig): ClientCertificateReader {
  const header = config.clientCertificateHeader?.toLowerCase() ?? null;
  const trusted = config.trustedProxies.length > 0 ? proxyaddr.compile([...config.trustedProxies]) : null;
  return function presentedCertificate(req) {
    const socket = req.socket as TLSSocket;
    if (socket.encrypted && socket.authorized) {
      const raw = socket.getPeerCertificate().raw as Buffer | undefined;
      if (raw) return certificateThumbprint(raw);
    }
    if (header === null || trusted === null || !trusted(req.socket.remoteAddress ?? '', 0)) return null;
    const sent = req.headers[header];
    if (typeof sent !== 'string' || sent.length === 0) return null;
    try {
      return certificateThumbprint(new X509Certificate(decodeURIComponent(sent)).raw);
    } catch {
      return null;
    }
  };
}
