/**
 * The keep-alive agents to the core: reusing sockets saves a TCP and TLS handshake per request,
 * the largest cost of a naive proxy. With an https core, the agent carries the TLS the bank
 * requires (`core.tls`: its CA, the gateway's client certificate for mutual TLS, the name to
 * check, the lowest version); verification has no off switch.
 *
 * Rotation is a swap: when the certificate files change (see tls/pem-files.ts), a new agent is
 * built and every new request gets it; requests under way finish on the old one, which is
 * closed after `retireAfterMs`. A new agent also means a new TLS session cache, so no resumed
 * session keeps the old identity.
 *
 * Reads core.url and core.tls (the files, polled); opens connections lazily. Reports each
 * client certificate's expiry through `onCertificate`, and the core CA's (the soonest of the
 * bundle's certificates) through `onCaCertificate`, at start and on every rotation.
 */
import http from 'node:http';
import https from 'node:https';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../logging/logger';
import { bundleExpirySeconds, certificateExpirySeconds, WatchedPem, type PemFile, type PemSet } from '../tls/pem-files';
import type { CoreClientConfig } from './core-client.schema';

export interface CoreAgents {
  /** The agent for a request starting now. */
  current(): http.Agent;
  /** Stops watching files and closes every agent. */
  destroy(): void;
}

interface CoreAgentOptions {
  readonly logger: Logger;
  /** Told of the client certificate's expiry (seconds since the epoch), at start and on rotation. */
  readonly onCertificate?: (expiresAtSeconds: number) => void;
  /** Told when the CA file's first-expiring certificate expires: past it, the core's chain may no longer verify. */
  readonly onCaCertificate?: (expiresAtSeconds: number) => void;
  /** How long a replaced agent keeps serving the requests it holds. */
  readonly retireAfterMs?: number;
  readonly pollIntervalMs?: number;
}

type AgentConfig = Pick<CoreClientConfig, 'maxSockets' | 'maxFreeSockets' | 'tls'>;

function baseOptions(config: AgentConfig): http.AgentOptions {
  return { keepAlive: true, maxSockets: config.maxSockets, maxFreeSockets: config.maxFreeSockets, scheduling: 'lifo' };
}

function tlsFiles(config: AgentConfig): PemFile[] {
  const { caFile, certFile, keyFile } = config.tls;
  const files: PemFile[] = [];
  if (caFile) files.push({ key: 'core.tls.caFile', path: caFile });
  if (certFile) files.push({ key: 'core.tls.certFile', path: certFile });
  if (keyFile) files.push({ key: 'core.tls.keyFile', path: keyFile });
  return files;
}

function httpsAgent(config: AgentConfig, pems: PemSet): https.Agent {
  const options: https.AgentOptions = {
    ...baseOptions(config),
    ca: pems['core.tls.caFile'],
    cert: pems['core.tls.certFile'],
    key: pems['core.tls.keyFile'],
    minVersion: config.tls.minVersion,
    rejectUnauthorized: true,
    ...(config.tls.serverName ? { servername: config.tls.serverName } : {}),
  };
  // Fails here, not on the first request, for a key that does not match its certificate.
  createSecureContext({ ca: options.ca, cert: options.cert, key: options.key, minVersion: options.minVersion });
  return new https.Agent(options);
}

export function createCoreAgents(coreUrl: string, config: AgentConfig, options: CoreAgentOptions): CoreAgents {
  if (new URL(coreUrl).protocol !== 'https:') {
    const agent = new http.Agent(baseOptions(config));
    return { current: () => agent, destroy: () => agent.destroy() };
  }
  const files = tlsFiles(config);
  if (files.length === 0) {
    const agent = httpsAgent(config, {});
    return { current: () => agent, destroy: () => agent.destroy() };
  }
  const retired = new Set<http.Agent>();
  const report = (pems: PemSet): void => {
    const cert = pems['core.tls.certFile'];
    if (cert) options.onCertificate?.(certificateExpirySeconds(cert));
    const ca = pems['core.tls.caFile'];
    if (ca) options.onCaCertificate?.(bundleExpirySeconds(ca));
  };
  const watched: WatchedPem<https.Agent> = new WatchedPem({
    files,
    build: (pems) => httpsAgent(config, pems),
    logger: options.logger,
    pollIntervalMs: options.pollIntervalMs,
    onChange: (_agent, pems) => {
      report(pems);
      const old = previous;
      previous = watched.value;
      retired.add(old);
      setTimeout(() => {
        old.destroy();
        retired.delete(old);
      }, options.retireAfterMs ?? 60_000).unref();
    },
  });
  let previous = watched.value;
  report(watched.pems);
  return {
    current: () => watched.value,
    destroy: () => {
      watched.stop();
      watched.value.destroy();
      for (const agent of retired) agent.destroy();
    },
  };
}
