/**
 * Vendor portal tokens: `cbp_<32 base62>_<6 base62 CRC32>`, made and checked as every gateway
 * secret is (checksummed-token.ts); a portal user signs in to the vendor portal with one. Stored
 * as its hash (api-key.ts `hashApiKey`) and its first 12 characters.
 *
 * Reads the OS random source; sets nothing.
 */
import { generateChecksummedToken, isWellFormedToken } from './checksummed-token';

const KIND = 'cbp';
const PREFIX_LENGTH = 12;

export function generatePortalToken(): string {
  return generateChecksummedToken(KIND);
}

/** True when the text is a portal token whose checksum holds: anything else is turned away before a lookup. */
export function isWellFormedPortalToken(text: string): boolean {
  return isWellFormedToken(KIND, text);
}

/** `cbp_` and the next 8 characters: what lists show to tell tokens apart. */
export function portalTokenPrefix(token: string): string {
  return token.slice(0, PREFIX_LENGTH);
}
