/** Config of the body step and the receipt contracts (config key `body`). */
import { z } from 'zod';

export const bodyConfigSchema = z
  .object({
    maxBytes: z.number().int().min(1024).default(65_536).describe('Largest request body of a receipt or bank-account operation, in bytes; larger → 413'),
    maxDepth: z.number().int().min(8).max(64).default(32).describe('Deepest nesting of XML elements or JSON objects and arrays; deeper → 400'),
    receiptEnumsFile: z
      .string()
      .min(1)
      .default('config/receipt-enums.yaml')
      .describe('Name ↔ number tables of the receipt enumerations (AWReceiptType, ProductTypes, LoanStatusReversalOptions)'),
    adjustmentNotesRequired: z.boolean().default(false).describe("Receipts of an adjustment type must carry Notes (mirror the core's system setting)"),
  })
  .strict();

export type BodyConfig = z.infer<typeof bodyConfigSchema>;
