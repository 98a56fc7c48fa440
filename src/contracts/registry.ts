/**
 * The body schema registry: BodySchemaId → body contract, built once at start-up.
 *
 * Reads the enum tables and options it is given; returns the map the body step, the terminal
 * step (response translation) and the OpenAPI document use. A route whose catalogue
 * `bodySchema` has no entry here is not read by the body step (its body streams through).
 */
import type { BodySchemaId } from '../catalogue/catalogue';
import type { WireFormat } from '../pipeline/context';
import { bankAccountContracts } from './bank-accounts';
import type { BodyContract, BodyContracts } from './body-contract';
import { receiptContract, type ReceiptContractOptions } from './receipt-contracts';
import { ReceiptPaymentDto, ReceiptReversalWebDto, ReceiptSavingsDepositWebDto } from './receipts';

export type BodyContractOptions = ReceiptContractOptions;

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
export function renderResponseBody(contract: BodyContract, coreText: string, format: WireFormat): string {
  return contract.renderResponse ? contract.renderResponse(coreText, format) : coreText;
}
