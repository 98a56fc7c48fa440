/**
 * The sandbox's rehearsed failures, through the gateway in sandbox mode: a vendor can see 504,
 * 502 and outcome_unknown before going live, and nothing is posted.
 */
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
});
