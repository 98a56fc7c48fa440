/** The OpenAPI document: valid OpenAPI 3.1, every catalogue route, typed records, receipt bodies in both media families under one schema. */
import http from 'node:http';
import path from 'node:path';
import express from 'express';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ROUTES } from '../catalogue/api-catalogue';
import { bankAccountContracts } from '../contracts/bank-accounts';
import type { BodyContract, BodyContracts } from '../contracts/body-contract';
import { loadReceiptEnums } from '../contracts/enums';
import { createBodyContracts } from '../contracts/registry';
import { createSandboxData } from '../sandbox/data';
import { openApiExamples } from '../sandbox/examples';
import { createForwardedResolver } from '../core-client/forwarded';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { publicFileRoutes } from './public-file';
import { servedOpenApiDocument } from './served-document';

const enums = loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml'));
const receiptContracts = createBodyContracts({ enums, adjustmentNotesRequired: false });

function documentFor(contracts: BodyContracts, receiptTokenHeader = 'X-Vendor-Token'): OpenApiDocument {
  return buildOpenApiDocument({ routes: ROUTES, contracts, version: '9.9.9', tokenHeader: 'X-Vendor-Token', receiptTokenHeader });
}

// The OpenAPI Initiative's JSON Schema of OpenAPI 3.1 documents (a copy ships in @seriousme/openapi-schema-validator).
const oas31 = JSON.parse(readFileSync(require.resolve('@seriousme/openapi-schema-validator/schemas/v3.1/schema.json'), 'utf8')) as object;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('media-range', true);
const validateOpenApi31 = ajv.compile(oas31);
function validationErrors(document: OpenApiDocument): unknown {
  return validateOpenApi31(JSON.parse(JSON.stringify(document))) ? [] : validateOpenApi31.errors;
}
type Schema = Record<string, unknown>;
const doc = documentFor(receiptContracts);
const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
const operationOf = (p: string, method: string): Schema => doc.paths[p]?.[method] as Schema;

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', () => {
    expect(validationErrors(doc)).toEqual([]);
    expect(doc.openapi).toBe('3.1.1');
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

  it("lists bank-account get and update under one path template, the update's parameter under the shared name", () => {
    expect(doc.paths['/bankaccounts/{bankaccountid}']).toBeUndefined();
    expect(operationOf('/bankaccounts/{id}', 'put')).toMatchObject({
      'x-api-id': 'PUTbankaccounts/{bankaccountid}',
      parameters: [expect.objectContaining({ name: 'id', in: 'path', description: 'The spec names this segment bankaccountid' })],
    });
  });

  it('writes a nullable value as a type union, as OpenAPI 3.1 reads it (no 3.0 nullable keyword anywhere)', () => {
    const withNullable: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}[${i}]`));
      else if (node !== null && typeof node === 'object') {
        if ('nullable' in node) withNullable.push(at);
        for (const [name, value] of Object.entries(node)) walk(value, `${at}/${name}`);
      }
    };
    walk(documentFor(new Map<BodyContract['id'], BodyContract>([...receiptContracts, ...bankAccountContracts().map((c) => [c.id, c] as const)])), '');
    expect(withNullable).toEqual([]);
    expect((schemas.BankAccount?.properties as Record<string, Schema>).DateClosed).toMatchObject({ type: ['string', 'null'] });
  });

  it("types every record with the spec's names and types: int32, int64, exact decimals, datetimes without offset, optional fields not required", () => {
    const account = schemas.Account as { properties: Record<string, Schema>; required: string[] };
    expect(account.properties.id).toMatchObject({ type: 'integer', format: 'int32', readOnly: true });
    expect(account.properties.balance).toMatchObject({ type: 'number', format: 'decimal' });
    expect(account.properties.balanceDate).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(new RegExp(account.properties.balanceDate?.pattern as string).test('2025-06-16T14:44:31')).toBe(true);
    expect(new RegExp(account.properties.balanceDate?.pattern as string).test('2025-06-16T14:44:31Z')).toBe(false);
    const thread = schemas.MessageThread as { properties: Record<string, Schema>; required: string[] };
    expect(thread.properties.CustomerId).toMatchObject({ type: 'integer', format: 'int64' });
    expect(thread.required).not.toContain('ClosedDate');
    expect(thread.required).toContain('Subject');
    // A person's MemberId is named by the client, so it is not read-only.
    expect((schemas.Person?.properties as Record<string, Schema>).MemberId).not.toHaveProperty('readOnly');
  });

  it('answers each route with its record, list or envelope: SEARCH a list or a page, banks always a page, DELETE 204, POST 201 with Location', () => {
    const responses = (p: string, method: string): Record<string, Schema> => operationOf(p, method).responses as Record<string, Schema>;
    const json = (response: Schema | undefined): unknown => (response?.content as Record<string, { schema: unknown }>)['application/json']?.schema;
    expect(json(responses('/accounts', 'get')['200'])).toEqual({
      oneOf: [{ type: 'array', items: { $ref: '#/components/schemas/Account' } }, { $ref: '#/components/schemas/AccountPage' }],
    });
    expect(json(responses('/banks', 'get')['200'])).toEqual({ $ref: '#/components/schemas/BankPage' });
    expect(json(responses('/customers/{memberId}/accounts', 'get')['200'])).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Account' } });
    expect(json(responses('/transactions/{memberId}/batchstatement', 'get')['200'])).toEqual({ $ref: '#/components/schemas/BatchStatement' });
    expect(responses('/accounts/{accountId}', 'delete')['204']).not.toHaveProperty('content');
    expect(responses('/accounts', 'post')['201']).toMatchObject({ headers: { Location: { $ref: '#/components/headers/Location' } } });
    expect(json(responses('/bankaccounts/verification', 'post')['200'])).toMatchObject({ properties: { status: { const: 'sent' } } });
    expect((operationOf('/accounts', 'post').requestBody as { content: Record<string, unknown> }).content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Account' } },
    });
  });

  it("gives every record schema an example from the sandbox's data in sandbox mode, each valid against its own schema", () => {
    const withExamples = buildOpenApiDocument({
      routes: ROUTES,
      contracts: receiptContracts,
      version: '9.9.9',
      tokenHeader: 'X-Vendor-Token',
      receiptTokenHeader: 'X-Vendor-Token',
      examples: openApiExamples(createSandboxData(42)),
    });
    const checker = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    checker.addSchema(JSON.parse(JSON.stringify(withExamples)) as object, 'doc');
    const records = [
      'Account',
      'Address',
      'Bank',
      'BankAccount',
      'Branch',
      'CountryCode',
      'Customer',
      'Employer',
      'Gender',
      'LoanProduct',
      'LoanReason',
      'LoanRepaymentPeriod',
      'Message',
      'MessageThread',
      'Person',
      'ProductShare',
      'Title',
      'Transaction',
    ];
    const components = (withExamples.components as { schemas: Record<string, { examples?: unknown[] }> }).schemas;
    for (const name of records) {
      const [example] = components[name]?.examples ?? [];
      expect({ name, example: example === undefined ? 'missing' : 'present' }).toEqual({ name, example: 'present' });
      const validate = checker.compile({ $ref: `doc#/components/schemas/${name}` });
      expect({ name, valid: validate(example), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
    }
    expect(schemas.Account).not.toHaveProperty('examples');
    // The document is keyless: the sandbox's realistic personal details are not published in it.
    expect(components.Person?.examples?.[0]).toMatchObject({ SocialSecurityNumber: 'QQ123456C', DateOfBirth: '1980-01-01T00:00:00', HealthDetails: '' });
    expect(components.BankAccount?.examples?.[0]).toMatchObject({ SortCode: '000000', AccountNumber: '00000000' });
  });

  it('lists the errors every operation shares once, as the default response, and on each operation only the statuses it adds', () => {
    const shared = (
      doc.components as { responses: Record<string, { description: string; headers: Record<string, unknown>; content: Record<string, { schema: unknown }> }> }
    ).responses;
    const codesOf = (name: string): unknown =>
      (shared[name]?.content['application/problem+json']?.schema as { allOf: Array<{ properties?: { code: { enum: string[] } } }> }).allOf[1]?.properties?.code
        .enum;
    const refName = (response: { $ref?: string } | undefined): string => (response?.$ref as string).split('/').pop() as string;
    // The default: every code any route can answer, each named in its description with its status.
    const common = ['invalid_request', 'unauthorized', 'licence_required', 'permission_denied', 'vendor_suspended', 'not_found', 'rate_limited'];
    expect(codesOf('Problem')).toEqual(expect.arrayContaining([...common, 'request_header_fields_too_large', 'internal_error', 'bad_gateway', 'core_timeout']));
    expect(codesOf('Problem')).not.toContain('two_factor_invalid');
    expect(shared.Problem?.description).toContain('- 403 `licence_required`');
    expect(Object.keys(shared.Problem?.headers ?? {})).toContain('Retry-After');
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    for (const op of operations) expect((op.responses as Record<string, unknown>).default).toEqual({ $ref: '#/components/responses/Problem' });

    // A GET of one record adds only 404; a list adds 400 for its query; nothing repeats 401, 403, 429 or 5xx.
    expect(Object.keys(operationOf('/accounts/{accountId}', 'get').responses as object)).toEqual(['200', '404', 'default']);
    expect(Object.keys(operationOf('/accounts', 'get').responses as object)).toEqual(['200', '400', 'default']);
    const history = operationOf('/transactions/{memberId}', 'delete').responses as Record<string, { $ref?: string }>;
    expect(Object.keys(history)).toEqual(['204', '404', '405', '409', '422', 'default']);
    expect(Object.keys(shared[refName(history['405'])]?.headers ?? {})).toContain('Allow');
    // Writes add 409 and 422; bank accounts their two-factor codes, with the statuses' common codes beside them.
    const add = operationOf('/bankaccounts/add', 'post').responses as Record<string, { $ref?: string }>;
    expect(Object.keys(add)).toEqual(['201', '400', '409', '413', '415', '422', '429', '502', '504', 'default']);
    expect(codesOf(refName(add['400']))).toEqual(['invalid_request', 'two_factor_invalid']);
    expect(codesOf(refName(add['429']))).toEqual(['rate_limited', 'two_factor_locked']);
    expect(codesOf(refName(add['409']))).toEqual(['idempotency_in_progress', 'outcome_unknown', 'conflict']);
    const verification = operationOf('/bankaccounts/verification', 'post').responses as Record<string, { $ref?: string }>;
    expect(codesOf(refName(verification['429']))).toEqual(['rate_limited', 'two_factor_locked', 'sms_rate_limited']);
    expect(codesOf(refName(verification['502']))).toEqual(['bad_gateway', 'sms_provider_failed']);
    // A money movement's 502 and 504 say the outcome is unknown and to check the account.
    expect(shared[refName(add['504'])]?.description).toMatch(/Check the account/);
    expect(operationOf('/accounts/{accountId}', 'get').responses).not.toHaveProperty('504');
    expect((schemas.Problem as { required: string[] }).required).toEqual(expect.arrayContaining(['code', 'requestId']));
  });

  it("shows each problem response with an example of its own first code, valid against the response's schema", () => {
    const checker = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    checker.addSchema(JSON.parse(JSON.stringify(doc)) as object, 'doc');
    const shared = (doc.components as { responses: Record<string, { content: Record<string, { example?: { code: string } }> }> }).responses;
    for (const [name, response] of Object.entries(shared)) {
      const example = response.content['application/problem+json']?.example;
      expect({ name, code: example?.code }).toEqual({ name, code: expect.any(String) });
      const validate = checker.compile({ $ref: `doc#/components/responses/${name}/content/application~1problem+json/schema` });
      expect({ name, valid: validate(example), errors: validate.errors ?? null }).toEqual({ name, valid: true, errors: null });
    }
    expect(shared.NotFound?.content['application/problem+json']?.example).toMatchObject({ code: 'not_found', status: 404, title: 'Not found' });
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
  ])('describes %s with one %s schema for JSON and XML, in and out', (p, dto) => {
    const op = operationOf(p, 'post') as {
      requestBody: { content: Record<string, { schema: { $ref: string } }> };
      responses: Record<string, { content: Record<string, unknown> }>;
      parameters: Array<{ name: string }>;
    };
    const ref = { schema: { $ref: `#/components/schemas/${dto}` } };
    expect(op.requestBody.content).toEqual({ 'application/json': ref, 'text/json': ref, 'application/xml': ref, 'text/xml': ref });
    expect(Object.keys(op.responses['201']?.content ?? {})).toEqual(['application/json', 'text/json', 'application/xml', 'text/xml']);
    expect(op.responses['400']?.content).toMatchObject({
      'application/problem+json': { schema: { $ref: '#/components/schemas/ReceiptRefusal' } },
      'application/xml': ref,
    });
    expect(op.responses['422']?.content).toMatchObject({ 'application/json': ref, 'application/problem+json': expect.anything() });
    expect(Object.keys(op.responses)).toEqual(['201', '400', '409', '413', '415', '422', '502', '504', 'default']);
    expect(op.parameters.map((x) => x.name)).toContain('Idempotency-Key');
    expect(schemas[dto]?.xml).toEqual({ name: dto });
    expect(schemas[`${dto}Xml`]).toBeUndefined();
  });

  it('names JSON members as properties and .NET members in xml objects, enums as numbers with their XML names beside them', () => {
    const receipt = schemas.ReceiptSavingsDepositWebDto?.properties as Record<string, Schema>;
    expect(receipt.cuAccountID).toMatchObject({ type: 'integer', xml: { name: 'CUAccountID' } });
    expect(receipt.receiptType).toMatchObject({
      type: 'integer',
      enum: enums.table('AWReceiptType').entries.map((e) => e.value),
      'x-enumNames': enums.table('AWReceiptType').names,
      xml: { name: 'ReceiptType' },
    });
    expect(receipt.fees).toMatchObject({ type: ['array', 'null'], xml: { name: 'Fees', wrapped: true }, items: { $ref: '#/components/schemas/FeeLineDto' } });
    expect(schemas.FeeLineDto?.xml).toEqual({ name: 'FeeLineDto' });
    expect(receipt.arrearsDays).toMatchObject({ type: ['object', 'null'], additionalProperties: { type: 'integer' }, xml: { name: 'ArrearsDays' } });
    expect(receipt.amount).toMatchObject({ type: 'number', format: 'decimal' });
    expect(receipt.hasOverride).toMatchObject({ readOnly: true });
    expect(schemas.ReceiptReversalWebDto?.required).toEqual(['loanIssueReversalNotes', 'loanReversalOption']);
    expect(schemas.Notes?.properties).toHaveProperty('timestamp', expect.objectContaining({ contentEncoding: 'base64', xml: { name: 'Timestamp' } }));
  });

  it('names each token header, and stays valid with the bank-account contracts registered', () => {
    const withBankAccounts = new Map<BodyContract['id'], BodyContract>([...receiptContracts, ...bankAccountContracts().map((c) => [c.id, c] as const)]);
    const full = documentFor(withBankAccounts, 'X-Receipt-Token');
    expect(validationErrors(full)).toEqual([]);
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

  it('is served by the public-file step as JSON, to any origin, with an ETag that answers 304', async () => {
    const app = express();
    app.use(publicFileRoutes([['/openapi.json', servedOpenApiDocument(doc, createForwardedResolver({ trustedProxies: [], publicUrl: null }))]]));
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // The document as built, with servers naming the listener it was asked on (served-document.test.ts: the other origins).
      expect(await res.json()).toEqual({
        ...(JSON.parse(JSON.stringify(doc)) as object),
        servers: [expect.objectContaining({ url: `http://127.0.0.1:${port}` })],
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const etag = res.headers.get('etag') as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      // Weak comparison, as RFC 9110 asks of If-None-Match, and `*`.
      for (const validator of [`W/${etag}`, `"other", ${etag}`, '*']) {
        expect((await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'If-None-Match': validator } })).status).toBe(304);
      }
      expect((await fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
      // Matched as an Express route would be (any case, one trailing slash); HEAD without a body; other methods go on.
      expect((await fetch(`http://127.0.0.1:${port}/OpenAPI.json/`)).status).toBe(200);
      const head = await fetch(`http://127.0.0.1:${port}/openapi.json`, { method: 'HEAD' });
      expect([head.status, await head.text(), head.headers.get('etag')]).toEqual([200, '', etag]);
      expect((await fetch(`http://127.0.0.1:${port}/openapi.json`, { method: 'POST' })).status).toBe(404);
      // Encoded once per encoding, each with its own validator; identity for a client that asks for it.
      const raw = (encoding: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> =>
        new Promise((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: '/openapi.json', headers: { 'Accept-Encoding': encoding } }, (answer) => {
              const chunks: Buffer[] = [];
              answer.on('data', (chunk: Buffer) => chunks.push(chunk));
              answer.on('end', () => resolve({ headers: answer.headers, body: Buffer.concat(chunks) }));
            })
            .on('error', reject);
        });
      const identity = await raw('identity');
      const gzipped = await raw('gzip');
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(gzipped.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
      expect(gzipped.headers.etag).not.toBe(identity.headers.etag);
      expect(gunzipSync(gzipped.body).equals(identity.body)).toBe(true);
      expect(gzipped.body.length).toBeLessThan(identity.body.length / 5);
      const preflight = await fetch(`http://127.0.0.1:${port}/openapi.json`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://docs.example', 'Access-Control-Request-Method': 'GET' },
      });
      expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, '*']);
      expect(await again.text()).toBe('');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
