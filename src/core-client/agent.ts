/**
 * The keep-alive agents to the core: reusing sockets saves a TCP and TLS handshake per request,
 * the largest cost of a naive proxy. With an https core, the agent carries the TLS the bank
 * requires (`core.tls`: its CA, the gateway's client certificate for mutual TLS, the name to
 * check, the lowest version); verification has no off switch.
 *
 * Idle sockets are closed by the gateway before the core closes them, so no request is written
 * onto a socket the core is closing (ECONNRESET, a 502 on a deposit): each idle socket lives
 * `core.idleSocketTimeoutMs`, or less when the core announces `Keep-Alive: timeout=N` (Node's
 * agent then takes N s minus `agentKeepAliveTimeoutBuffer`, here `core.idleSocketMarginMs`). A
 * request that is not a GET or HEAD (money) goes further: idle sockets within that margin of their
 * end, or past it with a late timer on a busy event loop, are closed before it picks one.
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
import type { Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { Logger } from '../logging/logger';
import { bundleExpirySeconds, certificateExpirySeconds, WatchedPem, type PemFile, type PemSet } from '../tls/pem-files';
import type { CoreClientConfig } from './core-client.schema';

export interface CoreAgents {
  /** The agent for a request starting now; for a method other than GET and HEAD, with no idle socket near its end. */
  current(method: string): http.Agent;
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

type AgentConfig = Pick<CoreClientConfig, 'maxSockets' | 'maxFreeSockets' | 'idleSocketTimeoutMs' | 'idleSocketMarginMs' | 'tls'>;

function baseOptions(config: AgentConfig): http.AgentOptions {
  return {
    keepAlive: true,
    maxSockets: config.maxSockets,
    maxFreeSockets: config.maxFreeSockets,
    // Newest first: the sockets left idle longest are the first to time out, and at the front of
    // the free list (see closeNearEnd).
    scheduling: 'lifo',
    // The idle lifetime; Node shortens it to a Keep-Alive hint minus the buffer (http.Agent keepSocketAlive).
    timeout: config.idleSocketTimeoutMs,
    agentKeepAliveTimeoutBuffer: config.idleSocketMarginMs,
  };
}

/** When each pooled socket last became idle (performance.now()). */
const idleSince = new WeakMap<Socket, number>();

/** Notes when a socket goes back to the pool, after Node has set its idle lifetime. */
function withIdleClock<A extends http.Agent>(agent: A): A {
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Socket) => boolean;
  agent.keepSocketAlive = (socket): boolean => {
    const kept = keep(socket as Socket);
    if (kept) idleSince.set(socket as Socket, performance.now());
    return kept;
  };
  return agent;
}

/**
 * Closes the idle sockets a request that must not be sent twice should not take: those idle for
 * `marginMs` less than their lifetime or longer. The free list is in the order the sockets went
 * idle and the agent skips destroyed sockets at its front, so everything up to the last such
 * socket is closed: the agent then takes a fresh socket or opens a new one.
 */
function closeNearEnd(agent: http.Agent, marginMs: number): http.Agent {
  const now = performance.now();
  // No arrays or closures per call: this runs before every deposit.
  for (const name in agent.freeSockets) {
    const sockets = agent.freeSockets[name] as Socket[] | undefined;
    if (!sockets) continue;
    let lastNearEnd = -1;
    for (let i = sockets.length - 1; i >= 0 && lastNearEnd < 0; i--) {
      const socket = sockets[i] as Socket;
      if (now - (idleSince.get(socket) ?? -Infinity) >= (socket.timeout ?? 0) - marginMs) lastNearEnd = i;
    }
    // destroy() leaves the socket in the list until its 'close'; the agent skips it there.
    for (let i = 0; i <= lastNearEnd; i++) (sockets[i] as Socket).destroy();
  }
  return agent;
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
  return withIdleClock(new https.Agent(options));
}

export function createCoreAgents(coreUrl: string, config: AgentConfig, options: CoreAgentOptions): CoreAgents {
  const forMethod = (agent: http.Agent, method: string): http.Agent =>
    method === 'GET' || method === 'HEAD' ? agent : closeNearEnd(agent, config.idleSocketMarginMs);
  if (new URL(coreUrl).protocol !== 'https:') {
    const agent = withIdleClock(new http.Agent(baseOptions(config)));
    return { current: (method) => forMethod(agent, method), destroy: () => agent.destroy() };
  }
  const files = tlsFiles(config);
  if (files.length === 0) {
    const agent = httpsAgent(config, {});
    return { current: (method) => forMethod(agent, method), destroy: () => agent.destroy() };
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
    current: (method) => forMethod(watched.value, method),
    destroy: () => {
      watched.stop();
      watched.value.destroy();
      for (const agent of retired) agent.destroy();
    },
  };
}
