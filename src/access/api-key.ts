/**
 * Vendor API keys: `cbk_<32 base62>_<6 base62 CRC32>`, made and checked as every gateway secret
 * is (checksummed-token.ts).
 *
 * Reads the OS random source; sets nothing. Only the SHA-256 of a key is ever stored.
 */
import { createHash } from 'node:crypto';
import { generateChecksummedToken, hasTokenShape, isWellFormedToken } from './checksummed-token';

const KIND = 'cbk';
const KEY_PREFIX_LENGTH = 12;

/** A new key. */
export function generateApiKey(): string {
  return generateChecksummedToken(KIND);
}

/** True when the text has a key's shape (`cbk_<32 base62>_<6 base62>`), whether or not its checksum holds. */
export function hasApiKeyShape(text: string): boolean {
  return hasTokenShape(KIND, text);
}

/** True when the key has the format and its checksum holds. */
export function isWellFormedApiKey(key: string): boolean {
  return isWellFormedToken(KIND, key);
}

/** The stored form of a key, and of a portal token (portal-token.ts). */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
