/**
 * The bytes of a completed idempotency record in Redis (the store's scripts, in
 * redis-idempotency-store.ts, write and read its other states): written here whole, kept as one
 * Redis string for `idempotency.retentionSeconds`, and read back for each replay.
 *
 *   'C'  fingerprint length (1 byte)  fingerprint (the raw HMAC)  — the scripts read these
 *   status (2 bytes, big-endian)
 *   content type: 1–4 for the four the gateway answers with (KNOWN_CONTENT_TYPES), or 0 then its
 *     length (2 bytes) and UTF-8 bytes
 *   Location: its length (2 bytes; 0 for none) and UTF-8 bytes
 *   body encoding: 0 as sent; 1 with each of BODY_TOKENS written as 0x01 and one byte (0x20 + its
 *     place in the list), for a body without a 0x01 byte of its own
 *   body: the rest
 *
 * The tokens are the names of a deposit receipt in JSON and XML, which make up most of one: a
 * receipt shrinks to 150–160 bytes from 330 (JSON) and 590 (XML), for a few microseconds (a
 * regular expression over the text), where deflate with a dictionary got 110–115 for 13 µs.
 * A record outlives the code that wrote it (a rolling upgrade, a day of retention), so the codes
 * and BODY_TOKENS are never changed: a new encoding takes a new number, and reading keeps the old
 * ones for a retention period (a test reads a record of the first version).
 *
 * Reads nothing; exports the encoder and decoder.
 */
import type { StoredResponse } from './idempotency-store';

const COMPLETED = 0x43; // 'C', as the scripts test it
const KNOWN_CONTENT_TYPES = ['application/json; charset=utf-8', 'application/xml; charset=utf-8', 'text/json; charset=utf-8', 'text/xml; charset=utf-8'];
const BODY_AS_SENT = 0;
const BODY_TOKENED = 1;
const MARK = '\x01';

/** The members of a deposit receipt (ReceiptPaymentDto, and the core's postedBalance), by their XML names. Never edited (see above). */
const RECEIPT_MEMBERS = [
  'AccountNumber',
  'Amount',
  'CUAccountID',
  'DontSettleLinkedSavings',
  'ErrorMessage',
  'ExternalRefNo',
  'HasOverride',
  'Notes',
  'OverrideUserName',
  'PayFee',
  'ReceiptNo',
  'TransactionOverrides',
  'postedBalance',
  'ReceiptPaymentDto',
];
const BODY_TOKENS: readonly string[] = [
  '<?xml version="1.0" encoding="utf-8"?>',
  ' xmlns:i="http://www.w3.org/2001/XMLSchema-instance"',
  ' i:nil="true"/>',
  'false',
  'true',
  'null',
  ...RECEIPT_MEMBERS.flatMap((name) => [`<${name}>`, `</${name}>`, `<${name}/>`, `<${name}`]),
  ...RECEIPT_MEMBERS.map((name) => `"${name === 'CUAccountID' ? 'cuAccountID' : name[0]?.toLowerCase() + name.slice(1)}":`),
];
const CODE_OF = new Map(BODY_TOKENS.map((token, i) => [token, MARK + String.fromCharCode(0x20 + i)]));
const TOKEN_OF = new Map(BODY_TOKENS.map((token, i) => [MARK + String.fromCharCode(0x20 + i), token]));
/** Every token, the longest first, so that `<Notes>` is never taken for `<Notes` and a `>`. */
const TOKEN_PATTERN = new RegExp(
  [...BODY_TOKENS]
    .sort((a, b) => b.length - a.length)
    .map((token) => token.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|'),
  'g',
);
/** A code: the mark and the byte after it. */
const CODE_PATTERN = new RegExp(`${MARK}[\\s\\S]`, 'g');

/** The body with its tokens coded, or null when it holds a 0x01 byte of its own (then it is kept as sent). */
function tokened(body: Buffer): Buffer | null {
  const text = body.toString('latin1');
  if (text.includes(MARK)) return null;
  return Buffer.from(
    text.replace(TOKEN_PATTERN, (token) => CODE_OF.get(token) as string),
    'latin1',
  );
}

function untokened(stored: Buffer): Buffer {
  const text = stored.toString('latin1').replace(CODE_PATTERN, (code) => {
    const token = TOKEN_OF.get(code);
    if (token === undefined) throw new Error('unreadable idempotency record');
    return token;
  });
  return Buffer.from(text, 'latin1');
}

/** The record of a completed key: what the claim script replays, fingerprint first (at most 255 bytes). */
export function completedRecord(fingerprint: Buffer, response: StoredResponse): Buffer {
  const { status, contentType, body, location = '' } = response;
  const known = KNOWN_CONTENT_TYPES.indexOf(contentType) + 1;
  const contentTypeBytes = known === 0 ? Buffer.byteLength(contentType) : 0;
  const locationBytes = Buffer.byteLength(location);
  const coded = tokened(body);
  const stored = coded !== null && coded.length < body.length ? coded : body;
  const encoding = stored === body ? BODY_AS_SENT : BODY_TOKENED;
  const record = Buffer.allocUnsafe(2 + fingerprint.length + 3 + (known === 0 ? 2 + contentTypeBytes : 0) + 2 + locationBytes + 1 + stored.length);
  record[0] = COMPLETED;
  record[1] = fingerprint.length;
  let at = 2 + fingerprint.copy(record, 2);
  at = record.writeUInt16BE(status, at);
  record[at++] = known;
  if (known === 0) {
    at = record.writeUInt16BE(contentTypeBytes, at);
    at += record.write(contentType, at, 'utf8');
  }
  at = record.writeUInt16BE(locationBytes, at);
  at += record.write(location, at, 'utf8');
  record[at++] = encoding;
  stored.copy(record, at);
  return record;
}

/** The response a completed record holds; throws on bytes that are not one (the claim then fails, and the step answers 503). */
export function responseOfRecord(record: Buffer): StoredResponse {
  if (record[0] !== COMPLETED || record.length < 2) throw new Error('not a completed idempotency record');
  let at = 2 + (record[1] as number);
  const status = record.readUInt16BE(at);
  at += 2;
  const known = record[at++] as number;
  let contentType = KNOWN_CONTENT_TYPES[known - 1];
  if (known === 0) {
    const length = record.readUInt16BE(at);
    contentType = record.toString('utf8', at + 2, at + 2 + length);
    at += 2 + length;
  }
  const locationBytes = record.readUInt16BE(at);
  const location = record.toString('utf8', at + 2, at + 2 + locationBytes);
  at += 2 + locationBytes;
  const encoding = record[at++];
  if (contentType === undefined || (encoding !== BODY_AS_SENT && encoding !== BODY_TOKENED)) throw new Error('unreadable idempotency record');
  const stored = record.subarray(at);
  const body = encoding === BODY_TOKENED ? untokened(stored) : stored;
  return { status, contentType, body, ...(location ? { location } : {}) };
}
