/**
 * The error answers a vendor meets on day one, through a whole gateway in sandbox mode over
 * sockets (issue 31, "error rough edges"): a receipt the core refuses carries `code` and
 * `requestId`; a money movement whose core timed out (504) gives the same outcome advice as
 * one whose connection was cut (502); `errorMessage` keeps field errors apart; the SMS send
 * throttle is `sms_rate_limited`; a wrong two-factor code says whether the code sent still
 * works; a landline is named as one.
 */
import { latestCodeSentTo } from '../../src/sms/outbox-client';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const DEPOSIT = '/api/transaction/savings/deposit';
const OUTCOME_ADVICE = 'Its outcome is unknown: check the account before posting again with a new key.';

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

describe('error answers a vendor meets', () => {
  let gateway: TestGateway;
  let adminUrl: string;
  /** Customers who consented to SMS, and the mobile (Telephone2) the core holds for each; each test takes its own. */
  const customers: Array<{ id: number; mobile: string }> = [];
  const nextCustomer = (): { id: number; mobile: string } => {
    const customer = customers.shift();
    if (!customer) throw new Error('no consenting customer left');
    return customer;
  };

  const post = async (path: string, body: string, contentType = 'application/json', headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': contentType, ...headers },
      body,
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.text) as Record<string, unknown>;

  beforeAll(async () => {
    // A short receipts timeout, so the slow rehearsal (SANDBOX-SLOW) is a 504 in a moment.
    gateway = await startTestGateway({ core: { breakers: { receipts: { timeoutMs: 300, volumeThreshold: 1000 } } } });
    adminUrl = `http://127.0.0.1:${gateway.adminPort}`;
    const res = await fetch(`${gateway.url}/customers`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    for (const customer of (await res.json()) as Array<{ Number: number; Telephone2: number; SmsConsentGiven: boolean }>) {
      if (customer.SmsConsentGiven) customers.push({ id: customer.Number, mobile: `+${String(customer.Telephone2)}` });
    }
  });
  afterAll(() => gateway.stop());

  it('answers a receipt the core refuses (a closed account) with code and requestId beside errorMessage, in JSON and in XML', async () => {
    const refused = await post(DEPOSIT, JSON.stringify({ cuAccountID: 50057, amount: 5.0, externalRefNo: 'ERR-CLOSED-JSON' }));
    expect(refused.status).toBe(400);
    expect(json(refused)).toMatchObject({
      errorMessage: 'account 10027-S4 is closed',
      hasOverride: false,
      code: 'invalid_request',
      status: 400,
      requestId: refused.headers.get('x-request-id'),
    });

    const xml = await post(
      DEPOSIT,
      '<ReceiptPaymentDto><CUAccountID>50057</CUAccountID><Amount>5.00</Amount><ExternalRefNo>ERR-CLOSED-XML</ExternalRefNo></ReceiptPaymentDto>',
      'application/xml',
    );
    expect(xml.status).toBe(400);
    expect(xml.text).toContain('<ErrorMessage>account 10027-S4 is closed</ErrorMessage>');
    expect(xml.text).toContain(`<code>invalid_request</code><requestId>${String(xml.headers.get('x-request-id'))}</requestId></problem></ReceiptPaymentDto>`);
  });

  it.each([
    ['504 core_timeout', 'SANDBOX-SLOW-ERR', 504, 'core_timeout', 'The core banking system did not answer in time.'],
    ['502 bad_gateway', 'SANDBOX-RESET-ERR', 502, 'bad_gateway', 'The core banking system could not be reached.'],
  ])('tells a deposit answered %s that its outcome is unknown and to check the account first', async (_label, reference, status, code, cause) => {
    const answer = await post(DEPOSIT, JSON.stringify({ cuAccountID: 50001, amount: 1.0, externalRefNo: reference }));
    expect(answer.status).toBe(status);
    expect(json(answer)).toMatchObject({ code, detail: `${cause} ${OUTCOME_ADVICE}` });
  });

  it('keeps the field errors of errorMessage apart with "; ", in JSON and in XML', async () => {
    const answer = await post(DEPOSIT, JSON.stringify({ cuAccountID: 50001, amout: 5 }));
    expect(answer.status).toBe(400);
    expect(json(answer).errorMessage).toBe('The ReceiptPaymentDto body has 2 invalid fields. amout: unknown field; amount: is required.');

    const xml = await post(DEPOSIT, '<ReceiptPaymentDto><CUAccountID>x</CUAccountID></ReceiptPaymentDto>', 'application/xml');
    expect(xml.status).toBe(400);
    expect(/<ErrorMessage>([^<]*)<\/ErrorMessage>/.exec(xml.text)?.[1]).toBe(
      'The ReceiptPaymentDto body has 2 invalid fields. CUAccountID: must be a whole number from -2147483648 to 2147483647; Amount: is required.',
    );
  });

  it('answers a second code asked for the same number within the minute with 429 sms_rate_limited and Retry-After', async () => {
    const customer = nextCustomer();
    const body = JSON.stringify({ CustomerId: customer.id, MobileNumber: customer.mobile });
    expect((await post('/bankaccounts/verification', body)).status).toBe(200);
    const again = await post('/bankaccounts/verification', body);
    expect(again.status).toBe(429);
    expect(json(again)).toMatchObject({ code: 'sms_rate_limited', title: 'SMS send limit reached' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('tells a vendor whose two-factor code was wrong that the code sent stays valid, until when, and then takes that code', async () => {
    const customer = nextCustomer();
    const sentAt = Date.now();
    expect((await post('/bankaccounts/verification', JSON.stringify({ CustomerId: customer.id, MobileNumber: customer.mobile }))).status).toBe(200);
    const code = await latestCodeSentTo(adminUrl, TEST_ADMIN_TOKEN, customer.mobile);
    const account = { CustomerId: customer.id, PersonId: customer.id, Name: 'E TESTER', AccountNumber: '31415926', SortCode: '20-00-00' };
    const wrongCode = code === '000000' ? '111111' : '000000';

    const wrong = await post('/bankaccounts/add', JSON.stringify({ ...account, TwoFactorCode: wrongCode }), 'application/json', {
      'Idempotency-Key': 'err-2fa-1',
    });
    expect(wrong.status).toBe(400);
    const detail = String(json(wrong).detail);
    expect(json(wrong).code).toBe('two_factor_invalid');
    expect(detail).toMatch(
      /^The two-factor code was not accepted: .* The code sent stays valid until \S+Z \(\d+ s more\): ask the customer for it again, and request a new one only if it expired\. After 5 wrong codes for a customer, from any vendor/,
    );
    const until = Date.parse(/valid until (\S+Z)/.exec(detail)?.[1] ?? '');
    expect(until).toBeGreaterThanOrEqual(sentAt + 600_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 600_000);
    expect(detail).not.toContain(code);

    // As the detail said: the code sent still works.
    const added = await post('/bankaccounts/add', JSON.stringify({ ...account, TwoFactorCode: code }), 'application/json', { 'Idempotency-Key': 'err-2fa-2' });
    expect(added.status).toBe(201);
    const reused = await post('/bankaccounts/add', JSON.stringify({ ...account, AccountNumber: '27182818', TwoFactorCode: code }));
    expect(json(reused)).toMatchObject({
      code: 'two_factor_invalid',
      detail: expect.stringContaining('No code sent to you for this customer is still valid (it expired, was used, or none was sent): request a new one'),
    });
  });

  it.each(['01632 960123', '020 7946 0123', '+44 113 496 0000'])('names %s a UK landline when a code is asked for it', async (number) => {
    // Refused as a number before any customer is read or any send is counted.
    const refused = await post('/bankaccounts/verification', JSON.stringify({ CustomerId: 10004, MobileNumber: number }));
    expect(refused.status).toBe(400);
    expect(json(refused)).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'MobileNumber', message: 'is a UK landline; SMS codes go to mobiles (07…)' }],
    });
  });
});
