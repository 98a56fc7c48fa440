/** The OpenAPI document: valid OpenAPI 3.0, every catalogue route, receipt bodies in both media families. */
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import OpenAPISchemaValidator from 'openapi-schema-validator';
import type { OpenAPI } from 'openapi-types';
import { ROUTES } from '../catalogue/api-catalogue';
import { bankAccountContracts } from '../contracts/bank-accounts';
import type { BodyContract, BodyContracts } from '../contracts/body-contract';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { buildOpenApiDocument, openApiHandler, type OpenApiDocument } from './openapi';

const enums = loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml'));
const receiptContracts = createBodyContracts({ enums, adjustmentNotesRequired: false });

function documentFor(contracts: BodyContracts, receiptTokenHeader = 'X-Vendor-Token'): OpenApiDocument {
  return buildOpenApiDocument({ routes: ROUTES, contracts, version: '9.9.9', tokenHeader: 'X-Vendor-Token', receiptTokenHeader });
}

const validator = new OpenAPISchemaValidator({ version: 3 });
type Schema = Record<string, unknown>;
const doc = documentFor(receiptContracts);
const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
const operationOf = (p: string, method: string): Schema => doc.paths[p]?.[method] as Schema;

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', () => {
    expect(validator.validate(doc as unknown as OpenAPI.Document).errors).toEqual([]);
    expect(doc.openapi).toBe('3.0.3');
    expect((doc.info as Schema).version).toBe('9.9.9');
  });

  it('has one operation per catalogue route, its API id in x-api-id and a URL-safe operationId', () => {
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(operations.map((op) => op['x-api-id']).sort()).toEqual(ROUTES.map((r) => r.apiId).sort());
    for (const op of operations) expect(op.operationId).toMatch(/^[A-Za-z0-9]+$/);
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    expect(operationOf('/accounts/{accountId}', 'get')).toMatchObject({
      operationId: 'getAccountsByAccountId',
      'x-api-id': 'GETaccounts/{accountId}',
      parameters: [{ name: 'accountId', in: 'path', required: true }],
    });
    const search = operationOf('/accounts', 'get').parameters as Array<{ name: string }>;
    expect(search.map((p) => p.name)).toEqual(['sort', 'ascending', 'paged', 'page', 'pageSize']);
  });

  it('lists bank-account get and update under one path template, the update\'s parameter under the shared name', () => {
    expect(doc.paths['/bankaccounts/{bankaccountid}']).toBeUndefined();
    expect(operationOf('/bankaccounts/{id}', 'put')).toMatchObject({
      'x-api-id': 'PUTbankaccounts/{bankaccountid}',
      parameters: [expect.objectContaining({ name: 'id', in: 'path', description: 'The spec names this segment bankaccountid' })],
    });
  });

  it('writes nullable only beside a type, as OpenAPI 3.0 reads it (zod\'s nullable unions moved onto their alternatives)', () => {
    const misplaced: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}[${i}]`));
      else if (node !== null && typeof node === 'object') {
        const schema = node as Record<string, unknown>;
        if (schema.nullable === true && schema.type === undefined) misplaced.push(at);
        for (const [name, value] of Object.entries(schema)) walk(value, `${at}/${name}`);
      }
    };
    walk(documentFor(new Map<BodyContract['id'], BodyContract>([...receiptContracts, ...bankAccountContracts().map((c) => [c.id, c] as const)])), '');
    expect(misplaced).toEqual([]);
  });

  it('declares exactly the query parameters each route takes: the period on between, none on a money movement', () => {
    const between = operationOf('/transactions/{memberId}/between', 'get').parameters as Array<{ name: string; in: string }>;
    expect(between.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(['from', 'to']);
    const deposit = (operationOf('/api/transaction/savings/deposit', 'post').parameters ?? []) as Array<{ in: string }>;
    expect(deposit.filter((p) => p.in === 'query')).toEqual([]);
  });

  it.each([
    ['/api/transaction/savings/deposit', 'ReceiptPaymentDto'],
    ['/api/transaction/savings/payment', 'ReceiptSavingsDepositWebDto'],
    ['/api/transaction/loan/reversal', 'ReceiptReversalWebDto'],
  ])('describes %s with %s in JSON and XML, in and out', (p, dto) => {
    const op = operationOf(p, 'post') as { requestBody: { content: Record<string, { schema: { $ref: string } }> }; responses: Record<string, { content: Record<string, unknown> }>; parameters: Array<{ name: string }> };
    expect(op.requestBody.content).toEqual({
      'application/json': { schema: { $ref: `#/components/schemas/${dto}` } },
      'text/json': { schema: { $ref: `#/components/schemas/${dto}` } },
      'application/xml': { schema: { $ref: `#/components/schemas/${dto}Xml` } },
      'text/xml': { schema: { $ref: `#/components/schemas/${dto}Xml` } },
    });
    expect(Object.keys(op.responses['201']?.content ?? {})).toEqual(['application/json', 'text/json', 'application/xml', 'text/xml']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409', '413', '415', '422', '429', '502', '503', '504']));
    expect(op.parameters.map((x) => x.name)).toContain('Idempotency-Key');
    expect(schemas[`${dto}Xml`]?.xml).toEqual({ name: dto });
  });

  it('uses JSON names and enum numbers for JSON, .NET names, enum names and wrapped lists for XML', () => {
    const json = schemas.ReceiptSavingsDepositWebDto?.properties as Record<string, Schema>;
    const xml = schemas.ReceiptSavingsDepositWebDtoXml?.properties as Record<string, Schema>;
    expect(Object.keys(json)).toContain('cuAccountID');
    expect(Object.keys(xml)).toContain('CUAccountID');
    expect(json.receiptType).toMatchObject({ type: 'integer', enum: enums.table('AWReceiptType').entries.map((e) => e.value) });
    expect(xml.ReceiptType).toMatchObject({ type: 'string', enum: enums.table('AWReceiptType').names });
    expect(xml.Fees).toMatchObject({ type: 'array', xml: { name: 'Fees', wrapped: true }, items: { $ref: '#/components/schemas/FeeLineDtoXml' } });
    expect(schemas.FeeLineDtoXml?.xml).toEqual({ name: 'FeeLineDto' });
    expect(json.arrearsDays).toMatchObject({ type: 'object', additionalProperties: { type: 'integer' } });
    expect(xml.ArrearsDays).toMatchObject({ type: 'array', xml: { wrapped: true }, items: { xml: { name: 'KeyValueOfintint' } } });
    expect(json.amount).toMatchObject({ type: 'number', format: 'decimal' });
    expect(json.hasOverride).toMatchObject({ readOnly: true });
    expect(schemas.ReceiptReversalWebDto?.required).toEqual(['loanIssueReversalNotes', 'loanReversalOption']);
    expect(schemas.NotesXml?.properties).toHaveProperty('Timestamp', expect.objectContaining({ format: 'byte' }));
  });

  it('names each token header, and stays valid with the bank-account contracts registered', () => {
    const withBankAccounts = new Map<BodyContract['id'], BodyContract>([...receiptContracts, ...bankAccountContracts().map((c) => [c.id, c] as const)]);
    const full = documentFor(withBankAccounts, 'X-Receipt-Token');
    expect(validator.validate(full as unknown as OpenAPI.Document).errors).toEqual([]);
    expect((full.components as { securitySchemes: Schema }).securitySchemes).toEqual({
      vendorToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Vendor-Token' }),
      receiptToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Receipt-Token', description: expect.stringContaining('both headers') }),
    });
    // Configured apart, a receipt needs both keys; together, one header serves.
    expect((full.paths['/api/transaction/savings/deposit']?.post as { security: unknown }).security).toEqual([{ vendorToken: [], receiptToken: [] }]);
    expect((doc.paths['/api/transaction/savings/deposit']?.post as { security: unknown }).security).toEqual([{ vendorToken: [] }]);
    const add = full.paths['/bankaccounts/add']?.post as { requestBody: { content: Record<string, unknown> } };
    expect(add.requestBody.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/BankAccountAdd' } } });
  });

  it('is served by its handler as JSON, to any origin, with an ETag that answers 304', async () => {
    const app = express();
    app.get('/openapi.json', openApiHandler(doc));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const etag = res.headers.get('etag') as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
