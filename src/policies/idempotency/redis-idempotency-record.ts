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
 *   body encoding: 0 as sent, 1 raw deflate (window 2^12) with BODY_DICTIONARY
 *   body: the rest
 *
 * A record outlives the code that wrote it (a rolling upgrade, a day of retention), so the codes
 * and BODY_DICTIONARY are never changed: a new encoding takes a new number, and reading keeps the
 * old ones for a retention period (a test pins the dictionary's digest).
 *
 * Reads nothing; exports the encoder and decoder. zlib's sync calls only: a few kB of state each,
 * a few microseconds for a receipt.
 */
import { deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import type { StoredResponse } from './idempotency-store';

const COMPLETED = 0x43; // 'C', as the scripts test it
const KNOWN_CONTENT_TYPES = ['application/json; charset=utf-8', 'application/xml; charset=utf-8', 'text/json; charset=utf-8', 'text/xml; charset=utf-8'];
const BODY_AS_SENT = 0;
const BODY_DEFLATED = 1;
/** Below this a body is kept as sent: deflate's few bytes of gain would cost a zlib call. */
const DEFLATE_FROM_BYTES = 64;

/**
 * What the receipts a deposit answers with are made of, in JSON and XML as the gateway renders
 * them: a deposit receipt then shrinks to a third or less (about 110 bytes, from 330 in JSON and
 * 590 in XML). Never edited (see above).
 */
const BODY_DICTIONARY = Buffer.from(
  '{"cuAccountID":0,"accountNumber":"","amount":0.00,"notes":"","transactionOverrides":[],"receiptNo":0,"hasOverride":false,"externalRefNo":"",' +
    '"overrideUserName":null,"payFee":false,"dontSettleLinkedSavings":false,"errorMessage":null,"postedBalance":0.00}' +
    '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><AccountNumber></AccountNumber>' +
    '<Amount></Amount><CUAccountID></CUAccountID><DontSettleLinkedSavings>false</DontSettleLinkedSavings><ErrorMessage i:nil="true"/>' +
    '<ExternalRefNo></ExternalRefNo><HasOverride>false</HasOverride><Notes></Notes><OverrideUserName i:nil="true"/><PayFee>false</PayFee>' +
    '<ReceiptNo></ReceiptNo><TransactionOverrides/><postedBalance></postedBalance></ReceiptPaymentDto>',
  'utf8',
);
/** A 4 kB window holds the dictionary and a receipt; memLevel 3 keeps zlib's state small (its speed barely moves on a receipt). */
const ZLIB_OPTIONS: ZlibOptions = { windowBits: 12, memLevel: 3, dictionary: BODY_DICTIONARY };

/** The record of a completed key: what the claim script replays, fingerprint first (at most 255 bytes). */
export function completedRecord(fingerprint: Buffer, response: StoredResponse): Buffer {
  const { status, contentType, body, location = '' } = response;
  const known = KNOWN_CONTENT_TYPES.indexOf(contentType) + 1;
  const contentTypeBytes = known === 0 ? Buffer.byteLength(contentType) : 0;
  const locationBytes = Buffer.byteLength(location);
  let stored = body;
  let encoding = BODY_AS_SENT;
  if (body.length >= DEFLATE_FROM_BYTES) {
    const deflated = deflateRawSync(body, ZLIB_OPTIONS);
    if (deflated.length < body.length) {
      stored = deflated;
      encoding = BODY_DEFLATED;
    }
  }
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
  if (contentType === undefined || (encoding !== BODY_AS_SENT && encoding !== BODY_DEFLATED)) throw new Error('unreadable idempotency record');
  const stored = record.subarray(at);
  const body = encoding === BODY_DEFLATED ? inflateRawSync(stored, ZLIB_OPTIONS) : stored;
  return { status, contentType, body, ...(location ? { location } : {}) };
}
