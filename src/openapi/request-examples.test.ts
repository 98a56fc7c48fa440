/**
 * Request examples in the document: in sandbox mode every parameter and JSON request body
 * carries one (XML bodies none: see request-examples.ts), `sort` lists the fields and `pageSize` the sandbox's bound, the
 * verification path comes before the add, and the document stays valid OpenAPI 3.1; with a real
 * core (no examples given) the document names no record, even when built after a sandbox one in
 * the same process (the shared parameter objects are copied, never changed).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ROUTES } from '../catalogue/api-catalogue';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { createSandboxData } from '../sandbox/data';
import { sandboxRequestExamples } from '../sandbox/request-examples';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import type { RequestExamples } from './request-examples';

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false });
const build = (requestExamples?: RequestExamples): OpenApiDocument =>
  JSON.parse(
    JSON.stringify(
      buildOpenApiDocument({
        routes: ROUTES,
        contracts,
        version: '1.0.0',
        tokenHeader: 'X-Vendor-Token',
        receiptTokenHeader: 'X-Vendor-Token',
        requestExamples,
      }),
    ),
  ) as OpenApiDocument;

type Schema = Record<string, unknown>;
const operations = (document: OpenApiDocument): Schema[] => Object.values(document.paths).flatMap((methods) => Object.values(methods));
const parametersOf = (op: Schema): Schema[] => (op.parameters as Schema[] | undefined) ?? [];
const mediaTypesOf = (op: Schema): Array<[string, Schema]> =>
  Object.entries((op.requestBody as { content?: Record<string, Schema> } | undefined)?.content ?? {});

const sandbox = build(sandboxRequestExamples(createSandboxData(42), { defaultPageSize: 20, maxPageSize: 100 }));
const realCore = build();

describe('request examples in the OpenAPI document', () => {
  it('gives every parameter and every JSON request body an example in sandbox mode', () => {
    const missing: string[] = [];
    for (const op of operations(sandbox)) {
      for (const parameter of parametersOf(op)) if (parameter.example === undefined) missing.push(`${String(op['x-api-id'])} ${String(parameter.name)}`);
      for (const [type, media] of mediaTypesOf(op)) {
        const isReceipt = (op['x-api-id'] as string).startsWith('POSTapi/');
        const isResourceWrite = !isReceipt && !(op['x-api-id'] as string).includes('bankaccounts');
        if (isResourceWrite) continue; // the record schema's own example; the demo key may not write records
        // XML text would not be the media type's schema (an object): linters call it an error.
        if (type.endsWith('xml')) expect(media.example).toBeUndefined();
        else if (media.example === undefined) missing.push(`${String(op['x-api-id'])} ${type}`);
      }
      for (const parameter of parametersOf(op)) if (parameter.in === 'path') expect(typeof parameter.example).toBe('string');
    }
    expect(missing).toEqual([]);
  });

  it('lists the fields sort takes and bounds pageSize by the sandbox, saying so', () => {
    const list = sandbox.paths['/customers']?.get as Schema;
    const sort = parametersOf(list).find((p) => p.name === 'sort') as { schema: { enum: string[] }; example: string };
    const pageSize = parametersOf(list).find((p) => p.name === 'pageSize') as { schema: { maximum: number }; example: number; description: string };
    expect(sort.schema.enum).toEqual(expect.arrayContaining(['Number', 'Name', 'OpenDate']));
    expect(sort.schema.enum).toContain(sort.example);
    expect(pageSize.schema.maximum).toBe(100);
    expect(pageSize.example).toBeLessThanOrEqual(100);
    expect(pageSize.description).toContain('1 to 100');
  });

  it('puts the verification before the add, whose code it sends, and says how the three bank-account examples go together', () => {
    const paths = Object.keys(sandbox.paths);
    expect(paths.indexOf('/bankaccounts/verification')).toBe(paths.indexOf('/bankaccounts/add') - 1);
    expect(Object.keys(realCore.paths)).toEqual(expect.arrayContaining(paths));
    expect(sandbox.paths['/bankaccounts/verification']?.post?.description).toMatch(/step 1 of 3/);
    expect(sandbox.paths['/bankaccounts/add']?.post?.description).toMatch(/step 2 of 3/);
    expect(sandbox.paths['/bankaccounts/{id}']?.put?.description).toMatch(/step 3 of 3/);
  });

  it('names no record with a real core, even when built after a sandbox document', () => {
    const withExamples = operations(realCore).flatMap((op) => [
      ...parametersOf(op).filter((p) => p.example !== undefined),
      ...mediaTypesOf(op).filter(([, media]) => media.example !== undefined),
    ]);
    expect(withExamples).toEqual([]);
    const sort = parametersOf(realCore.paths['/customers']?.get as Schema).find((p) => p.name === 'sort') as { schema: Schema; example?: unknown };
    expect([sort.schema.enum, sort.example]).toEqual([undefined, undefined]);
  });

  it('stays a valid OpenAPI 3.1 document', () => {
    const schema = JSON.parse(readFileSync(require.resolve('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json'), 'utf8')) as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('media-range', true);
    const validate = ajv.compile(schema);
    expect(validate(sandbox) ? [] : validate.errors).toEqual([]);
  });
});
