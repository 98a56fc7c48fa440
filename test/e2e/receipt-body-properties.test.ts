/**
 * Property-based tests (fast-check) of the receipt translation and the body step:
 * - any valid DTO, generated from its own schema, survives JSON → XML → JSON and JSON → JSON
 *   unchanged (the core receives byte-identical canonical JSON);
 * - any byte string, and any mutation of a golden fixture, decoded in-process fails only with
 *   a 4xx GatewayError, never anything else;
 * - any byte string POSTed to the body step in a real Express app on a loopback socket, under
 *   any of the media types, never gets a 5xx.
 * Run counts are fixed below (and printed in the report), so a run is bounded.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import { RouteMatcher } from '../../src/catalogue/matcher';
import { ROUTES } from '../../src/catalogue/api-catalogue';
import type { BodyContract } from '../../src/contracts/body-contract';
import { loadReceiptEnums } from '../../src/contracts/enums';
import { parseJsonBody, writeCanonicalJson } from '../../src/contracts/json-codec';
import { ReceiptReversalWebDto, RECEIPT_STRUCTS, type ReceiptStruct } from '../../src/contracts/receipts';
import { createBodyContracts, renderResponseBody } from '../../src/contracts/registry';
import type { AnyStruct, FieldSpec } from '../../src/contracts/dto-schema';
import { GatewayError } from '../../src/errors/error-catalogue';
import { createLogger } from '../../src/logging/logger';
import { createErrorHandler } from '../../src/request/error-handler';
import { BodyParser, body } from '../../src/policies/body/body';
import { bodyConfigSchema } from '../../src/policies/body/body.schema';
import { requestContext } from '../../src/policies/request-context/request-context';
import { requestContextSchema } from '../../src/policies/request-context/request-context.schema';
import { routeMatch } from '../../src/policies/route-match/route-match';
import { SafeXmlParser } from '../../src/xml/safe-xml';

const ROUND_TRIP_RUNS = 400;
const DECODE_FUZZ_RUNS = 3000;
const MUTATION_FUZZ_RUNS = 3000;
const HTTP_FUZZ_RUNS = 400;

const enums = loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml'));
const contracts = createBodyContracts({ enums, adjustmentNotesRequired: false });
const xmlParser = new SafeXmlParser(32);
const contractOf = (struct: ReceiptStruct): BodyContract => contracts.get(struct.name as BodyContract['id']) as BodyContract;

/** Characters XML can carry, weighted towards the ones that need escaping or could be mangled. */
const textUnit = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => !/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u.test(c)),
  },
  { weight: 1, arbitrary: fc.constantFrom('&', '<', '>', '"', "'", '\r', '\n', '\r\n', '\t', ' ', ']]>', '&amp;', '&#65;', '<![CDATA[', '0') },
);
const text = fc.string({ unit: textUnit, maxLength: 12 });

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), minLength: min, maxLength: max });

/** Decimal text in JSON number syntax, within .NET decimal's bounds (at most 28 digits in all). */
const decimalText = fc
  .tuple(fc.boolean(), fc.constantFrom('0', '1', '9'), digits(0, 12), fc.option(digits(1, 15), { nil: undefined }))
  .map(([negative, lead, rest, fraction]) => `${negative ? '-' : ''}${lead === '0' ? '0' : lead + rest}${fraction === undefined ? '' : `.${fraction}`}`);
const positiveDecimal = fc
  .tuple(digits(0, 12), fc.option(digits(1, 15), { nil: undefined }))
  .map(([rest, fraction]) => new LosslessNumber(`1${rest}${fraction === undefined ? '' : `.${fraction}`}`));

const int32 = fc.integer({ min: -2147483648, max: 2147483647 });
const dateTimeText = fc
  .tuple(
    fc.integer({ min: 1900, max: 2099 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.option(fc.integer({ min: 0, max: 86399 }), { nil: undefined }),
  )
  .map(([y, m, d, seconds]) => {
    const date = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    if (seconds === undefined) return date;
    const hh = String(Math.floor(seconds / 3600)).padStart(2, '0');
    const mm = String(Math.floor((seconds % 3600) / 60)).padStart(2, '0');
    return `${date}T${hh}:${mm}:${String(seconds % 60).padStart(2, '0')}`;
  });

function fieldValue(spec: FieldSpec, depth: number): fc.Arbitrary<unknown> {
  switch (spec.kind) {
    case 'string':
      return text;
    case 'int':
      return int32;
    case 'decimal':
      return decimalText.map((t) => new LosslessNumber(t));
    case 'bool':
      return fc.boolean();
    case 'datetime':
      return dateTimeText;
    case 'binary':
      return fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64'));
    case 'enum':
      return fc.constantFrom(...enums.table(spec.enumName).entries.map((e) => e.value));
    case 'object':
      return structValue(spec.struct, depth + 1);
    case 'list':
      return fc.array(structValue(spec.struct, depth + 1), { maxLength: depth > 1 ? 1 : 2 });
    case 'intMap':
      return fc.dictionary(int32.map(String), int32, { maxKeys: 3 });
  }
}

/** Any value of a structure: each writable field present or not. */
function structValue(struct: AnyStruct, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const fields = struct.ordered.filter((f) => !f.spec.readOnly);
  return fc.record(Object.fromEntries(fields.map((f) => [f.json, fieldValue(f.spec, depth)])), { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A valid receipt: any structure value, fixed up to satisfy the spec's cross-field rules. */
function validReceipt(struct: ReceiptStruct): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      structValue(struct),
      int32,
      positiveDecimal,
      int32,
      text.filter((t) => t.trim() !== ''),
      fc.constantFrom(...enums.table('LoanStatusReversalOptions').entries.map((e) => e.value)),
    )
    .map(([value, accountId, amount, receiptNo, note, option]) => {
      const receipt: Record<string, unknown> = { ...value, cuAccountID: value.cuAccountID ?? accountId, amount, receiptNo: value.receiptNo ?? receiptNo };
      // CUAccountID 0 beside an account number means unset (a .NET int), so it would not survive a round trip.
      if (String(receipt.cuAccountID) === '0' && typeof receipt.accountNumber === 'string' && receipt.accountNumber.trim() !== '') receipt.cuAccountID = 1;
      if (receipt.overrideUserName === undefined) delete receipt.overridePassword;
      else receipt.overridePassword ??= 'pw';
      if (struct === ReceiptReversalWebDto) {
        receipt.loanIssueReversalNotes = { ...((value.loanIssueReversalNotes as Record<string, unknown> | undefined) ?? {}), note };
        receipt.loanReversalOption = option;
      }
      return receipt;
    });
}

describe('round trips of generated receipts', () => {
  it.each(RECEIPT_STRUCTS.map((s) => [s.name, s] as const))(
    `%s survives JSON → XML → JSON and JSON → JSON unchanged (${ROUND_TRIP_RUNS} runs)`,
    (_name, struct) => {
      const contract = contractOf(struct);
      fc.assert(
        fc.property(validReceipt(struct), (receipt) => {
          const coreJson = writeCanonicalJson(struct, receipt);
          const fromJson = contract.decode({ format: 'json', json: parseJsonBody(coreJson, 32) });
          expect(fromJson.coreJson).toBe(coreJson);
          const xml = renderResponseBody(contract, coreJson, 'xml');
          const fromXml = contract.decode({ format: 'xml', xml: xmlParser.parse(xml) });
          expect(fromXml.coreJson).toBe(coreJson);
          expect(renderResponseBody(contract, fromXml.coreJson, 'json')).toBe(coreJson);
        }),
        { numRuns: ROUND_TRIP_RUNS },
      );
    },
  );
});

const bodyParser = new BodyParser(32);

/** Decodes a body as the body step does; anything thrown must be a 4xx GatewayError. */
function decodeOrRefuse(contract: BodyContract, bytes: Uint8Array, format: 'json' | 'xml'): void {
  try {
    contract.decode(bodyParser.parse(bytes, format));
  } catch (err) {
    if (!(err instanceof GatewayError) || err.status >= 500) throw err;
  }
}

const FIXTURES = path.resolve(__dirname, '../fixtures/receipts');
const SEEDS = ['deposit', 'payment', 'reversal'].flatMap((name) =>
  (['xml', 'json'] as const).map((format) => ({ name, format, bytes: readFileSync(path.join(FIXTURES, `${name}.request.${format}`)) })),
);

/** A fixture with a few random splices: deletions, insertions of hostile fragments, byte flips. */
const mutatedFixture = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat({ max: 40 }),
        fc.oneof(
          fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
          fc
            .constantFrom(
              '<',
              '>',
              '</',
              '&',
              '&#',
              ';',
              '"',
              '{',
              '}',
              '[',
              ']',
              ',',
              ':',
              '<![CDATA[',
              ']]>',
              '<!DOCTYPE x>',
              '<__proto__>',
              '"__proto__":',
              '-',
              '.',
              'e9',
              '9'.repeat(40),
            )
            .map((s) => Buffer.from(s)),
        ),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([seed, splices]) => {
    let bytes = Buffer.from(seed.bytes);
    for (const [at, remove, insert] of splices) {
      const position = at % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, position), insert, bytes.subarray(Math.min(bytes.length, position + remove))]);
    }
    return { seed, bytes };
  });

describe('fuzzing the decoder in-process', () => {
  it(`refuses any byte string with a 4xx and nothing else (${DECODE_FUZZ_RUNS} runs)`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RECEIPT_STRUCTS),
        fc.constantFrom('json' as const, 'xml' as const),
        fc.uint8Array({ maxLength: 512 }),
        (struct, format, bytes) => {
          decodeOrRefuse(contractOf(struct), bytes, format);
        },
      ),
      { numRuns: DECODE_FUZZ_RUNS },
    );
  });

  it(`takes any mutation of a golden fixture to a valid receipt or a 4xx (${MUTATION_FUZZ_RUNS} runs)`, () => {
    const byName = { deposit: 'ReceiptPaymentDto', payment: 'ReceiptSavingsDepositWebDto', reversal: 'ReceiptReversalWebDto' } as const;
    fc.assert(
      fc.property(mutatedFixture, ({ seed, bytes }) => {
        decodeOrRefuse(contracts.get(byName[seed.name as keyof typeof byName]) as BodyContract, bytes, seed.format);
      }),
      { numRuns: MUTATION_FUZZ_RUNS },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('fuzzing the body step over HTTP', () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.use(requestContext(requestContextSchema.parse({})));
    app.use(routeMatch(new RouteMatcher(ROUTES)));
    app.use(body(bodyConfigSchema.parse({ maxBytes: 4096 }), { contracts, opaqueMaxBytes: 1024 * 1024, defaultXmlNamespace: '' }));
    app.use((_req, res) => {
      res.status(201).end();
    });
    app.use(createErrorHandler(createLogger('silent')));
    server = http.createServer({ keepAliveTimeout: 5000 }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  function post(target: string, contentType: string, bytes: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        url + target,
        { method: 'POST', headers: { 'content-type': contentType, 'content-length': bytes.length }, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(bytes);
    });
  }

  it(`never answers a byte string with a 5xx (${HTTP_FUZZ_RUNS} runs)`, async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/transaction/savings/deposit', '/api/transaction/savings/payment', '/api/transaction/loan/reversal'),
        fc.constantFrom(
          'application/json',
          'text/json',
          'application/xml',
          'text/xml',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
        ),
        fc.oneof(
          fc.uint8Array({ maxLength: 6000 }),
          mutatedFixture.map((m) => new Uint8Array(m.bytes)),
        ),
        async (target, contentType, bytes) => {
          const status = await post(target, contentType, bytes);
          statuses.add(status);
          expect(status).toBeLessThan(500);
        },
      ),
      { numRuns: HTTP_FUZZ_RUNS },
    );
    expect([...statuses].every((s) => [201, 400, 413, 415].includes(s))).toBe(true);
  });
});
