/**
 * The limit on the keyless public files (`/openapi.json`, `/docs` and its assets): a request of
 * a hundred bytes gets up to 1.7 MB back, with no key to count it against, so each client
 * address gets `rateLimit.publicFiles.points` requests per `durationSeconds` window, counted in
 * this process (rate-limiter-flexible's memory limiter; no Redis round trip for a public file,
 * and a fleet of N instances lets an address have at most N times the limit). The address is
 * the one the core is told (server.trustedProxies decide whether X-Forwarded-For is believed);
 * an IPv6 address counts by its /64, the block one subscriber usually holds, so that walking
 * through one's own addresses does not multiply the limit.
 *
 * Reads the request's socket (and X-Forwarded-For from trusted proxies); keeps one counter per
 * address seen in the current window.
 */
import type http from 'node:http';
import { isIPv6 } from 'node:net';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError } from '../errors/error-catalogue';

interface PublicFileLimitConfig {
  readonly points: number;
  readonly durationSeconds: number;
}

/** Resolves to null when the request may be served, else to the 429 to answer. */
export type PublicFileLimit = (req: http.IncomingMessage) => Promise<GatewayError | null>;

/** The /64 an IPv6 address lies in (`2001:db8:1:2::/64`); any other address as it is. */
export function addressBlock(address: string): string {
  const plain = address.split('%')[0] as string;
  if (!isIPv6(plain)) return address;
  const [left = '', right] = plain.split('::');
  const groupsOf = (part: string | undefined): string[] => (part ? part.split(':') : []);
  // An embedded IPv4 address (`::1.2.3.4`) fills two groups; it only ever sits in the last 32 bits.
  const width = (groups: string[]): number => groups.reduce((n, group) => n + (group.includes('.') ? 2 : 1), 0);
  const head = groupsOf(left);
  const tail = groupsOf(right);
  const groups = right === undefined ? head : [...head, ...Array<string>(8 - width(head) - width(tail)).fill('0'), ...tail];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

export function publicFileLimit(config: PublicFileLimitConfig, deps: { readonly clientAddress: (req: http.IncomingMessage) => string }): PublicFileLimit {
  const limiter = new RateLimiterMemory({ keyPrefix: 'public-files', points: config.points, duration: config.durationSeconds });
  return function limitPublicFile(req) {
    return limiter.consume(addressBlock(deps.clientAddress(req))).then(
      () => null,
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        return new GatewayError('rate_limited', `Too many requests for the public files from this address; retry in ${retryAfter} s.`, {
          headers: { 'Retry-After': retryAfter },
        });
      },
    );
  };
}
