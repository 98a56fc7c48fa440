import { AccessCache } from '../../access/cache';
import { MemoryAccessStore } from '../../access/access-store';
import type { AuthFailureReason, Principal } from '../../access/access-index';
import { ROUTES } from '../../catalogue/api-catalogue';
import { createLogger } from '../../logging/logger';
import { newContext } from '../../request/context';
import { testKey } from '../../../test/support/access-fixture';
import { runStep } from '../../../test/support/step-harness';
import { authenticate } from './authenticate';
import { authenticateSchema } from './authenticate.schema';

const teller = testKey('k-teller', 'teller');
const revoked = testKey('k-old', 'teller', { status: 'revoked' });
const DOCUMENT = {
  vendors: [
    {
      id: 'acme',
      name: 'Acme',
      status: 'active' as const,
      rateLimit: { points: 10, durationSeconds: 60 },
      licences: [],
      keys: [teller.record, revoked.record],
    },
  ],
  users: [{ id: 'teller', permissions: [] }],
};
const DEPOSIT = ROUTES.find((r) => r.apiId === 'POSTapi/transaction/savings/deposit') ?? null;

describe('authenticate step', () => {
  const logger = createLogger('silent');
  const access = new AccessCache(new MemoryAccessStore(DOCUMENT), logger);
  const failures: AuthFailureReason[] = [];
  const successes: Principal[] = [];
  const step = authenticate(authenticateSchema.parse({ receiptTokenHeader: 'X-Receipt-Token' }), {
    access,
    onFailure: (reason) => failures.push(reason),
    onSuccess: (principal) => successes.push(principal),
  });
  beforeAll(() => access.start());
  afterAll(() => access.stop());
  beforeEach(() => {
    failures.length = 0;
    successes.length = 0;
  });

  it('lets a valid key through and records who calls on the context', async () => {
    const run = await runStep(step, { headers: { 'x-vendor-token': ` ${teller.secret} ` } });
    expect(run.passed).toBe(true);
    expect(run.ctx.principal).toMatchObject({ vendorId: 'acme', keyId: 'k-teller', userId: 'teller' });
    expect(run.ctx.vendor?.id).toBe('acme');
    expect(successes).toHaveLength(1);
  });

  it.each([
    ['no key', {}],
    ['a revoked key', { 'x-vendor-token': revoked.secret }],
    ['a malformed key', { 'x-vendor-token': 'letmein' }],
  ])('refuses %s with 401 naming the header, and reports the failure', async (_label, headers) => {
    const run = await runStep(step, { headers });
    expect(run.error).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('X-Vendor-Token') });
    expect(run.ctx.principal).toBeNull();
    expect(failures).toHaveLength(1);
    expect(JSON.stringify(run.error)).not.toContain(revoked.secret);
  });

  it('needs both headers on receipt routes when the receipt header is configured apart', async () => {
    const onReceipt = () => ({ ...newContext('r'), route: DEPOSIT });
    const general = await runStep(step, { headers: { 'x-vendor-token': teller.secret } }, onReceipt());
    expect(general.error).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('X-Receipt-Token') });
    const receiptOnly = await runStep(step, { headers: { 'x-receipt-token': teller.secret } }, onReceipt());
    expect(receiptOnly.error).toMatchObject({ code: 'unauthorized', detail: expect.stringContaining('X-Vendor-Token') });
    const both = await runStep(step, { headers: { 'x-vendor-token': teller.secret, 'x-receipt-token': teller.secret } }, onReceipt());
    expect(both.passed).toBe(true);
    expect(both.ctx.principal?.keyId).toBe('k-teller');
  });

  it('answers 503 store_unavailable while the access config is not loaded', async () => {
    const cold = authenticate(authenticateSchema.parse({}), { access: new AccessCache(new MemoryAccessStore(DOCUMENT), logger) });
    const run = await runStep(cold, { headers: { 'x-vendor-token': teller.secret } });
    expect(run.error).toMatchObject({ code: 'store_unavailable', headers: { 'Retry-After': '1' } });
  });
});
