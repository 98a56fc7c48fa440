/**
 * Bank accounts with SMS two-factor verification, end to end through the gateway in sandbox
 * mode: verification (to the mobile the sandbox core holds for the customer) → code read from
 * the outbox at the admin API → add → list → close.
 */
import { latestCodeSentTo, readSmsOutbox } from '../../src/sms/outbox-client';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

describe('bank accounts with SMS two-factor verification', () => {
  let gateway: TestGateway;
  let adminUrl: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location'), body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };

  /** Customers who consented to SMS, with the mobile number (Telephone2) the core holds for each. */
  let members: number[];
  const mobiles = new Map<number, string>();
  const mobileOf = (customer: number): string => mobiles.get(customer) as string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    adminUrl = `http://127.0.0.1:${gateway.adminPort}`;
    const customers = (await call('GET', '/customers')).body as unknown as Array<{ Number: number; Telephone2: number; SmsConsentGiven: boolean }>;
    for (const customer of customers) if (customer.SmsConsentGiven) mobiles.set(customer.Number, `+${customer.Telephone2}`);
    members = [...mobiles.keys()];
  });
  afterAll(() => gateway.stop());

  it('adds a bank account with the code sent by SMS, lists it, and closes it with DateClosed', async () => {
    const customer = members[1] as number;
    const sent = await call('POST', '/bankaccounts/verification', { CustomerId: customer, MobileNumber: mobileOf(customer) });
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.body)).not.toMatch(/\d{6}/);
    const code = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(customer));

    const account = { CustomerId: customer, PersonId: customer, Name: 'J SMITH', AccountNumber: '12345678', SortCode: '20-00-00' };
    const added = await call('POST', '/bankaccounts/add', { ...account, TwoFactorCode: code }, { 'Idempotency-Key': 'add-e2e-1' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ Name: 'J SMITH', AccountNumber: '12345678', SortCode: '200000', DateClosed: null });
    const id = added.body?.Id as number;

    const listed = await call('GET', `/customers/${customer}/bankaccounts`);
    expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ Id: id, DateClosed: null })]));

    const reused = await call('POST', '/bankaccounts/add', { ...account, AccountNumber: '87654321', TwoFactorCode: code });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ code: 'two_factor_invalid' });

    const closed = await call('PUT', `/bankaccounts/${id}`, { ...account, SortCode: '200000', DateClosed: '2025-07-01T09:00:00' });
    expect(closed.status).toBe(200);
    expect((await call('GET', `/bankaccounts/${id}`)).body).toMatchObject({ DateClosed: '2025-07-01T09:00:00' });
  });

  it('replays a retried add that succeeded instead of refusing its used code, Location included', async () => {
    const customer = members[2] as number;
    await call('POST', '/bankaccounts/verification', { CustomerId: customer, MobileNumber: mobileOf(customer) });
    const code = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(customer));
    const body = { CustomerId: customer, PersonId: customer, Name: 'A JONES', AccountNumber: '11112222', SortCode: '401010', TwoFactorCode: code };
    const first = await call('POST', '/bankaccounts/add', body, { 'Idempotency-Key': 'add-e2e-2' });
    const retry = await call('POST', '/bankaccounts/add', body, { 'Idempotency-Key': 'add-e2e-2' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(first.location).toBe(`/bankaccounts/${String(first.body?.Id)}`);
    expect(retry.location).toBe(first.location);
  });

  it('refuses an add from a vendor without the bank-account licence, even with a valid code', async () => {
    const customer = members[3] as number;
    await call('POST', '/bankaccounts/verification', { CustomerId: customer, MobileNumber: mobileOf(customer) });
    const code = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(customer));
    // The read-only partner holds no licence for POSTbankaccounts/add at all.
    const other = await call(
      'POST',
      '/bankaccounts/add',
      { CustomerId: customer, PersonId: customer, Name: 'X', AccountNumber: '12121212', SortCode: '112233', TwoFactorCode: code },
      { 'X-Vendor-Token': SANDBOX_KEYS.readonlyPartner },
    );
    expect(other.status).toBe(403);
  });

  it('refuses to send a code to a mobile the core does not hold for the customer (the mule-account attack), 400 naming MobileNumber', async () => {
    // Customers no other test sends a code to.
    const [victim, other] = members.slice(-2) as [number, number];
    const res = await call('POST', '/bankaccounts/verification', { CustomerId: victim, MobileNumber: mobileOf(other) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ field: 'MobileNumber' }] });
    await expect(latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(other))).rejects.toThrow('no code');
  });

  it('binds a code to what it authorises: a code to add never redirects an account; a code for a destination names it and allows only it', async () => {
    // Customers (none another test sends a code to) who hold an open bank account already.
    const holders: Array<{ customer: number; account: Record<string, unknown> }> = [];
    for (const customer of members.slice(5, -2)) {
      const accounts = (await call('GET', `/customers/${customer}/bankaccounts`)).body as unknown as Array<Record<string, unknown>> | null;
      const open = accounts?.find((account) => account.DateClosed === null);
      if (open) holders.push({ customer, account: open });
      if (holders.length === 2) break;
    }
    expect(holders).toHaveLength(2);
    const update = ({ customer, account }: { customer: number; account: Record<string, unknown> }) => ({
      CustomerId: customer,
      PersonId: customer,
      Name: String(account.Name),
      AccountNumber: String(account.AccountNumber),
      SortCode: String(account.SortCode),
    });

    const [first, second] = holders as [(typeof holders)[0], (typeof holders)[0]];
    await call('POST', '/bankaccounts/verification', { CustomerId: first.customer, MobileNumber: mobileOf(first.customer) });
    const addCode = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(first.customer));
    const redirected = await call('PUT', `/bankaccounts/${String(first.account.Id)}`, {
      ...update(first),
      AccountNumber: '13572468',
      SortCode: '998877',
      TwoFactorCode: addCode,
    });
    expect(redirected.body).toMatchObject({ code: 'two_factor_invalid' });
    expect((await call('GET', `/bankaccounts/${String(first.account.Id)}`)).body).toMatchObject({ AccountNumber: first.account.AccountNumber });

    const sent = await call('POST', '/bankaccounts/verification', {
      CustomerId: second.customer,
      MobileNumber: mobileOf(second.customer),
      AccountNumber: '24681357',
      SortCode: '40-10-10',
    });
    expect(sent.status).toBe(200);
    const outbox = await readSmsOutbox(adminUrl, TEST_ADMIN_TOKEN);
    expect(outbox[0]?.text).toContain('ending 1357');
    const code = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, mobileOf(second.customer));
    const elsewhere = await call('PUT', `/bankaccounts/${String(second.account.Id)}`, {
      ...update(second),
      AccountNumber: '13572468',
      SortCode: '401010',
      TwoFactorCode: code,
    });
    expect(elsewhere.body).toMatchObject({ code: 'two_factor_invalid' });
    const moved = await call('PUT', `/bankaccounts/${String(second.account.Id)}`, {
      ...update(second),
      AccountNumber: '24681357',
      SortCode: '401010',
      TwoFactorCode: code,
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ AccountNumber: '24681357', SortCode: '401010' });
  });

  it('answers 400 naming the field for a number that is not a UK mobile', async () => {
    const res = await call('POST', '/bankaccounts/verification', { CustomerId: members[4], MobileNumber: '0113 496 0000' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [expect.objectContaining({ field: 'MobileNumber' })] });
  });
});
