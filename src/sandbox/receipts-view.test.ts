import request from 'supertest';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

function deposit(app: ReturnType<typeof createSandboxApp>, externalRefNo: string, amount: string): request.Test {
  return request(app)
    .post('/api/transaction/savings/deposit')
    .set('content-type', 'application/json')
    .send(`{"cuAccountID":50001,"amount":${amount},"externalRefNo":"${externalRefNo}"}`);
}

describe('the sandbox receipts view', () => {
  it('lists the receipts the ledger posted, oldest first, amounts exact', async () => {
    const app = createSandboxApp({ data: createSandboxData(42) });
    expect((await request(app).get('/_sandbox/receipts').expect(200)).body).toEqual({ receipts: [] });
    await deposit(app, 'VIEW-1', '0.10').expect(201);
    await deposit(app, 'VIEW-2', '12.50').expect(201);
    // A repeat of an externalRefNo is refused by the ledger and posts nothing.
    await deposit(app, 'VIEW-1', '0.10').expect(409);
    const { receipts } = (await request(app).get('/_sandbox/receipts').expect(200)).body as {
      receipts: { externalRefNo: string; amount: string; accountId: number; kind: string }[];
    };
    expect(receipts.map((r) => [r.externalRefNo, r.amount, r.accountId, r.kind])).toEqual([
      ['VIEW-1', '0.10', 50001, 'deposit'],
      ['VIEW-2', '12.50', 50001, 'deposit'],
    ]);
  });

  it('filters by externalRefNo prefix', async () => {
    const app = createSandboxApp({ data: createSandboxData(42) });
    await deposit(app, 'RUN-A-1', '1.00').expect(201);
    await deposit(app, 'RUN-B-1', '1.00').expect(201);
    const { receipts } = (await request(app).get('/_sandbox/receipts?externalRefNoPrefix=RUN-B-').expect(200)).body as {
      receipts: { externalRefNo: string }[];
    };
    expect(receipts.map((r) => r.externalRefNo)).toEqual(['RUN-B-1']);
  });

  it('is read-only: other methods are the ordinary 404 of an unknown path', async () => {
    const app = createSandboxApp({ data: createSandboxData(42) });
    await request(app).post('/_sandbox/receipts').send('{}').expect(404);
  });
});
