/**
 * Reading a browser's cookies and fingerprinting the credential a session was signed in with,
 * for every sign-in of the gateway (the admin web UI and the vendor portal alike).
 *
 * Pure: reads the Cookie header it is given.
 */
import { createHash } from 'node:crypto';

/** The first 16 hex digits of the token's SHA-256, as the admin directory's hash stores it. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/**
 * The value of one cookie in a Cookie header, or null. Null too when the name comes twice: a
 * sibling subdomain can set a cookie of the same name that the browser sends first (cookie
 * tossing), and which one is ours cannot be told.
 */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  let value: string | null = null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at <= 0 || part.slice(0, at).trim() !== name) continue;
    if (value !== null) return null;
    value = part.slice(at + 1).trim();
  }
  return value;
}
