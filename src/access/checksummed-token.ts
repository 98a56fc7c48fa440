/**
 * The shape every secret the gateway hands out shares: `<kind>_<32 base62>_<6 base62 CRC32>`
 * (190 bits of randomness; the checksum lets secret scanners and the gateway reject a mistyped
 * or made-up one without a lookup). Vendor API keys (`cbk_`, api-key.ts) and portal tokens
 * (`cbp_`, portal-token.ts) are made and checked here.
 *
 * Reads the OS random source; sets nothing.
 */
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;

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

/** A new secret of `kind` (`cbk`, `cbp`). `randomInt` draws each character uniformly, so there is no modulo bias. */
export function generateChecksummedToken(kind: string): string {
  let random = '';
  for (let i = 0; i < BODY_LENGTH; i++) random += BASE62[randomInt(62)];
  const body = `${kind}_${random}`;
  return `${body}_${checksum(body)}`;
}

const shapes = new Map<string, RegExp>();

/** True when the text has the shape of a secret of `kind`, whether or not its checksum holds. */
export function hasTokenShape(kind: string, text: string): boolean {
  let shape = shapes.get(kind);
  if (!shape) shapes.set(kind, (shape = new RegExp(`^${kind}_[0-9A-Za-z]{${BODY_LENGTH}}_[0-9A-Za-z]{${CHECK_LENGTH}}$`)));
  return shape.test(text);
}

/** True when the text is a secret of `kind` whose checksum holds. */
export function isWellFormedToken(kind: string, text: string): boolean {
  if (!hasTokenShape(kind, text)) return false;
  return text.slice(-CHECK_LENGTH) === checksum(text.slice(0, kind.length + 1 + BODY_LENGTH));
}
