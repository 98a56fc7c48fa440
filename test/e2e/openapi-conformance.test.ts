/**
 * The conformance check itself (test/support/openapi-conformance.ts): a problem status an operation
 * does not list passes through its `default` only with a code the default names, at that code's status.
 */
import path from 'node:path';
import { ROUTES } from '../../src/catalogue/api-catalogue';
import { loadReceiptEnums } from '../../src/contracts/enums';
import { createBodyContracts } from '../../src/contracts/registry';
import { buildOpenApiDocument } from '../../src/openapi/openapi';
import { OpenApiConformance } from '../support/openapi-conformance';

const document = buildOpenApiDocument({
  routes: ROUTES,
  contracts: createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false }),
  version: '1.0.0',
  tokenHeader: 'X-Vendor-Token',
  receiptTokenHeader: 'X-Vendor-Token',
});

function failuresOf(method: string, url: string, status: number, code: string): string[] {
  const conformance = new OpenApiConformance(JSON.parse(JSON.stringify(document)) as Record<string, unknown>, true);
  const body = { type: `https://errors.example/${code}`, title: 'A title', status, detail: 'A detail', code, requestId: 'req-1' };
  conformance.check({
    method,
    url,
    status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-1' },
    body: Buffer.from(JSON.stringify(body)),
  });
  return conformance.failures;
}

describe('the OpenAPI conformance check with a default response', () => {
  it('accepts a shared code at its own status through the default', () => {
    expect(failuresOf('GET', '/accounts/50001', 429, 'rate_limited')).toEqual([]);
    expect(failuresOf('GET', '/accounts/50001', 403, 'licence_required')).toEqual([]);
    expect(failuresOf('GET', '/accounts/50001', 404, 'not_found')).toEqual([]);
  });

  it('refuses a shared code at another status, and a code the operation does not answer', () => {
    expect(failuresOf('GET', '/accounts/50001', 418, 'rate_limited')).toEqual([expect.stringContaining('status 418 is not documented')]);
    expect(failuresOf('GET', '/accounts/50001', 409, 'conflict')).toEqual([expect.stringContaining('does not match')]);
    expect(failuresOf('GET', '/accounts/50001', 201, 'rate_limited')).toEqual([expect.stringContaining('status 201 is not documented')]);
  });
});
