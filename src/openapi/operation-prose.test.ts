/** The reference's words: summaries and descriptions from the spec, vendor-facing tags, a sectioned opening, one key box per header, the casing rule on the records. */
import path from 'node:path';
import { ROUTES } from '../catalogue/api-catalogue';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false });
type Schema = Record<string, unknown>;

function documentFor(receiptTokenHeader = 'X-Vendor-Token'): OpenApiDocument {
  return buildOpenApiDocument({ routes: ROUTES, contracts, version: '1.0.0', tokenHeader: 'X-Vendor-Token', receiptTokenHeader });
}
const doc = documentFor();
const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
const operationOf = (p: string, method: string): Schema => doc.paths[p]?.[method] as Schema;
const schemas = (doc.components as { schemas: Record<string, { description?: string }> }).schemas;

describe('the reference written for people', () => {
  it('sums up each operation in words, not its method and path, and names its API id once in the description', () => {
    expect(operationOf('/accounts/{accountId}', 'get')).toMatchObject({ summary: 'Get an account', operationId: 'getAccountsByAccountId' });
    expect(operationOf('/accounts', 'get').summary).toBe('List accounts');
    expect(operationOf('/people', 'post').summary).toBe('Create a person');
    expect(operationOf('/api/transaction/savings/deposit', 'post').summary).toBe('Post a savings deposit');
    expect(operationOf('/bankaccounts/verification', 'post').summary).toBe('Send a verification code by SMS');
    expect(operationOf('/customers/{memberId}/accounts', 'get').summary).toBe("List a customer's accounts");
    for (const op of operations) {
      const apiId = op['x-api-id'] as string;
      expect({ apiId, summary: op.summary }).not.toEqual({ apiId, summary: expect.stringMatching(/\/|^(GET|POST|PUT|DELETE)\b/) });
      expect((op.description as string).split(apiId).length - 1).toBe(1);
    }
    expect(new Set(operations.map((op) => op.summary)).size).toBe(operations.length);
  });

  it('tells a vendor what a list without paged=true answers, and what a resource write may meet', () => {
    expect(operationOf('/accounts', 'get').description).toMatch(/Without paged=true the answer is every record/);
    const list = (operationOf('/accounts', 'get').responses as Record<string, { description: string }>)['200'];
    expect(list?.description).toMatch(/every record, however many/);
    expect(operationOf('/accounts/{accountId}', 'delete').description).toMatch(/read-only yet lists this operation/);
    expect(operationOf('/api/transaction/loan/reversal', 'post').description).toMatch(/hasOverride true.*Idempotency-Key/s);
  });

  it('describes each tag for a vendor, lists the receipts under receipts, and leaves no tag undescribed', () => {
    const tags = doc.tags as Array<{ name: string; description: string }>;
    const used = new Set(operations.flatMap((op) => op.tags as string[]));
    expect(tags.map((t) => t.name).sort()).toEqual([...used].sort());
    expect(tags[0]?.name).toBe('accounts');
    expect(used).not.toContain('api');
    expect(operationOf('/api/transaction/savings/deposit', 'post').tags).toEqual(['receipts']);
    for (const tag of tags) expect(tag.description).not.toMatch(/The spec's|paths that start/);
    expect(tags.find((t) => t.name === 'accounts')?.description).toMatch(/Fields are camelCase\.$/);
    expect(tags.find((t) => t.name === 'customers')?.description).toMatch(/Fields are PascalCase\.$/);
  });

  it('opens with four short linked sections instead of one paragraph', () => {
    const text = (doc.info as { description: string }).description;
    for (const [title, anchor] of [
      ['Get a sandbox key', 'get-a-sandbox-key'],
      ['Your first call', 'your-first-call'],
      ['Money movement and idempotency', 'money-movement-and-idempotency'],
      ['XML for .NET clients', 'xml-for-net-clients'],
    ]) {
      expect(text).toContain(`[${title}](#${anchor})`);
      expect(text).toContain(`<h2 id="${anchor}">${title}</h2>`);
    }
    expect(text).toContain('docs/vendor-guide.md');
    // No paragraph as long as the old opening's 185 words.
    for (const paragraph of text.split('\n\n')) expect(paragraph.split(/\s+/).length).toBeLessThan(90);
  });

  it('has one authorisation box per distinct header: the receipt rule on the one key when both headers are the same', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, { name: string; description: string }> }).securitySchemes;
    expect(Object.keys(schemes)).toEqual(['vendorToken']);
    expect(schemes.vendorToken?.description).toMatch(/receipt operations also need.*same header/);
    for (const op of operations) expect(op.security).toEqual([{ vendorToken: [] }]);
    // The same header in another letter case is the same header.
    expect(Object.keys((documentFor('x-vendor-token').components as { securitySchemes: object }).securitySchemes)).toEqual(['vendorToken']);
    const apart = (documentFor('X-Receipt-Token').components as { securitySchemes: Record<string, { name: string }> }).securitySchemes;
    expect(Object.values(apart).map((s) => s.name)).toEqual(['X-Vendor-Token', 'X-Receipt-Token']);
  });

  it("states on each record schema how its fields are cased, as the spec's tables give them", () => {
    expect(schemas.Account?.description).toMatch(/Field names are camelCase and case-sensitive/);
    expect(schemas.Customer?.description).toMatch(/Field names are PascalCase and case-sensitive/);
    expect(schemas.Person?.description).toMatch(/Field names are PascalCase/);
    expect(schemas.BankAccount?.description).toMatch(/Field names are PascalCase/);
    expect(schemas.ProductShare?.description).toMatch(/PascalCase \(but vendorConnectDestWithFeeID/);
    expect(schemas.Account?.description).toMatch(/accounts, addresses, banks and the receipts are camelCase/);
    expect(schemas.CustomerPage?.description).toMatch(/envelope's fields are camelCase/);
  });
});
