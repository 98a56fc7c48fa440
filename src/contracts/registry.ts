/**
 * The body schema registry: BodySchemaId → body contract, built once at start-up.
 *
 * Reads the enum tables and options it is given; returns the map the body step, the terminal
 * step (response translation) and the OpenAPI document use. A route whose catalogue
 * `bodySchema` has no entry here is not read by the body step (its body streams through).
 */
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import type { BodySchemaId } from '../catalogue/api-catalogue';
import { bankAccountContracts } from './bank-accounts';
import type { BodyContract, BodyContracts, WireFormat } from './body-contract';
import { receiptContract, type ReceiptContractOptions } from './receipt-contracts';
import { ReceiptPaymentDto, ReceiptReversalWebDto, ReceiptSavingsDepositWebDto } from './receipts';

type BodyContractOptions = ReceiptContractOptions;

export function createBodyContracts(options: BodyContractOptions): BodyContracts {
  const contracts: BodyContract[] = [
    receiptContract(ReceiptPaymentDto, options),
    receiptContract(ReceiptSavingsDepositWebDto, options),
    receiptContract(ReceiptReversalWebDto, options),
    ...bankAccountContracts(),
  ];
  const registry = new Map<BodySchemaId, BodyContract>();
  for (const contract of contracts) {
    if (registry.has(contract.id)) throw new Error(`body schema ${contract.id} is registered twice`);
    registry.set(contract.id, contract);
  }
  return registry;
}

/**
 * The core's answer to a body-carrying operation, in the format the vendor negotiated.
 * Throws GatewayError `bad_gateway` when a translating contract gets an answer that is not a JSON object.
 */
export function renderResponseBody(contract: BodyContract, coreText: string, format: WireFormat, xmlNamespace = ''): string {
  return contract.renderResponse ? contract.renderResponse(coreText, format, xmlNamespace) : coreText;
}

/** Names (any case) whose values never go back to a vendor, even when the core echoes them. */
const SECRET_FIELDS = new Set(['overridepassword', 'temptoken', 'password']);

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (SECRET_FIELDS.has(name.toLowerCase())) continue;
    const field = withoutSecrets(record[name]);
    // A key named __proto__ stays a plain key (defineProperty); any other is the same own data property assigned.
    if (name === '__proto__') Object.defineProperty(out, name, { value: field, enumerable: true, writable: true, configurable: true });
    else out[name] = field;
  }
  return out;
}

/** The contract's always-answered fields the answer leaves out, added as null (FingerPrintURL). */
function withAnsweredFields(contract: BodyContract, value: unknown): unknown {
  const fields = contract.answeredFields ?? [];
  if (fields.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const present = new Set(Object.keys(value).map((name) => name.toLowerCase()));
  const missing = fields.filter((name) => !present.has(name.toLowerCase()));
  return missing.length === 0 ? value : { ...value, ...Object.fromEntries(missing.map((name) => [name, null])) };
}

/** What parseCoreAnswer gives for a text lossless-json cannot read. */
export const UNREADABLE = Symbol('unreadable');

/** The core's answer parsed once (numbers kept as their text), for renderParsedAnswerForVendor; UNREADABLE when it is not JSON. */
export function parseCoreAnswer(coreText: string): unknown {
  try {
    return parseLossless(coreText);
  } catch {
    return UNREADABLE;
  }
}

/**
 * The core's answer for a vendor: override passwords, TempTokens and the passwords of
 * transaction overrides removed (a core that echoes its input must not send them back, nor
 * into the stored replay copy), the fields every answer carries added as null when unset, then
 * rendered in the vendor's format (XML in `xmlNamespace`). Decimals stay exact.
 */
export function renderAnswerForVendor(contract: BodyContract, coreText: string, format: WireFormat, xmlNamespace = ''): string {
  const parsed = parseCoreAnswer(coreText);
  if (parsed === UNREADABLE) return renderResponseBody(contract, coreText, format, xmlNamespace);
  return renderParsedAnswerForVendor(contract, parsed, format, xmlNamespace);
}

/** renderAnswerForVendor for an answer already parsed by parseCoreAnswer: rendered from the value, not parsed again. */
export function renderParsedAnswerForVendor(contract: BodyContract, parsed: unknown, format: WireFormat, xmlNamespace = ''): string {
  const answer = withAnsweredFields(contract, withoutSecrets(parsed));
  return contract.renderValue ? contract.renderValue(answer, format, xmlNamespace) : (stringifyLossless(answer) as string);
}
