import request from 'supertest';
import { RESOURCE_ROOTS } from '../catalogue/api-catalogue';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

/** Each test that writes gets its own data, so tests do not see each other's changes. */
function freshApp(): { app: ReturnType<typeof createSandboxApp>; data: ReturnType<typeof createSandboxData> } {
  const data = createSandboxData(42);
  return { app: createSandboxApp({ data }), data };
}

const json = (app: ReturnType<typeof createSandboxApp>, method: 'post' | 'put', path: string, body: string) =>
  request(app)[method](path).set('Content-Type', 'application/json').send(body);

describe('sandbox resource writes', () => {
  it('creates, reads, updates and deletes a record (POST, GET, PUT, DELETE round trip)', async () => {
    const { app, data } = freshApp();
    const created = await json(app, 'post', '/countrycodes', '{"Code":"FI","Country":"Finland"}').expect(201);
    const id = data.countryCodes.size;
    expect(created.body).toEqual({ Id: id, Code: 'FI', Country: 'Finland' });
    expect(created.headers.location).toBe(`/countrycodes/${id}`);

    expect((await request(app).get(`/countrycodes/${id}`).expect(200)).body).toEqual({ Id: id, Code: 'FI', Country: 'Finland' });
    const updated = await json(app, 'put', `/countrycodes/${id}`, '{"Country":"Suomi"}').expect(200);
    expect(updated.body).toEqual({ Id: id, Code: 'FI', Country: 'Suomi' });
    await request(app).delete(`/countrycodes/${id}`).expect(204);
    await request(app).get(`/countrycodes/${id}`).expect(404);
    await request(app).delete(`/countrycodes/${id}`).expect(404);
  });

  it('never reuses the id of a deleted record', async () => {
    const { app } = freshApp();
    const first = (await json(app, 'post', '/genders', '{"Name":"Agender"}').expect(201)).body as { Value: number };
    await request(app).delete(`/genders/${first.Value}`).expect(204);
    const second = (await json(app, 'post', '/genders', '{"Name":"Agender"}').expect(201)).body as { Value: number };
    expect(second.Value).toBe(first.Value + 1);
  });

  it('keeps a posted decimal exact, scale included', async () => {
    const { app } = freshApp();
    const account = (await request(app).get('/accounts/50001').expect(200)).body as Record<string, unknown>;
    delete account.id;
    const body = JSON.stringify(account).replace(/"balance":[^,]+/, '"balance":12345678901234567890.10');
    const created = await json(app, 'post', '/accounts', body).expect(201);
    expect(created.text).toContain('"balance":12345678901234567890.10');
    const id = (created.body as { id: number }).id;
    expect((await request(app).get(`/accounts/${id}`)).text).toContain('"balance":12345678901234567890.10');
    expect((await request(app).get('/customers/10001/accounts')).text).toContain('"balance":12345678901234567890.10');
  });

  it("posts a transaction onto an account, its Location the member's transactions that list it; a member's history is never replaced or erased (405)", async () => {
    const { app, data } = freshApp();
    const account = data.accounts.get(50001)!;
    const body = JSON.stringify({
      AccountId: 50001,
      ValueDate: '2025-06-30T12:00:00',
      Description: 'Cash deposit',
      Credit: true,
      IsFee: false,
      TransactionsTypeID: 2,
    }).replace('}', ',"Amount":10.00,"Balance":1.00}');
    const posted = await json(app, 'post', '/transactions', body).expect(201);
    const created = posted.body as { ReceiptNumber: number };
    expect(posted.headers.location).toBe(`/transactions/${account.customerId}`);
    const onAccount = (await request(app).get('/accounts/50001/transactions').expect(200)).body as Array<{ ReceiptNumber: number }>;
    expect(onAccount.at(-1)?.ReceiptNumber).toBe(created.ReceiptNumber);
    const ofMember = (
      await request(app)
        .get(posted.headers.location as string)
        .expect(200)
    ).body as Array<{ ReceiptNumber: number }>;
    expect(ofMember.map((t) => t.ReceiptNumber)).toContain(created.ReceiptNumber);

    for (const target of [account.customerId, created.ReceiptNumber]) {
      const put = await json(app, 'put', `/transactions/${target}`, '{"Description":"Cash deposit at Leeds"}').expect(405);
      expect(put.headers.allow).toBe('GET, HEAD');
      await request(app).delete(`/transactions/${target}`).expect(405);
    }
    const after = (await request(app).get('/accounts/50001/transactions').expect(200)).body as Array<{ ReceiptNumber: number; Description: string }>;
    expect(after.find((t) => t.ReceiptNumber === created.ReceiptNumber)?.Description).toBe('Cash deposit');
  });

  it('moves a record between indexes when its link changes', async () => {
    const { app } = freshApp();
    const before = ((await request(app).get('/customers/10001/accounts')).body as Array<{ id: number }>).length;
    await json(app, 'put', '/accounts/50001', '{"customerId":10004}').expect(200);
    expect(((await request(app).get('/customers/10001/accounts')).body as unknown[]).length).toBe(before - 1);
    const moved = (await request(app).get('/customers/10004/accounts')).body as Array<{ id: number }>;
    expect(moved.map((a) => a.id)).toContain(50001);
  });

  it('takes a person under the member number of an existing customer, once', async () => {
    const { app } = freshApp();
    const person = (await request(app).get('/people/10001').expect(200)).body as Record<string, unknown>;
    await json(app, 'post', '/people', JSON.stringify(person)).expect(409);
    await request(app).delete('/people/10001').expect(204);
    await request(app).get('/customers/10001/marketingpreferences').expect(404);
    await json(app, 'post', '/people', JSON.stringify({ ...person, MarketingPost: true })).expect(201);
    expect(((await request(app).get('/customers/10001/marketingpreferences').expect(200)).body as { MarketingPost: boolean }).MarketingPost).toBe(true);
    await json(app, 'post', '/people', JSON.stringify({ ...person, MemberId: 999 })).expect(400);
  });

  it('removes an optional field set to null', async () => {
    const { app } = freshApp();
    const thread = (await request(app).get('/messagethread/1').expect(200)).body as Record<string, unknown>;
    expect(thread).toHaveProperty('OpenDate');
    const updated = (await json(app, 'put', '/messagethread/1', '{"OpenDate":null}').expect(200)).body as Record<string, unknown>;
    expect(updated).not.toHaveProperty('OpenDate');
  });
});

describe('sandbox write validation', () => {
  const { app } = freshApp();

  it('lists every missing required field of a create', async () => {
    const response = await json(app, 'post', '/countrycodes', '{}').expect(400);
    expect((response.body as { errors: Array<{ field: string }> }).errors.map((e) => e.field).sort()).toEqual(['Code', 'Country']);
  });

  it.each([
    ['unknown field', '{"Code":"FI","Country":"Finland","Capital":"Helsinki"}', 'Capital'],
    ['field of the wrong case', '{"code":"FI","Country":"Finland","Code":"FI"}', 'code'],
    ['string where a string is not', '{"Code":5,"Country":"Finland"}', 'Code'],
    ['server-assigned id', '{"Id":7,"Code":"FI","Country":"Finland"}', 'Id'],
  ])('rejects a %s with a 400 naming the field', async (_case, body, field) => {
    const response = await json(app, 'post', '/countrycodes', body).expect(400);
    expect(response.body).toMatchObject({ status: 400, errors: expect.arrayContaining([expect.objectContaining({ field })]) });
  });

  it.each([
    ['balance', '"12.50"'],
    ['balance', '1e40'],
    ['status', '1.5'],
    ['status', '3000000000'],
    ['lockedAgainstNetShares', '"true"'],
    ['issueDate', '"2024-03-01T09:30:00+25:00"'],
    ['issueDate', '"2024-02-30T09:30:00"'],
    ['customerId', '424242'],
  ])('rejects %s = %s on update', async (field, value) => {
    const response = await json(app, 'put', '/accounts/50001', `{"${field}":${value}}`).expect(400);
    expect((response.body as { errors: Array<{ field: string }> }).errors[0]?.field).toBe(field);
  });

  it('takes a datetime as .NET writes it (fractions, Z, an offset) and keeps it in the core form', async () => {
    const response = await json(app, 'put', '/accounts/50001', '{"issueDate":"2024-03-01T09:30:00.1234567+01:00"}').expect(200);
    expect((response.body as { issueDate: string }).issueDate).toBe('2024-03-01T08:30:00');
  });

  it('rejects a body that does not match the id in the path', async () => {
    await json(app, 'put', '/accounts/50001', '{"id":50002}').expect(400);
  });

  it.each(['[1,2]', '"text"', '42', 'null'])('rejects the non-object body %s', async (body) => {
    await json(app, 'post', '/countrycodes', body).expect(400);
  });

  it('answers malformed JSON with a 400 problem, no stack trace', async () => {
    const response = await json(app, 'post', '/countrycodes', '{"Code":').expect(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400 });
    expect(response.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('answers a missing body with 400 and a non-JSON body with 415', async () => {
    await request(app).post('/countrycodes').expect(400);
    await request(app).post('/countrycodes').set('Content-Type', 'text/plain').send('Code=FI').expect(415);
  });

  it('answers a body over the size limit with 413', async () => {
    await json(app, 'post', '/countrycodes', JSON.stringify({ Code: 'FI', Country: 'x'.repeat(2_000_000) })).expect(413);
  });

  it.each(RESOURCE_ROOTS.filter(([root]) => root !== 'transactions').map(([root, idName]) => [root, idName] as const))(
    'routes every write of %s, with 404 for an unknown id',
    async (root, idName) => {
      const post = await json(app, 'post', `/${root}`, '{}').expect(400);
      expect((post.body as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
      const put = await json(app, 'put', `/${root}/987654321`, '{}').expect(404);
      expect((put.body as { detail: string }).detail).toMatch(/^no .* record/);
      await request(app).delete(`/${root}/987654321`).expect(404);
      const badId = await request(app).delete(`/${root}/x1`).expect(400);
      expect((badId.body as { errors: Array<{ field: string }> }).errors[0]?.field).toBe(idName);
    },
  );
});
