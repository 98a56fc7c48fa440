/**
 * The receipt enumerations (AWReceiptType, ProductTypes, LoanStatusReversalOptions): numbers
 * in JSON, names in XML. The spec does not list their values, so the name ↔ number tables
 * live in a YAML file (config/receipt-enums.yaml) that an admin extends without a code change.
 *
 * Reads that file once at start-up (`loadReceiptEnums`); a bad file stops the process with a
 * message naming the key. Exports the lookups the codecs and the OpenAPI document use.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { StartupError } from '../errors/startup-error';
import { ENUM_NAMES, type EnumName } from './dto-schema';

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const entrySchema = z
  .object({
    value: z.number().int().min(-2147483648).max(2147483647).describe('The number JSON carries'),
    name: z.string().regex(XML_NAME, 'must be a .NET identifier').describe('The name XML carries'),
    description: z.string().optional().describe('What the value means, for the OpenAPI document'),
    adjustment: z.boolean().optional().describe('AWReceiptType only: a receipt of this type is an adjustment (Amount optional, ReceiptNo required)'),
  })
  .strict();

function uniqueEntries(list: ReadonlyArray<z.infer<typeof entrySchema>>, ctx: z.RefinementCtx): void {
  const names = new Set<string>();
  const values = new Set<number>();
  list.forEach((entry, index) => {
    const lower = entry.name.toLowerCase();
    // Names match case-insensitively on input, so two names differing only in case would be ambiguous.
    if (names.has(lower)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `name ${entry.name} is listed twice (names are case-insensitive)` });
    if (values.has(entry.value)) ctx.addIssue({ code: 'custom', path: [index, 'value'], message: `value ${entry.value} is listed twice` });
    names.add(lower);
    values.add(entry.value);
  });
}

const tableSchema = z.array(entrySchema).min(1).superRefine(uniqueEntries);

const receiptEnumsFileSchema = z
  .object({
    AWReceiptType: tableSchema.describe('Receipt types (ReceiptType)'),
    ProductTypes: tableSchema.describe('Account product types (ProductTypeID)'),
    LoanStatusReversalOptions: tableSchema.describe('What a loan reversal does to the loan (LoanReversalOption)'),
  })
  .strict()
  .superRefine((file, ctx) => {
    for (const name of ENUM_NAMES) {
      if (name === 'AWReceiptType') continue;
      file[name].forEach((entry, index) => {
        if (entry.adjustment !== undefined)
          ctx.addIssue({ code: 'custom', path: [name, index, 'adjustment'], message: 'only AWReceiptType entries mark adjustments' });
      });
    }
  });

type ReceiptEnumsFile = z.infer<typeof receiptEnumsFileSchema>;

/** A start-up failure (exit 2): body.receiptEnumsFile cannot be read or is invalid. */
export class ReceiptEnumsError extends StartupError {
  override readonly name = 'ReceiptEnumsError';

  constructor(message: string) {
    super('receipt-enums', message);
  }
}

interface EnumEntry {
  readonly value: number;
  readonly name: string;
  readonly description: string | undefined;
}

/** One enumeration's table, with lookups in both directions. */
class EnumTable {
  private readonly byLowerName: ReadonlyMap<string, EnumEntry>;
  private readonly byValue: ReadonlyMap<number, EnumEntry>;
  /** For error messages and the OpenAPI document. */
  readonly names: readonly string[];

  constructor(
    readonly enumName: EnumName,
    readonly entries: readonly EnumEntry[],
  ) {
    this.byLowerName = new Map(entries.map((e) => [e.name.toLowerCase(), e]));
    this.byValue = new Map(entries.map((e) => [e.value, e]));
    this.names = Object.freeze(entries.map((e) => e.name));
  }

  /** The number for an XML name, matched case-insensitively; undefined when unknown. */
  valueOf(name: string): number | undefined {
    return this.byLowerName.get(name.toLowerCase())?.value;
  }

  nameOf(value: number): string | undefined {
    return this.byValue.get(value)?.name;
  }

  has(value: number): boolean {
    return this.byValue.has(value);
  }
}

export class ReceiptEnums {
  private readonly tables: ReadonlyMap<EnumName, EnumTable>;
  /** AWReceiptType values that make a receipt an adjustment. */
  readonly adjustmentReceiptTypes: ReadonlySet<number>;

  constructor(file: ReceiptEnumsFile) {
    this.tables = new Map(
      ENUM_NAMES.map((name) => [
        name,
        new EnumTable(
          name,
          file[name].map((e) => Object.freeze({ value: e.value, name: e.name, description: e.description })),
        ),
      ]),
    );
    this.adjustmentReceiptTypes = new Set(file.AWReceiptType.filter((e) => e.adjustment === true).map((e) => e.value));
  }

  table(name: EnumName): EnumTable {
    return this.tables.get(name) as EnumTable;
  }
}

/** Validates a parsed enum file; throws ReceiptEnumsError naming every bad key. */
export function receiptEnumsFrom(input: unknown, source = 'receipt enums'): ReceiptEnums {
  const result = receiptEnumsFileSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new ReceiptEnumsError(`${source}: invalid receipt enumerations:\n${problems.join('\n')}`);
  }
  return new ReceiptEnums(result.data);
}

/** Reads and validates the enum file at start-up. */
export function loadReceiptEnums(file: string): ReceiptEnums {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ReceiptEnumsError(`${file}: cannot read the receipt enumerations: ${(err as Error).message}`);
  }
  return receiptEnumsFrom(parsed, file);
}
