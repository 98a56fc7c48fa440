/**
 * Resource writes through the gateway to the sandbox core: a created record's Location is a
 * path of the gateway that a vendor can follow (the core's Location, kept within the core), and
 * /transactions/{memberId} means a member for every method (issue 13 point 8).
 */
import { TEST_ADMIN_TOKEN } from '../support/config';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

async function admin(gateway: TestGateway, method: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${gateway.adminPort}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

function vendor(gateway: TestGateway, method: string, path: string, body?: string): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
}

describe('resource writes through the gateway', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
    for (const api of ['POSTtransactions', 'PUTtransactions/{memberId}', 'DELETEtransactions/{memberId}', 'POSTcountrycodes']) {
      expect(await admin(gateway, 'POST', '/vendors/demo-vendor/licences', { api })).toBe(201);
      expect(await admin(gateway, 'POST', '/users/demo.teller/permissions', { api })).toBe(201);
    }
  });
  afterAll(() => gateway.stop());

  it('answers a created record with a Location the vendor can follow through the gateway', async () => {
    const created = await vendor(gateway, 'POST', '/countrycodes', '{"Code":"FI","Country":"Finland"}');
    expect(created.status).toBe(201);
    const location = created.headers.get('location') as string;
    expect(location).toMatch(/^\/countrycodes\/\d+$/);
    const followed = await vendor(gateway, 'GET', location);
    expect(followed.status).toBe(200);
    expect(await followed.json()).toMatchObject({ Code: 'FI', Country: 'Finland' });
  });

  it('posts a transaction whose Location lists the member’s transactions with it; PUT and DELETE on a member answer 405 and change nothing', async () => {
    const line =
      '{"AccountId":50001,"ValueDate":"2025-06-30T12:00:00","Description":"Cash deposit","Credit":true,"Amount":10.00,"Balance":1.00,"IsFee":false,"TransactionsTypeID":2}';
    const created = await vendor(gateway, 'POST', '/transactions', line);
    expect(created.status).toBe(201);
    const { ReceiptNumber } = (await created.json()) as { ReceiptNumber: number };
    const location = created.headers.get('location') as string;
    expect(location).toBe('/transactions/10001');
    const listed = (await (await vendor(gateway, 'GET', location)).json()) as Array<{ ReceiptNumber: number }>;
    expect(listed.map((t) => t.ReceiptNumber)).toContain(ReceiptNumber);

    for (const target of ['/transactions/10001', `/transactions/${ReceiptNumber}`]) {
      const put = await vendor(gateway, 'PUT', target, '{"Description":"changed"}');
      expect(put.status).toBe(405);
      expect(((await put.json()) as { code: string }).code).toBe('method_not_allowed');
      expect((await vendor(gateway, 'DELETE', target)).status).toBe(405);
    }
    const after = (await (await vendor(gateway, 'GET', '/accounts/50001/transactions')).json()) as Array<{ ReceiptNumber: number; Description: string }>;
    expect(after.find((t) => t.ReceiptNumber === ReceiptNumber)?.Description).toBe('Cash deposit');
  });
});
