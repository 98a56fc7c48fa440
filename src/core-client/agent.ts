/**
 * The keep-alive agent to the core, built once per process: reusing sockets saves a TCP (and
 * TLS) handshake per request, the largest cost of a naive proxy.
 *
 * Reads the core client config; opens connections lazily, on the first forwarded request.
 */
import http from 'node:http';
import https from 'node:https';
import type { CoreClientConfig } from './core-client.schema';

export function createCoreAgent(coreUrl: string, config: Pick<CoreClientConfig, 'maxSockets' | 'maxFreeSockets'>): http.Agent {
  const options: http.AgentOptions = {
    keepAlive: true,
    maxSockets: config.maxSockets,
    maxFreeSockets: config.maxFreeSockets,
    scheduling: 'lifo',
  };
  return new URL(coreUrl).protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}
