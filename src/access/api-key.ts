/**
 * Vendor API keys: `cbk_<32 base62>_<6 base62 CRC32>` (190 bits of randomness; the checksum
 * lets secret scanners and the gateway reject a mistyped or made-up key without a lookup).
 *
 * Reads the OS random source; sets nothing. Only the SHA-256 of a key is ever stored.
 */
import { createHash, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const KEY_PATTERN = /^cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/;
const KEY_PREFIX_LENGTH = 12;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECK_LENGTH);
}

/** A new key. `randomInt` draws each character uniformly, so there is no modulo bias. */
export function generateApiKey(): string {
  let random = '';
  for (let i = 0; i < BODY_LENGTH; i++) random += BASE62[randomInt(62)];
  const body = `cbk_${random}`;
  return `${body}_${checksum(body)}`;
}

/** True when the text has a key's shape (`cbk_<32 base62>_<6 base62>`), whether or not its checksum holds. */
export function hasApiKeyShape(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/** True when the key has the format and its checksum holds. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, 4 + BODY_LENGTH);
  return key.slice(-CHECK_LENGTH) === checksum(body);
}

export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
