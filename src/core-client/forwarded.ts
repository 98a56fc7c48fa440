/**
 * Where a vendor request came from, as the core is told in X-Forwarded-For/Proto/Host: the
 * client's address, and the scheme and host the vendor used, which the core puts in paging
 * links. A vendor never chooses these:
 * - the address and the forwarded headers are believed only from `server.trustedProxies`
 *   (proxy-addr, Express's own parser, walks X-Forwarded-For from the nearest hop and stops
 *   at the first untrusted one);
 * - scheme and host come from `server.publicUrl` when set, else from the nearest trusted
 *   proxy's X-Forwarded-Proto/Host (the last value of each: the one that proxy wrote), else
 *   from the listener the request arrived on. The vendor's Host header is never used.
 *
 * Reads the request's socket and, from trusted proxies only, its X-Forwarded-* headers.
 * `createClientAddressResolver` gives the address alone, for the admin port's throttle.
 */
import type http from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';

export interface ForwardedOrigin {
  readonly clientAddress: string;
  readonly proto: 'http' | 'https';
  readonly host: string;
}

interface ForwardingConfig {
  readonly trustedProxies: readonly string[];
  readonly publicUrl: string | null;
}

export type ForwardedResolver = (req: http.IncomingMessage) => ForwardedOrigin;

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function lastValue(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const comma = header.lastIndexOf(',');
  const value = (comma < 0 ? header : header.slice(comma + 1)).trim();
  return value === '' ? undefined : value;
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, what a dual-stack listener reports) as plain IPv4. */
function plainAddress(address: string | undefined): string {
  return address?.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : (address ?? '');
}

/** An address and port as a URL authority writes them, IPv6 bracketed. */
function authority(address: string | undefined, port: number | undefined): string {
  const plain = plainAddress(address) || 'localhost';
  return `${plain.includes(':') ? `[${plain}]` : plain}:${port}`;
}

function listenerOrigin(req: http.IncomingMessage): { proto: 'http' | 'https'; host: string } {
  const socket = req.socket as TLSSocket;
  return { proto: socket.encrypted ? 'https' : 'http', host: authority(socket.localAddress, socket.localPort) };
}

/**
 * The client's address alone, by the same rule the core is told it: the socket's peer, or, from
 * `trustedProxies` only, the nearest untrusted hop of X-Forwarded-For. Per-address limits and the
 * admin port's throttle key on it.
 */
export function createClientAddressResolver(trustedProxies: readonly string[]): (req: http.IncomingMessage) => string {
  if (trustedProxies.length === 0) return (req) => plainAddress(req.socket.remoteAddress);
  const trust = proxyaddr.compile([...trustedProxies]);
  return (req) => plainAddress(proxyaddr(req, trust));
}

export function createForwardedResolver(config: ForwardingConfig): ForwardedResolver {
  const publicOrigin = config.publicUrl === null ? null : new URL(config.publicUrl);
  const fixed = publicOrigin ? { proto: publicOrigin.protocol === 'https:' ? ('https' as const) : ('http' as const), host: publicOrigin.host } : null;
  const clientAddressOf = createClientAddressResolver(config.trustedProxies);
  if (config.trustedProxies.length === 0) {
    return function untrustedOrigin(req) {
      const { proto, host } = fixed ?? listenerOrigin(req);
      return { clientAddress: clientAddressOf(req), proto, host };
    };
  }
  const trust = proxyaddr.compile([...config.trustedProxies]);
  return function trustedOrigin(req) {
    const clientAddress = clientAddressOf(req);
    if (fixed) return { clientAddress, ...fixed };
    const listener = listenerOrigin(req);
    if (!trust(req.socket.remoteAddress ?? '', 0)) return { clientAddress, ...listener };
    const proto = lastValue(req.headers['x-forwarded-proto'])?.toLowerCase();
    const host = lastValue(req.headers['x-forwarded-host']);
    return {
      clientAddress,
      proto: proto === 'https' || proto === 'http' ? proto : listener.proto,
      host: host !== undefined && HOST.test(host) ? host : listener.host,
    };
  };
}
