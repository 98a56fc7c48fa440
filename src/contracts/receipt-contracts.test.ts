/**
 * The receipt contracts against hand-written golden fixtures (test/fixtures/receipts/), the
 * spec's validation rules, exact decimals in both directions and both formats, and the
 * translation of the core's answers.
 */
import { struct, text } from './dto-schema';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { GatewayError } from '../errors/error-catalogue';
import { SafeXmlParser } from '../xml/safe-xml';
import type { BodyContract, DecodedBody } from './body-contract';
import { loadReceiptEnums } from './enums';
import { parseJsonBody } from './json-codec';
import { createBodyContracts, renderAnswerForVendor, renderResponseBody } from './registry';

const FIXTURES = path.resolve(__dirname, '../../test/fixtures/receipts');
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');
const enums = loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml'));
const contracts = createBodyContracts({ enums, adjustmentNotesRequired: false });
const xmlParser = new SafeXmlParser(32);

function contract(id: 'ReceiptPaymentDto' | 'ReceiptSavingsDepositWebDto' | 'ReceiptReversalWebDto'): BodyContract {
  return contracts.get(id) as BodyContract;
}
const decodeXml = (c: BodyContract, xml: string): DecodedBody => c.decode({ format: 'xml', xml: xmlParser.parse(xml) });
const decodeJson = (c: BodyContract, json: string): DecodedBody => c.decode({ format: 'json', json: parseJsonBody(json, 32) });

/** The errors[] of the 400 a decode throws. */
function fieldErrors(decode: () => unknown): Array<{ field: string; message: string }> {
  try {
    decode();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('invalid_request');
    return [...((err as GatewayError).errors ?? [])];
  }
  throw new Error('expected a 400');
}

/** A document without comments and the whitespace between elements: the fixtures are pretty-printed. */
const compactXml = (xml: string): string =>
  xml
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/>\s+</g, '><')
    .trim();
const compactJson = (json: string): string => stringifyLossless(parseLossless(json)) as string;

const OPERATIONS = [
  ['deposit', 'ReceiptPaymentDto'],
  ['payment', 'ReceiptSavingsDepositWebDto'],
  ['reversal', 'ReceiptReversalWebDto'],
] as const;

describe.each(OPERATIONS)('golden %s fixtures (%s)', (name, id) => {
  const c = contract(id);
  const canonical = fixture(`${name}.core.json`).trim();

  it('sends the XML request to the core as the canonical JSON', () => {
    expect(decodeXml(c, fixture(`${name}.request.xml`)).coreJson).toBe(canonical);
  });

  it('sends the JSON request to the core as the same canonical JSON', () => {
    expect(decodeJson(c, fixture(`${name}.request.json`)).coreJson).toBe(canonical);
  });

  it('round-trips XML → canonical JSON → XML to the request itself', () => {
    const coreJson = decodeXml(c, fixture(`${name}.request.xml`)).coreJson;
    expect(renderResponseBody(c, coreJson, 'xml')).toBe(compactXml(fixture(`${name}.request.xml`)));
  });

  it('round-trips JSON → JSON to the request itself', () => {
    const coreJson = decodeJson(c, fixture(`${name}.request.json`)).coreJson;
    expect(renderResponseBody(c, coreJson, 'json')).toBe(compactJson(fixture(`${name}.request.json`)));
  });
});

describe('nulls from a DataContractSerializer client', () => {
  it('reads an element marked i:nil (or xsi:nil) as absent, not as an empty string', () => {
    const xml =
      '<ReceiptPaymentDto xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns:x="http://www.w3.org/2001/XMLSchema-instance">' +
      '<AccountNumber i:nil="true"/><Amount>1.00</Amount><CUAccountID>50001</CUAccountID><ExternalRefNo x:nil="true"/><Notes i:nil="false">kept</Notes></ReceiptPaymentDto>';
    const { coreJson } = decodeXml(contract('ReceiptPaymentDto'), xml);
    expect(JSON.parse(coreJson)).toEqual({ cuAccountID: 50001, amount: 1, notes: 'kept' });
    expect(coreJson).not.toMatch(/accountNumber|externalRefNo/);
  });
});

describe('translating the core answer', () => {
  it.each([
    ['deposit.response', 'ReceiptPaymentDto'],
    ['payment.override.response', 'ReceiptSavingsDepositWebDto'],
    ['reversal.response', 'ReceiptReversalWebDto'],
  ] as const)('writes %s as the golden XML: .NET names, enum names, ArrearsDays entries, nulls as i:nil', (name, id) => {
    expect(renderResponseBody(contract(id), fixture(`${name}.json`), 'xml')).toBe(compactXml(fixture(`${name}.xml`)));
  });

  it('passes the core JSON through with every value, unknown field and decimal as the core wrote it', () => {
    const answer = fixture('payment.override.response.json');
    expect(renderResponseBody(contract('ReceiptSavingsDepositWebDto'), answer, 'json')).toBe(compactJson(answer));
  });

  it('writes known names canonically whatever case the core used, and keeps its decimal text', () => {
    const answer = '{"CUAccountID":1,"AMOUNT":100.000,"HasOverride":false,"extra":{"nested":[1.10,"x"]}}';
    expect(renderResponseBody(contract('ReceiptPaymentDto'), answer, 'json')).toBe(
      '{"cuAccountID":1,"amount":100.000,"hasOverride":false,"extra":{"nested":[1.10,"x"]}}',
    );
    expect(renderResponseBody(contract('ReceiptPaymentDto'), answer, 'xml')).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto><Amount>100.000</Amount><CUAccountID>1</CUAccountID><HasOverride>false</HasOverride>' +
        '<extra><nested><Item>1.10</Item><Item>x</Item></nested></extra></ReceiptPaymentDto>',
    );
  });

  it('writes the answer in the namespace it is given, members in DataContract (ordinal) order, nested ones too', () => {
    const answer = '{"receiptNo":7,"cuAccountID":1,"amount":1.00,"transactionOverrides":[{"userName":null,"amount":1.00,"cuTransactionOverrideID":3}]}';
    const xml = renderResponseBody(contract('ReceiptPaymentDto'), answer, 'xml', 'http://schemas.datacontract.org/2004/07/Core.Dto');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto xmlns="http://schemas.datacontract.org/2004/07/Core.Dto" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">' +
        '<Amount>1.00</Amount><CUAccountID>1</CUAccountID><ReceiptNo>7</ReceiptNo>' +
        '<TransactionOverrides><TransactionOverrideDto><Amount>1.00</Amount><CUTransactionOverrideID>3</CUTransactionOverrideID><UserName i:nil="true"/></TransactionOverrideDto></TransactionOverrides>' +
        '</ReceiptPaymentDto>',
    );
    expect(renderResponseBody(contract('ReceiptPaymentDto'), '{}', 'xml', 'urn:a"b<c')).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ReceiptPaymentDto xmlns="urn:a&quot;b&lt;c"/>',
    );
  });

  it("orders a struct's XML members as it names them when it sets a DataContract order, and refuses an order that misses one", () => {
    const fields = { zeta: text('Zeta', 'z'), alpha: text('Alpha', 'a') };
    expect(struct('Ordered', 'test', fields, { dataContractOrder: ['zeta', 'alpha'] }).xmlOrdered.map((f) => f.json)).toEqual(['zeta', 'alpha']);
    expect(struct('Sorted', 'test', fields).xmlOrdered.map((f) => f.json)).toEqual(['alpha', 'zeta']);
    expect(() => struct('Bad', 'test', fields, { dataContractOrder: ['zeta'] })).toThrow(/every field once/);
  });

  it('writes an enum number the tables do not know as the number, and leaves out keys that are no XML name', () => {
    const xml = renderResponseBody(contract('ReceiptSavingsDepositWebDto'), '{"receiptType":99,"bad key":1,"__proto__":{"x":1},"Ünïcode":2}', 'xml');
    expect(xml).toBe(
      '<?xml version="1.0" encoding="utf-8"?><ReceiptSavingsDepositWebDto><ReceiptType>99</ReceiptType><__proto__><x>1</x></__proto__></ReceiptSavingsDepositWebDto>',
    );
  });

  it('answers FingerPrintURL as null where the core left it out, on the DTOs that carry it', () => {
    const answer = '{"receiptNo":7,"hasOverride":false}';
    expect(JSON.parse(renderAnswerForVendor(contract('ReceiptSavingsDepositWebDto'), answer, 'json'))).toEqual({
      receiptNo: 7,
      hasOverride: false,
      fingerPrintURL: null,
    });
    expect(renderAnswerForVendor(contract('ReceiptSavingsDepositWebDto'), answer, 'xml')).toContain('<FingerPrintURL i:nil="true"/>');
    expect(renderAnswerForVendor(contract('ReceiptPaymentDto'), answer, 'json')).not.toContain('fingerPrintURL');
    expect(JSON.parse(renderAnswerForVendor(contract('ReceiptSavingsDepositWebDto'), '{"FingerPrintURL":"https://fp"}', 'json'))).toEqual({
      fingerPrintURL: 'https://fp',
    });
  });

  it('renders the core answer for a vendor from one parse as from its text: secrets out, a __proto__ key kept as a plain key', () => {
    const answer = '{"receiptNo":7,"__proto__":{"x":1},"transactionOverrides":[{"overridePassword":"pw","code":2}],"postedBalance":1250.60}';
    const rendered = renderAnswerForVendor(contract('ReceiptPaymentDto'), answer, 'json');
    expect(rendered).toBe('{"receiptNo":7,"__proto__":{"x":1},"transactionOverrides":[{"code":2}],"postedBalance":1250.60}');
    expect(renderAnswerForVendor(contract('ReceiptPaymentDto'), answer, 'xml')).not.toContain('pw');
  });

  it('escapes text, keeps CR with a reference and replaces characters XML cannot carry', () => {
    const xml = renderResponseBody(contract('ReceiptPaymentDto'), '{"notes":"a<b & c>\\r\\n\\u0001"}', 'xml');
    expect(xml).toContain('<Notes>a&lt;b &amp; c&gt;&#13;\n\uFFFD</Notes>');
  });

  it('answers bad_gateway when the core sends something that is not a JSON object', () => {
    for (const answer of ['<html>oops</html>', '[1,2]', '"text"', '']) {
      expect(() => renderResponseBody(contract('ReceiptPaymentDto'), answer, 'xml')).toThrow(expect.objectContaining({ code: 'bad_gateway' }));
    }
  });
});

describe('exact decimals and account numbers', () => {
  const deposit = contract('ReceiptPaymentDto');

  it('takes XML 0.10 to the core as JSON 0.10 and back to XML 0.10', () => {
    const { coreJson } = decodeXml(deposit, '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>0.10</Amount></ReceiptPaymentDto>');
    expect(coreJson).toBe('{"cuAccountID":1,"amount":0.10}');
    expect(renderResponseBody(deposit, coreJson, 'xml')).toContain('<Amount>0.10</Amount>');
  });

  it('keeps 1234567890123456789012.3456 (26 significant digits) in both formats and both directions', () => {
    const big = '1234567890123456789012.3456';
    expect(decodeJson(deposit, `{"cuAccountID":1,"amount":${big}}`).coreJson).toBe(`{"cuAccountID":1,"amount":${big}}`);
    expect(decodeXml(deposit, `<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>${big}</Amount></ReceiptPaymentDto>`).coreJson).toContain(
      `"amount":${big}`,
    );
    expect(renderResponseBody(deposit, `{"amount":${big}}`, 'xml')).toContain(`<Amount>${big}</Amount>`);
    expect(renderResponseBody(deposit, `{"amount":${big}}`, 'json')).toBe(`{"amount":${big}}`);
  });

  it('keeps 28 significant digits', () => {
    const digits28 = '0.1234567890123456789012345678';
    expect(decodeJson(deposit, `{"cuAccountID":1,"amount":${digits28}}`).coreJson).toContain(`"amount":${digits28}`);
    expect(decodeXml(deposit, `<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>${digits28}</Amount></ReceiptPaymentDto>`).coreJson).toContain(
      `"amount":${digits28}`,
    );
  });

  it('takes CUAccountID 0 beside an account number as unset (a .NET int cannot be omitted), and 0 alone as account 0', () => {
    expect(
      decodeXml(deposit, '<ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>5</Amount><CUAccountID>0</CUAccountID></ReceiptPaymentDto>')
        .coreJson,
    ).toBe('{"accountNumber":"00012345","amount":5}');
    expect(decodeJson(deposit, '{"cuAccountID":0,"accountNumber":"00012345","amount":5}').coreJson).toBe('{"accountNumber":"00012345","amount":5}');
    expect(decodeJson(deposit, '{"cuAccountID":0,"amount":5}').coreJson).toBe('{"cuAccountID":0,"amount":5}');
  });

  it('keeps the leading zeros of account number 00012345 both ways', () => {
    const { coreJson } = decodeXml(deposit, '<ReceiptPaymentDto><AccountNumber>00012345</AccountNumber><Amount>5</Amount></ReceiptPaymentDto>');
    expect(coreJson).toBe('{"accountNumber":"00012345","amount":5}');
    expect(renderResponseBody(deposit, coreJson, 'xml')).toContain('<AccountNumber>00012345</AccountNumber>');
    expect(decodeJson(deposit, '{"accountNumber":"00012345","amount":5}').coreJson).toBe(coreJson);
  });

  it('refuses an account number sent as a JSON number, which would lose its zeros', () => {
    expect(fieldErrors(() => decodeJson(deposit, '{"accountNumber":12345,"amount":5}'))).toContainEqual({
      field: 'accountNumber',
      message: 'must be a string',
    });
  });
});

describe('validation rules', () => {
  const deposit = contract('ReceiptPaymentDto');
  const payment = contract('ReceiptSavingsDepositWebDto');
  const reversal = contract('ReceiptReversalWebDto');

  it("needs CUAccountID or AccountNumber, naming both in the request's own names", () => {
    expect(fieldErrors(() => decodeXml(deposit, '<ReceiptPaymentDto><Amount>1</Amount></ReceiptPaymentDto>'))).toEqual([
      { field: 'CUAccountID', message: 'give CUAccountID or AccountNumber' },
    ]);
    expect(fieldErrors(() => decodeJson(deposit, '{"amount":1,"accountNumber":"  "}'))).toEqual([
      { field: 'cuAccountID', message: 'give cuAccountID or accountNumber' },
    ]);
    expect(decodeJson(deposit, '{"amount":1,"cuAccountID":7}').coreJson).toBe('{"cuAccountID":7,"amount":1}');
  });

  it('needs a positive Amount', () => {
    expect(fieldErrors(() => decodeJson(deposit, '{"cuAccountID":1}'))).toEqual([{ field: 'amount', message: 'is required' }]);
    expect(fieldErrors(() => decodeJson(deposit, '{"cuAccountID":1,"amount":0.00}'))).toEqual([{ field: 'amount', message: 'must be greater than zero' }]);
    expect(fieldErrors(() => decodeXml(deposit, '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>-5.00</Amount></ReceiptPaymentDto>'))).toEqual([
      { field: 'Amount', message: 'must be greater than zero' },
    ]);
  });

  it('lets an adjustment (a ReceiptType marked adjustment) leave Amount out or make it negative, but needs its ReceiptNo', () => {
    expect(decodeJson(payment, '{"cuAccountID":1,"receiptType":4,"receiptNo":880001}').coreJson).toBe('{"cuAccountID":1,"receiptNo":880001,"receiptType":4}');
    expect(
      decodeXml(
        payment,
        '<ReceiptSavingsDepositWebDto><CUAccountID>1</CUAccountID><Amount>-2.50</Amount><ReceiptNo>9</ReceiptNo><ReceiptType>SavingsAdjustment</ReceiptType></ReceiptSavingsDepositWebDto>',
      ).coreJson,
    ).toBe('{"cuAccountID":1,"amount":-2.50,"receiptNo":9,"receiptType":4}');
    expect(fieldErrors(() => decodeJson(payment, '{"cuAccountID":1,"receiptType":5}'))).toEqual([
      { field: 'receiptNo', message: 'is required for an adjustment' },
    ]);
  });

  it("needs Notes on an adjustment when the core's setting says so", () => {
    const strict = createBodyContracts({ enums, adjustmentNotesRequired: true }).get('ReceiptSavingsDepositWebDto') as BodyContract;
    expect(fieldErrors(() => decodeJson(strict, '{"cuAccountID":1,"receiptType":4,"receiptNo":2}'))).toEqual([
      { field: 'notes', message: 'is required for an adjustment' },
    ]);
    expect(decodeJson(strict, '{"cuAccountID":1,"receiptType":4,"receiptNo":2,"notes":"fix"}').coreJson).toContain('"notes":"fix"');
  });

  it('needs ReceiptNo, LoanIssueReversalNotes (with its note) and LoanReversalOption for a reversal', () => {
    expect(fieldErrors(() => decodeXml(reversal, '<ReceiptReversalWebDto><CUAccountID>1</CUAccountID><Amount>1</Amount></ReceiptReversalWebDto>'))).toEqual([
      { field: 'LoanIssueReversalNotes', message: 'is required' },
      { field: 'LoanReversalOption', message: 'is required' },
      { field: 'ReceiptNo', message: 'is required for a reversal' },
    ]);
    expect(
      fieldErrors(() => decodeJson(reversal, '{"cuAccountID":1,"amount":1,"receiptNo":3,"loanReversalOption":1,"loanIssueReversalNotes":{"noteID":1}}')),
    ).toEqual([{ field: 'loanIssueReversalNotes.note', message: 'is required: say why the loan is reversed' }]);
  });

  it('needs OverrideUserName and OverridePassword together, never echoing the password', () => {
    const errors = fieldErrors(() =>
      decodeXml(deposit, '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><OverridePassword>hunter2</OverridePassword></ReceiptPaymentDto>'),
    );
    expect(errors).toEqual([{ field: 'OverrideUserName', message: 'is required when OverridePassword is given (both or neither)' }]);
    expect(JSON.stringify(errors)).not.toContain('hunter2');
    expect(decodeJson(deposit, '{"cuAccountID":1,"amount":1,"overrideUserName":"sup","overridePassword":"pw"}').coreJson).toContain('"overridePassword":"pw"');
  });

  it('ignores the read-only HasOverride, TransactionOverrides and FingerPrintURL on input', () => {
    const { coreJson, value } = decodeXml(
      payment,
      '<ReceiptSavingsDepositWebDto><CUAccountID>1</CUAccountID><Amount>1</Amount><HasOverride>true</HasOverride>' +
        '<TransactionOverrides><TransactionOverrideDto><Amount>oops</Amount></TransactionOverrideDto></TransactionOverrides>' +
        '<FingerPrintURL>https://x</FingerPrintURL></ReceiptSavingsDepositWebDto>',
    );
    expect(coreJson).toBe('{"cuAccountID":1,"amount":1}');
    expect(value).toEqual({ cuAccountID: 1, amount: expect.anything() });
  });

  it("lists every bad field in one problem, by path in the wire format's names", () => {
    const xmlErrors = fieldErrors(() =>
      decodeXml(
        payment,
        '<ReceiptSavingsDepositWebDto><CUAccountID>x</CUAccountID><Amount>1.5e3</Amount><DaysLate>1.5</DaysLate>' +
          '<Fees><FeeLineDto><Amount>ten</Amount></FeeLineDto><FeeLineDto><Paid>yes</Paid></FeeLineDto></Fees>' +
          '<ReceiptType>Deposit</ReceiptType><ArrearsDays><KeyValueOfintint><Key>a</Key><Value>1</Value></KeyValueOfintint></ArrearsDays>' +
          '<Surveys><SurveyDto><UDFLinks><UDFLinkDto><Mandatory>maybe</Mandatory></UDFLinkDto></UDFLinks></SurveyDto></Surveys></ReceiptSavingsDepositWebDto>',
      ),
    );
    expect(xmlErrors.map((e) => e.field)).toEqual([
      'CUAccountID',
      'Amount',
      'DaysLate',
      'Fees[0].Amount',
      'Fees[1].Paid',
      'ReceiptType',
      'ArrearsDays[0].Key',
      'Surveys[0].UDFLinks[0].Mandatory',
    ]);
    expect(xmlErrors.find((e) => e.field === 'ReceiptType')?.message).toBe(
      `must be one of the AWReceiptType names: ${enums.table('AWReceiptType').names.join(', ')}`,
    );

    const jsonErrors = fieldErrors(() =>
      decodeJson(payment, '{"cuAccountID":"1","amount":true,"fees":[{"amount":"1"}],"receiptType":"SavingsDeposit","arrearsDays":{"7":"x"}}'),
    );
    expect(jsonErrors.map((e) => e.field)).toEqual(['cuAccountID', 'amount', 'fees[0].amount', 'receiptType', 'arrearsDays.7']);
    expect(jsonErrors.find((e) => e.field === 'receiptType')?.message).toMatch(
      /^must be one of the AWReceiptType numbers: 0 \(SavingsDeposit\), 1 \(SavingsWithdrawal\)/,
    );
  });

  it('matches names case-insensitively in both formats and writes them canonically', () => {
    expect(decodeXml(deposit, '<receiptpaymentdto><cuaccountid>1</cuaccountid><AMOUNT>2.50</AMOUNT><payfee>true</payfee></receiptpaymentdto>').coreJson).toBe(
      '{"cuAccountID":1,"amount":2.50,"payFee":true}',
    );
    expect(decodeJson(deposit, '{"CUAccountID":1,"Amount":2.50,"PAYFEE":true}').coreJson).toBe('{"cuAccountID":1,"amount":2.50,"payFee":true}');
    expect(
      decodeXml(
        payment,
        '<ReceiptSavingsDepositWebDto><CUAccountID>1</CUAccountID><Amount>1</Amount><ReceiptType>loanrepayment</ReceiptType></ReceiptSavingsDepositWebDto>',
      ).coreJson,
    ).toContain(`"receiptType":${enums.table('AWReceiptType').valueOf('LoanRepayment')}`);
  });

  it('refuses a field given twice, also when the two spellings differ only in case', () => {
    expect(fieldErrors(() => decodeJson(deposit, '{"cuAccountID":1,"amount":1,"Amount":2}'))).toEqual([
      { field: 'amount', message: 'is given more than once' },
    ]);
    expect(
      fieldErrors(() => decodeXml(deposit, '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Amount>1</Amount></ReceiptPaymentDto>')),
    ).toEqual([{ field: 'Amount', message: 'is given more than once' }]);
  });

  it('keeps a one-element XML list a list, and an empty wrapper an empty list', () => {
    const one = decodeXml(
      payment,
      '<ReceiptSavingsDepositWebDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Fees><FeeLineDto><CUFeeID>5</CUFeeID></FeeLineDto></Fees><Accounts/></ReceiptSavingsDepositWebDto>',
    );
    expect(one.value.fees).toEqual([{ cuFeeID: 5 }]);
    expect(one.coreJson).toBe('{"cuAccountID":1,"amount":1,"accounts":[],"fees":[{"cuFeeID":5}]}');
  });

  it('refuses list items of the wrong element and text where elements belong', () => {
    expect(
      fieldErrors(() =>
        decodeXml(
          payment,
          '<ReceiptSavingsDepositWebDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Fees><Fee/></Fees><Principal>text</Principal></ReceiptSavingsDepositWebDto>',
        ),
      ),
    ).toEqual([
      { field: 'Fees[0]', message: 'must be a <FeeLineDto> element' },
      { field: 'Principal', message: 'must hold elements, not text' },
    ]);
  });

  it('names every JSON field it does not know in the 400, nested ones by their path, polluting nothing', () => {
    expect(fieldErrors(() => decodeJson(deposit, '{"cuAccountID":1,"amount":1,"__proto__":{"polluted":true},"constructor":1,"madeUp":"x"}'))).toEqual([
      { field: '__proto__', message: 'unknown field' },
      { field: 'constructor', message: 'unknown field' },
      { field: 'madeUp', message: 'unknown field' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(fieldErrors(() => decodeJson(payment, '{"cuAccountID":1,"amount":1,"fees":[{"amount":1,"amout":2}],"principal":{"nmae":"x"}}'))).toEqual([
      { field: 'fees[0].amout', message: 'unknown field' },
      { field: 'principal.nmae', message: 'unknown field' },
    ]);
  });

  it('takes camelCase and PascalCase names alike in JSON, and ignores read-only fields a round-tripping client sends back', () => {
    expect(decodeJson(deposit, '{"CUAccountID":1,"Amount":1,"ExternalRefNo":"A","hasOverride":false,"TransactionOverrides":[]}').coreJson).toBe(
      '{"cuAccountID":1,"amount":1,"externalRefNo":"A"}',
    );
  });

  it("ignores XML elements it does not know, as DataContractSerializer does, forwarding only the schema's", () => {
    expect(decodeXml(deposit, '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><MadeUp>x</MadeUp></ReceiptPaymentDto>').coreJson).toBe(
      '{"cuAccountID":1,"amount":1}',
    );
  });

  it('refuses the wrong root element and a JSON body that is not an object', () => {
    expect(() => decodeXml(deposit, '<ReceiptReversalWebDto/>')).toThrow('The XML root element must be <ReceiptPaymentDto>.');
    expect(() => decodeJson(deposit, '[1]')).toThrow('The JSON body must be a ReceiptPaymentDto object.');
  });

  it('reads CDATA literally and decodes references in text', () => {
    const { value } = decodeXml(
      deposit,
      '<ReceiptPaymentDto><CUAccountID>1</CUAccountID><Amount>1</Amount><Notes>&lt;b&gt; &#65;&#x42; <![CDATA[&amp; <raw>]]></Notes></ReceiptPaymentDto>',
    );
    expect(value.notes).toBe('<b> AB &amp; <raw>');
  });
});

describe('JSON syntax errors', () => {
  it('say where the body broke without quoting a broken number', () => {
    expect(() => parseJsonBody('{"overridePassword": 12ab}', 32)).toThrow(/^The JSON body is not well-formed: .*position \d+\.$/);
    try {
      parseJsonBody('{"overridePassword": 4242.x}', 32);
    } catch (err) {
      expect((err as GatewayError).detail).not.toContain('4242');
    }
    expect.assertions(2);
  });
});
