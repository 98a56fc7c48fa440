/**
 * The sandbox's request examples: the gateway's own body contracts accept every body; sent in the catalogue's order to
 * a fresh sandbox core (its app over HTTP, as the gateway forwards them), every GET answers 200
 * and every write 2xx; the verification's number is the customer's own and consented to; the
 * list parameters stay within the sandbox's fields and page sizes; no two money movements share
 * a key or a reference.
 */
import path from 'node:path';
import request from 'supertest';
import { ROUTES, type Route } from '../catalogue/api-catalogue';
import { normaliseUkMobileNumber } from '../contracts/bank-accounts';
import type { BodyContract } from '../contracts/body-contract';
import { loadReceiptEnums } from '../contracts/enums';
import { parseJsonBody } from '../contracts/json-codec';
import { createBodyContracts } from '../contracts/registry';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';
import { sandboxRequestExamples } from './request-examples';

const contracts = createBodyContracts({ enums: loadReceiptEnums(path.resolve(__dirname, '../../config/receipt-enums.yaml')), adjustmentNotesRequired: false });
const limits = { defaultPageSize: 20, maxPageSize: 100 };
const examplesFor = (data = createSandboxData(42)) => sandboxRequestExamples(data, limits);

/** The route's path with its examples filled in, and its query. */
function target(route: Route, parameters: Readonly<Record<string, unknown>>): string {
  const filled = route.segments.map((segment) => (segment.startsWith('{') ? String(parameters[segment.slice(1, -1)]) : segment)).join('/');
  const query = new URLSearchParams(
    route.query.filter((q) => parameters[q.name] !== undefined).map((q): [string, string] => [q.name, String(parameters[q.name])]),
  );
  return `/${filled}${query.size > 0 ? `?${query}` : ''}`;
}

const bodyContract = (route: Route): BodyContract => contracts.get(route.bodySchema as NonNullable<Route['bodySchema']>) as BodyContract;
/** The body as the gateway reads it off the wire (numbers kept as their text). */
const wire = (body: unknown): { format: 'json'; json: unknown } => ({ format: 'json', json: parseJsonBody(JSON.stringify(body), 32) });

describe('sandbox request examples', () => {
  it('has an example for every path and query parameter, and for every body', () => {
    const examples = examplesFor();
    for (const route of ROUTES) {
      const parameters = examples.operations.get(route.apiId)?.parameters ?? {};
      const named = [...route.segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1)), ...route.query.map((q) => q.name)];
      expect([route.apiId, named.filter((name) => parameters[name] === undefined)]).toEqual([route.apiId, []]);
      if (route.movesMoney) expect(parameters['Idempotency-Key']).toEqual(expect.any(String));
      if (route.bodySchema) expect(examples.operations.get(route.apiId)?.body).toBeDefined();
    }
  });

  it("succeeds against a fresh sandbox core when every example is sent in the catalogue's order, each body as the gateway decodes it", async () => {
    const data = createSandboxData(42);
    const examples = examplesFor(data);
    const app = createSandboxApp({ data, ...limits });
    const failures: string[] = [];
    // Verification is the gateway's (never forwarded); the add whose code it sends goes after it there, and needs no core here.
    for (const route of ROUTES.filter((r) => !r.answeredByGateway && (r.method === 'GET' || r.bodySchema !== null))) {
      const example = examples.operations.get(route.apiId);
      const url = target(route, example?.parameters ?? {});
      const agent = request(app);
      const answer = example?.body
        ? await (route.method === 'PUT' ? agent.put(url) : agent.post(url))
            .set('Content-Type', 'application/json')
            .send(bodyContract(route).decode(wire(example.body)).coreJson)
        : await agent.get(url);
      if (answer.status < 200 || answer.status > 299) failures.push(`${route.apiId} ${url} → ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    // The update renamed the account the add created.
    const renamed = examples.operations.get('PUTbankaccounts/{bankaccountid}');
    expect(data.bankAccounts.get(Number(renamed?.parameters.bankaccountid))?.record.Name).toBe(renamed?.body?.Name);
  });

  it("sends the verification code to the customer's own consented mobile, for the destination the add then names with that code", () => {
    const data = createSandboxData(42);
    const examples = examplesFor(data);
    const verification = examples.operations.get('POSTbankaccounts/verification')?.body as Record<string, unknown>;
    const add = examples.operations.get('POSTbankaccounts/add')?.body as Record<string, unknown>;
    const customer = data.customers.get(verification.CustomerId as number);
    expect(customer?.SmsConsentGiven).toBe(true);
    const mobile = normaliseUkMobileNumber(verification.MobileNumber as string);
    const held = [customer?.Telephone1, customer?.Telephone2, customer?.Telephone3].map((phone) => `+${phone}`);
    expect(mobile.ok && held.includes(mobile.e164)).toBe(true);
    expect(add).toMatchObject({
      CustomerId: verification.CustomerId,
      AccountNumber: verification.AccountNumber,
      SortCode: verification.SortCode,
      TwoFactorCode: verification.Code,
    });
    expect(examples.pathsBefore).toContainEqual(['/bankaccounts/verification', '/bankaccounts/add']);
  });

  it('keeps sort to the fields the sandbox sorts by and pageSize within its bounds, as configured', () => {
    const examples = sandboxRequestExamples(createSandboxData(42), { defaultPageSize: 5, maxPageSize: 7 });
    const searches = ROUTES.filter((r) => r.search);
    expect(searches.length).toBeGreaterThan(16);
    for (const route of searches) {
      const parameters = examples.operations.get(route.apiId)?.parameters ?? {};
      expect(examples.sortFields.get(route.apiId)).toContain(parameters.sort);
      expect(parameters).toMatchObject({ paged: true, page: 1, pageSize: 7 });
    }
    expect(examples.pageSize).toEqual({ default: 5, max: 7 });
  });

  it('gives every money movement its own Idempotency-Key and ExternalRefNo', () => {
    const examples = examplesFor();
    const money = ROUTES.filter((r) => r.movesMoney).map((r) => examples.operations.get(r.apiId));
    const keys = money.map((m) => m?.parameters['Idempotency-Key']);
    const references = money.map((m) => m?.body?.externalRefNo).filter((ref) => ref !== undefined);
    expect(new Set(keys).size).toBe(money.length);
    expect(new Set(references).size).toBe(references.length);
    expect(references.length).toBe(3);
  });
});
