import request from 'supertest';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

function freshApp() {
  const data = createSandboxData(42);
  return { data, app: createSandboxApp({ data }) };
}

const CUSTOMER = 10001;
const body = { CustomerId: CUSTOMER, PersonId: CUSTOMER, Name: 'A TESTER', AccountNumber: '87654321', SortCode: '20-00-00' };

describe('sandbox bank accounts: POST /bankaccounts/add', () => {
  it('opens an account for the customer, readable by id and in the customer list', async () => {
    const { app } = freshApp();
    const created = await request(app)
      .post('/bankaccounts/add')
      .send({ ...body, TwoFactorCode: '123456' })
      .expect(201);
    expect(created.body).toEqual({ Id: expect.any(Number), Name: 'A TESTER', AccountNumber: '87654321', DateClosed: null, SortCode: '200000' });
    expect(created.headers.location).toBe(`/bankaccounts/${created.body.Id}`);
    expect((await request(app).get(`/bankaccounts/${created.body.Id}`).expect(200)).body).toEqual(created.body);
    const list = (await request(app).get(`/customers/${CUSTOMER}/bankaccounts`).expect(200)).body as Array<{ Id: number }>;
    expect(list).toContainEqual(created.body);
    expect(JSON.stringify(list)).not.toContain('TwoFactorCode');
  });

  it('numbers new accounts above every seeded one', async () => {
    const { app, data } = freshApp();
    const highest = Math.max(...data.bankAccounts.list().map((h) => h.record.Id));
    expect((await request(app).post('/bankaccounts/add').send(body).expect(201)).body.Id).toBe(highest + 1);
  });

  it.each([
    [{ CustomerId: 999999 }, [{ field: 'CustomerId', message: 'no customer with number 999999' }]],
    [{ PersonId: 999999 }, [{ field: 'PersonId', message: 'no person with MemberId 999999' }]],
    [{ PersonId: 10004 }, [{ field: 'PersonId', message: 'person 10004 does not belong to customer 10001' }]],
  ])('refuses %j with a 400 naming the field', async (change, errors) => {
    const { app } = freshApp();
    const response = await request(app)
      .post('/bankaccounts/add')
      .send({ ...body, ...change })
      .expect(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.errors).toEqual(errors);
  });

  it('lists every bad or missing field', async () => {
    const { app } = freshApp();
    const response = await request(app)
      .post('/bankaccounts/add')
      .send({ CustomerId: CUSTOMER, PersonId: CUSTOMER, Name: ' ', AccountNumber: '1234567', SortCode: '12-3456' })
      .expect(400);
    expect(response.body.errors).toEqual([
      { field: 'Name', message: 'must be 1 to 100 characters' },
      { field: 'AccountNumber', message: 'must be exactly 8 digits' },
      { field: 'SortCode', message: 'must be 6 digits, e.g. 123456 or 12-34-56' },
    ]);
    const missing = await request(app).post('/bankaccounts/add').send({ CustomerId: CUSTOMER }).expect(400);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['AccountNumber', 'Name', 'PersonId', 'SortCode']);
  });

  it('refuses the same open account twice for one customer with 409', async () => {
    const { app } = freshApp();
    await request(app).post('/bankaccounts/add').send(body).expect(201);
    const response = await request(app)
      .post('/bankaccounts/add')
      .send({ ...body, SortCode: '200000' })
      .expect(409);
    expect(response.body.detail).toMatch(/already holds this account open/);
  });
});

describe('sandbox bank accounts: PUT /bankaccounts/{bankaccountid}', () => {
  async function opened() {
    const { app, data } = freshApp();
    const created = await request(app).post('/bankaccounts/add').send(body).expect(201);
    return { app, data, id: created.body.Id as number };
  }

  it('replaces the details and answers the record', async () => {
    const { app, id } = await opened();
    const response = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, Name: 'A B TESTER', SortCode: '309634' })
      .expect(200);
    expect(response.body).toEqual({ Id: id, Name: 'A B TESTER', AccountNumber: '87654321', DateClosed: null, SortCode: '309634' });
  });

  it('marks the account inactive with a DateClosed, keeps it closed when DateClosed is left out, and reopens it only on an explicit null', async () => {
    const { app, id } = await opened();
    const closed = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, DateClosed: '2025-07-01T10:00:00' })
      .expect(200);
    expect(closed.body.DateClosed).toBe('2025-07-01T10:00:00');
    expect((await request(app).get(`/bankaccounts/${id}`).expect(200)).body.DateClosed).toBe('2025-07-01T10:00:00');

    const renamed = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, Name: 'RENAMED' })
      .expect(200);
    expect(renamed.body).toMatchObject({ Name: 'RENAMED', DateClosed: '2025-07-01T10:00:00' });

    const reopened = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, DateClosed: null })
      .expect(200);
    expect(reopened.body.DateClosed).toBeNull();
  });

  it('lets a closed account be opened again as a new one, but not reopen it beside its twin', async () => {
    const { app, id } = await opened();
    await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, DateClosed: '2025-07-01T10:00:00' })
      .expect(200);
    await request(app).post('/bankaccounts/add').send(body).expect(201);
    await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, DateClosed: null })
      .expect(409);
  });

  it('refuses an unknown account, another customer, a bad DateClosed and a missing field', async () => {
    const { app, id } = await opened();
    await request(app).put('/bankaccounts/999999').send(body).expect(404);
    const other = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, CustomerId: 10004, PersonId: 10004 })
      .expect(400);
    expect(other.body.errors).toEqual([{ field: 'CustomerId', message: `bank account ${id} is not held by customer 10004` }]);
    const badDate = await request(app)
      .put(`/bankaccounts/${id}`)
      .send({ ...body, DateClosed: '2025-02-30' })
      .expect(400);
    expect(badDate.body.errors).toEqual([{ field: 'DateClosed', message: expect.stringContaining('datetime') }]);
    const { Name: _name, ...noName } = body;
    expect((await request(app).put(`/bankaccounts/${id}`).send(noName).expect(400)).body.errors).toEqual([{ field: 'Name', message: 'required' }]);
  });
});

describe('sandbox bank accounts: verification', () => {
  it('is not simulated: the gateway answers it and never forwards it', async () => {
    const { app } = freshApp();
    const response = await request(app).post('/bankaccounts/verification').send({ CustomerId: CUSTOMER, MobileNumber: '07400123456' }).expect(405);
    expect(response.headers.allow).toBe('GET, HEAD, PUT');
  });
});
