/**
 * HTTPS on the vendor and admin ports: the certificate and key (re-read on change and swapped
 * into the running server with setSecureContext, so new connections get them and open ones
 * keep theirs), and on the vendor port the client-certificate modes:
 * - `off`: no certificate asked for;
 * - `optional`: asked for; none is fine, one from an unknown CA is refused right after the
 *   handshake (Node's own `rejectUnauthorized` would also refuse a vendor without one);
 * - `required`: a certificate from `clientCaFile` or no connection.
 *
 * Reads the `tls` section of `server` or `admin` and the files it names; reports each served
 * certificate's expiry through `onCertificate`.
 */
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../logging/logger';
import { certificateExpirySeconds, WatchedPem, type PemFile, type PemSet } from '../tls/pem-files';

interface ListenerTlsConfig {
  readonly certFile: string | null;
  readonly keyFile: string | null;
  readonly clientCaFile?: string | null;
  readonly clientCertificate?: 'off' | 'optional' | 'required';
}

/** What a listener needs to serve HTTPS. */
export interface ListenerTls {
  /** The TLS options for https.createServer. */
  options(): https.ServerOptions;
  /** Hooks the running server: rotations, and the optional mode's check. */
  attach(server: https.Server): void;
  stop(): void;
}

function tlsOptions(config: ListenerTlsConfig, section: string, pems: PemSet): https.ServerOptions {
  const mode = config.clientCertificate ?? 'off';
  const options: https.ServerOptions = {
    cert: pems[`${section}.tls.certFile`],
    key: pems[`${section}.tls.keyFile`],
    minVersion: 'TLSv1.2',
    ...(mode === 'off' ? {} : { ca: pems[`${section}.tls.clientCaFile`], requestCert: true, rejectUnauthorized: mode === 'required' }),
  };
  // A key that does not match its certificate fails here, not at the first handshake.
  createSecureContext({ cert: options.cert, key: options.key, ca: options.ca });
  return options;
}

/** Null when the section serves plain HTTP. */
export function createListenerTls(
  config: ListenerTlsConfig,
  section: 'server' | 'admin',
  deps: { readonly logger: Logger; readonly onCertificate?: (expiresAtSeconds: number) => void; readonly pollIntervalMs?: number },
): ListenerTls | null {
  if (config.certFile === null || config.keyFile === null) return null;
  const files: PemFile[] = [
    { key: `${section}.tls.certFile`, path: config.certFile },
    { key: `${section}.tls.keyFile`, path: config.keyFile },
  ];
  if ((config.clientCertificate ?? 'off') !== 'off' && config.clientCaFile) files.push({ key: `${section}.tls.clientCaFile`, path: config.clientCaFile });
  const servers = new Set<https.Server>();
  const report = (pems: PemSet): void => deps.onCertificate?.(certificateExpirySeconds(pems[`${section}.tls.certFile`] as Buffer));
  const watched = new WatchedPem<https.ServerOptions>({
    files,
    build: (pems) => tlsOptions(config, section, pems),
    logger: deps.logger,
    pollIntervalMs: deps.pollIntervalMs,
    onChange: (options, pems) => {
      report(pems);
      for (const server of servers) server.setSecureContext(options);
    },
  });
  report(watched.pems);
  return {
    options: () => watched.value,
    attach(server) {
      servers.add(server);
      server.once('close', () => servers.delete(server));
      if (config.clientCertificate === 'optional') {
        server.on('secureConnection', (socket: TLSSocket) => {
          // Presented but not signed by clientCaFile: as good as refused at the handshake.
          if (!socket.authorized && socket.getPeerCertificate().raw !== undefined) socket.destroy();
        });
      }
    },
    stop: () => watched.stop(),
  };
}
