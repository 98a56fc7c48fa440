/**
 * The bytes of a completed idempotency record: every answer comes back exactly as stored, a
 * receipt is kept small with its names coded, and a record written by the first version of this
 * layout still reads (records outlive the code that wrote them by a retention period).
 */
import { completedRecord, responseOfRecord } from './redis-idempotency-record';
import type { StoredResponse } from './idempotency-store';

const FP = Buffer.alloc(32, 0xab);
const XML_RECEIPT =
  '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><Amount>10.00</Amount><CUAccountID>50001</CUAccountID><ExternalRefNo>REF-2</ExternalRefNo>' +
  '<HasOverride>false</HasOverride><Notes>Counter 2</Notes><ReceiptNo>1016431</ReceiptNo><TransactionOverrides/></ReceiptPaymentDto>';

describe('completed idempotency record', () => {
  it.each<[string, StoredResponse]>([
    [
      'a JSON receipt',
      { status: 201, contentType: 'application/json; charset=utf-8', body: Buffer.from('{"receiptNo":1,"amount":10.00,"notes":"caf\u00e9"}') },
    ],
    ['an XML receipt with a Location', { status: 201, contentType: 'text/xml; charset=utf-8', body: Buffer.from(XML_RECEIPT), location: '/bankaccounts/42' }],
    ['a content type of its own', { status: 200, contentType: 'application/vnd.example+json; version=2', body: Buffer.from('{"ok":true}') }],
    ['bytes that are not text', { status: 299, contentType: '', body: Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)) }],
    ['an empty body', { status: 204, contentType: 'application/json; charset=utf-8', body: Buffer.alloc(0), location: '/caf\u00e9/\u00fcber' }],
  ])('gives back %s exactly as stored', (_name, response) => {
    const record = completedRecord(FP, response);
    expect(record.subarray(0, 2 + FP.length)).toEqual(Buffer.concat([Buffer.from('C'), Buffer.from([FP.length]), FP]));
    expect(responseOfRecord(record)).toEqual(response);
  });

  it("keeps a deposit receipt with its names coded, at well under half its size, and a body holding the code's own byte as sent", () => {
    const record = completedRecord(FP, { status: 201, contentType: 'application/xml; charset=utf-8', body: Buffer.from(XML_RECEIPT) });
    expect(record.length).toBeLessThan(2 + FP.length + 100);
    expect(XML_RECEIPT.length).toBeGreaterThan(270);
    const marked = { status: 201, contentType: 'application/xml; charset=utf-8', body: Buffer.from(`${XML_RECEIPT}\x01`) };
    expect(completedRecord(FP, marked).length).toBeGreaterThan(XML_RECEIPT.length);
    expect(responseOfRecord(completedRecord(FP, marked))).toEqual(marked);
  });

  it('reads a record written by the first version of this layout (its codes and dictionary never change)', () => {
    const written = Buffer.from(
      'QyCrq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urqwDJAgACL3gBASABWgEqMTAuMDABKwEuNTAwMDEBLwE6UkVGLTIBOwE+ASMBPwFCQ291bnRlciAyAUMBTjEwMTY0MzEBTwFUAVs=',
      'base64',
    );
    expect(responseOfRecord(written)).toEqual({ status: 201, contentType: 'application/xml; charset=utf-8', body: Buffer.from(XML_RECEIPT), location: '/x' });
  });

  it('refuses bytes that are not a completed record, rather than replaying something else', () => {
    const record = completedRecord(FP, { status: 201, contentType: 'application/json; charset=utf-8', body: Buffer.from('{}') });
    expect(() => responseOfRecord(Buffer.concat([Buffer.from('F'), record.subarray(1)]))).toThrow();
    const unknownEncoding = Buffer.from(record);
    unknownEncoding[unknownEncoding.length - 3] = 9;
    expect(() => responseOfRecord(unknownEncoding)).toThrow();
    expect(() => responseOfRecord(record.subarray(0, 36))).toThrow();
    const unknownCode = Buffer.concat([record.subarray(0, record.length - 3), Buffer.from([1, 0x01, 0xff])]);
    expect(() => responseOfRecord(unknownCode)).toThrow();
  });
});
