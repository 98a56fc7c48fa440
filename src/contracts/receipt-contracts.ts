/**
 * The body contracts of the three receipt operations: JSON or XML in, canonical JSON to the
 * core, the core's JSON answer back in the vendor's format.
 *
 * Reads the enum tables and the adjustment-notes setting given at start-up. A decode reads
 * the body with its DTO schema, applies the spec's cross-field rules, and either returns the
 * canonical value and core JSON or throws one 400 `invalid_request` whose `errors[]` names
 * each bad field by its path in the request's own wire names (`Fees[0].Amount` in XML,
 * `fees[0].amount` in JSON).
 */
import { stringify as stringifyLossless } from 'lossless-json';
import { GatewayError, type FieldError } from '../errors/error-catalogue';
import { structSchemaRef } from './dto-openapi';
import { readXmlStruct } from './dto-xml-reader';
import { XmlWriter } from './dto-xml-writer';
import { InvalidBodyError, type BodyContract, type DecodedBody, type OpenApiSchema, type ParsedDocument, type WireFormat } from './body-contract';
import type { ReceiptEnums } from './enums';
import { coreObject, knownFieldsOnly, parseCoreJson, readJsonStruct, renderJson, writeCanonicalJson } from './json-codec';
import type { ReadContext } from './reading';
import { receiptRules, type ReceiptStruct } from './receipts';
import { fieldNamed, wirePath } from './dto-schema';

export interface ReceiptContractOptions {
  readonly enums: ReceiptEnums;
  /** The core's "notes mandatory for adjustments" system setting. */
  readonly adjustmentNotesRequired: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `CUAccountID: 0` beside an account number is a .NET `int` left unset, not account 0: the spec
 * lets CUAccountID be omitted when AccountNumber is given, and .NET cannot omit an int.
 */
function withoutUnsetAccountId(value: Record<string, unknown>): Record<string, unknown> {
  const accountId = value.cuAccountID as { toString(): string } | undefined;
  const accountNumber = value.accountNumber;
  if (accountId === undefined || String(accountId) !== '0' || typeof accountNumber !== 'string' || accountNumber.trim() === '') return value;
  const { cuAccountID: _unset, ...rest } = value;
  return rest;
}

/** Fields the spec says every answer carries, null when unset. */
const ANSWERED_EVEN_WHEN_NULL = ['fingerPrintURL'];

export function receiptContract(struct: ReceiptStruct, options: ReceiptContractOptions): BodyContract {
  const xmlWriter = new XmlWriter(options.enums);
  const wireNames: Record<WireFormat, (jsonName: string) => string> = {
    json: (jsonName) => jsonName,
    xml: (jsonName) => struct.fields[jsonName as keyof typeof struct.fields]?.xml ?? jsonName,
  };

  function read(document: ParsedDocument, ctx: ReadContext): Record<string, unknown> {
    if (document.format === 'json') {
      if (!isObject(document.json)) throw new GatewayError('invalid_request', `The JSON body must be a ${struct.name} object.`);
      return readJsonStruct(struct, document.json, [], ctx) ?? {};
    }
    if (document.xml.name.toLowerCase() !== struct.name.toLowerCase()) {
      throw new GatewayError('invalid_request', `The XML root element must be <${struct.name}>.`);
    }
    return readXmlStruct(struct, document.xml.children, [], ctx);
  }

  function render(answer: Record<string, unknown>, format: WireFormat, xmlNamespace: string): string {
    return format === 'xml' ? xmlWriter.document(struct, answer, xmlNamespace) : renderJson(struct, answer);
  }

  return {
    id: struct.name as BodyContract['id'],
    formats: ['json', 'xml'],
    refusesAsBody: true,
    answeredFields: ANSWERED_EVEN_WHEN_NULL.filter((name) => fieldNamed(struct, name) !== undefined),

    decode(document: ParsedDocument): DecodedBody {
      const ctx: ReadContext = { enums: options.enums, issues: [] };
      const value = withoutUnsetAccountId(read(document, ctx));
      const errors: FieldError[] = ctx.issues.map((issue) => ({ field: wirePath(struct, issue.path, document.format), message: issue.message }));
      const violations = receiptRules(struct, value as Parameters<typeof receiptRules>[1], options);
      if (violations.length > 0) {
        // A field that already failed its type is not reported again by a rule (e.g. "required").
        const failed = new Set(ctx.issues.map((issue) => issue.path[0]));
        for (const violation of violations) {
          if (!failed.has(violation.path[0]))
            errors.push({ field: wirePath(struct, violation.path, document.format), message: violation.message(wireNames[document.format]) });
        }
      }
      if (errors.length > 0) {
        throw new InvalidBodyError(`The ${struct.name} body has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors, value);
      }
      return { value, coreJson: writeCanonicalJson(struct, value) };
    },

    renderResponse(coreText: string, format: WireFormat, xmlNamespace: string): string {
      return render(parseCoreJson(coreText), format, xmlNamespace);
    },

    renderValue(answer: unknown, format: WireFormat, xmlNamespace: string): string {
      return render(coreObject(answer), format, xmlNamespace);
    },

    refusalAnswer(coreText: string): string | null {
      let answer: Record<string, unknown>;
      try {
        answer = parseCoreJson(coreText);
      } catch {
        return null;
      }
      const receipt = knownFieldsOnly(struct, answer);
      const isReceipt = typeof receipt.errorMessage === 'string' || Array.isArray(receipt.transactionOverrides);
      return isReceipt ? (stringifyLossless(receipt) as string) : null;
    },

    describe(components: Record<string, OpenApiSchema>): OpenApiSchema {
      return structSchemaRef(struct, options.enums, components);
    },
  };
}
