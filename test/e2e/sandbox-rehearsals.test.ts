/**
 * The sandbox's magic values (docs/vendor-guide.md, "Magic values"), each through the gateway in sandbox mode:
 * rehearsed failures (504, 502 and outcome_unknown, nothing posted), a rehearsed override (422,
 * then 201 once a supervisor authorises it), the always-closed account, and Ofcom's drama
 * numbers in SMS verification.
 */
import { createSandboxApp } from '../../src/sandbox/app';
import { ACCOUNT_STATUS, createSandboxData } from '../../src/sandbox/data';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { listenOnLoopback } from '../support/listen';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const DEPOSIT = '/api/transaction/savings/deposit';

describe('sandbox rehearsals', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A short receipts timeout, so the slow rehearsal is over in a moment.
    gateway = await startTestGateway({ core: { breakers: { receipts: { timeoutMs: 300, volumeThreshold: 1000 } } } });
  });
  afterAll(() => gateway.stop());

  const deposit = async (reference: string): Promise<{ status: number; code: string | undefined }> => {
    const res = await fetch(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
      body: JSON.stringify({ cuAccountID: 50001, amount: 1.0, externalRefNo: reference }),
    });
    const body = (await res.json()) as { code?: string };
    return { status: res.status, code: body.code };
  };
  const balance = async (): Promise<string> => {
    const res = await fetch(`${gateway.url}/accounts/50001`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    return /"balance":([\d.]+)/.exec(await res.text())?.[1] ?? '';
  };

  it.each([
    ['SANDBOX-SLOW-1', 504, 'core_timeout'],
    ['SANDBOX-RESET-1', 502, 'bad_gateway'],
    ['SANDBOX-FAIL-1', 502, 'bad_gateway'],
  ])('answers a receipt with externalRefNo %s with %i %s, then outcome_unknown for the retry, posting nothing', async (reference, status, code) => {
    const before = await balance();
    expect(await deposit(reference)).toEqual({ status, code });
    expect(await deposit(reference)).toEqual({ status: 409, code: 'outcome_unknown' });
    expect(await balance()).toBe(before);
  });

  it('posts any other receipt as usual', async () => {
    expect((await deposit('ORDINARY-1')).status).toBe(201);
  });

  const post = async (body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${gateway.url}${DEPOSIT}`, {
      method: 'POST',
      headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('asks for an override on a small receipt whose externalRefNo starts SANDBOX-OVERRIDE, and posts it once a supervisor authorises', async () => {
    const before = await balance();
    const needed = await post({ cuAccountID: 50001, amount: 1.0, externalRefNo: 'SANDBOX-OVERRIDE-1' });
    expect(needed.status).toBe(422);
    expect(needed.body).toMatchObject({ hasOverride: true, transactionOverrides: [{ cuAccountID: 50001, overrideTypeText: 'Rehearsal', authorised: false }] });
    expect(await balance()).toBe(before);
    const authorised = await post({
      cuAccountID: 50001,
      amount: 1.0,
      externalRefNo: 'SANDBOX-OVERRIDE-1',
      overrideUserName: 'supervisor',
      overridePassword: 'Sandbox-Override-2025',
    });
    expect(authorised.status).toBe(201);
    expect(authorised.body).toMatchObject({ hasOverride: false, receiptNo: expect.any(Number) });
  });

  it('asks for an override on an amount above the receipt limit (2,500.00 on product 1)', async () => {
    const needed = await post({ cuAccountID: 50001, amount: 2500.01, externalRefNo: 'LIMIT-1' });
    expect(needed.status).toBe(422);
    expect(needed.body).toMatchObject({ hasOverride: true, transactionOverrides: [{ overrideTypeText: 'ReceiptLimit' }] });
  });

  it.each([
    ['accountNumber', { accountNumber: '10027-S4' }],
    ['cuAccountID', { cuAccountID: 50057 }],
  ])('refuses a receipt to the always-closed account 10027-S4 (by %s) as the core refuses a closed account, again on retry', async (_by, account) => {
    for (const attempt of [1, 2]) {
      const refused = await post({ ...account, amount: 5.0, externalRefNo: `CLOSED-${JSON.stringify(account)}` });
      expect({ attempt, status: refused.status }).toEqual({ attempt, status: 400 });
      expect(refused.body).toMatchObject({ hasOverride: false, errorMessage: expect.stringContaining('account 10027-S4 is closed') });
    }
    const closed = await fetch(`${gateway.url}/accounts/50057`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    expect(await closed.json()).toMatchObject({ accountNumber: '10027-S4', status: ACCOUNT_STATUS.Closed.value });
  });

  it("sends a verification code to a customer's mobile in Ofcom's drama range, and refuses the drama landline range", async () => {
    const customers = await fetch(`${gateway.url}/customers/`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo } });
    const customer = ((await customers.json()) as Array<{ Number: number; Telephone2: number; SmsConsentGiven: boolean }>).find((c) => c.SmsConsentGiven);
    expect(String(customer?.Telephone2)).toMatch(/^447700900\d{3}$/);
    const national = `0${String(customer?.Telephone2).slice(2)}`;
    const verify = (MobileNumber: string) =>
      fetch(`${gateway.url}/bankaccounts/verification`, {
        method: 'POST',
        headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
        body: JSON.stringify({ CustomerId: customer?.Number, MobileNumber }),
      });
    expect((await verify(national)).status).toBe(200);
    const landline = await verify('01632 960123');
    expect(landline.status).toBe(400);
    expect(await landline.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'MobileNumber' }] });
  });
});

describe('Ofcom drama mobiles with a real core', () => {
  it('refuses a verification to a drama-range number (400 naming MobileNumber), though the core holds it', async () => {
    const data = createSandboxData();
    const customer = data.customers.list().find((c) => c.SmsConsentGiven && String(c.Telephone2).startsWith('447700900'));
    expect(customer).toBeDefined();
    // The sandbox app on its own port stands in for a real core: CORE_URL mode, not sandbox mode.
    const core = await listenOnLoopback(createSandboxApp({ data }));
    const config = testConfig({ core: { url: core.url } });
    const running = await startGateway(config, createLogger('silent'));
    try {
      const res = await fetch(`http://127.0.0.1:${running.vendorPort}/bankaccounts/verification`, {
        method: 'POST',
        headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, 'content-type': 'application/json' },
        body: JSON.stringify({ CustomerId: customer?.Number, MobileNumber: `+${String(customer?.Telephone2)}` }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'MobileNumber', message: expect.stringContaining('drama range') }] });
    } finally {
      await running.stop();
      await core.close();
    }
  });
});
