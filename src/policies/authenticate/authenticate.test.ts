import { AccessCache } from '../../access/cache';
import { MemoryAccessStore } from '../../access/access-store';
import type { AuthFailureReason, Principal } from '../../access/access-index';
import { generateApiKey } from '../../access/api-key';
import { ROUTES } from '../../catalogue/api-catalogue';
import { createLogger } from '../../logging/logger';
import { newContext } from '../../request/context';
import { testKey } from '../../../test/support/access-fixture';
import { runStep } from '../../../test/support/step-harness';
import { authenticate } from './authenticate';
import { authenticateSchema } from './authenticate.schema';

const teller = testKey('k-teller', 'teller');
const revoked = testKey('k-old', 'teller', { status: 'revoked' });
const expired = testKey('k-expired', 'teller', { expiresAt: '2020-01-01T00:00:00Z' });
/** The key with its checksum's last character changed: the shape of a key, a checksum that fails. */
const mistyped = `${teller.secret.slice(0, -1)}${teller.secret.endsWith('A') ? 'B' : 'A'}`;
const DOCUMENT = {
  vendors: [
    {
      id: 'acme',
      name: 'Acme',
      status: 'active' as const,
      rateLimit: { points: 10, durationSeconds: 60 },
      licences: [],
      keys: [teller.record, revoked.record, expired.record],
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

  it.each([
    ['no key', {}, 'missing', 'No API key: send your key in the X-Vendor-Token header.'],
    [
      'a key in Authorization: Bearer',
      { authorization: `Bearer ${teller.secret}` },
      'missing',
      'No API key in the X-Vendor-Token header. This API does not read Authorization: Bearer: send your key as X-Vendor-Token: <key>.',
    ],
    [
      'another Authorization scheme',
      { authorization: 'Basic dXNlcjpwYXNz' },
      'missing',
      'No API key in the X-Vendor-Token header. This API does not read the Authorization header: send your key as X-Vendor-Token: <key>.',
    ],
    [
      'a text that is no key',
      { 'x-vendor-token': 'letmein' },
      'malformed',
      'The X-Vendor-Token header does not hold an API key: a key is cbk_, 32 letters or digits, _ and a 6-character checksum.',
    ],
    [
      'a key whose checksum fails',
      { 'x-vendor-token': mistyped },
      'malformed',
      'The key in the X-Vendor-Token header fails its checksum: it was mistyped or cut short. Copy it again, whole.',
    ],
  ])('tells %s apart in the 401 detail, counting the same reason as before', async (_label, headers, reason, detail) => {
    const run = await runStep(step, { headers });
    expect(run.error).toMatchObject({ code: 'unauthorized', status: 401, detail });
    expect(failures).toEqual([reason]);
    expect(JSON.stringify(run.error)).not.toContain(teller.secret.slice(4, 36));
  });

  it('gives an unknown, a revoked and an expired key one and the same 401 detail, so none tells which keys exist', async () => {
    const details = [];
    for (const key of [generateApiKey(), revoked.secret, expired.secret]) {
      const run = await runStep(step, { headers: { 'x-vendor-token': key } });
      details.push((run.error as { detail: string }).detail);
    }
    expect(new Set(details)).toEqual(new Set(['The key in the X-Vendor-Token header is not accepted: it is unknown, revoked or expired.']));
    expect(failures).toEqual(['unknown', 'revoked', 'expired']);
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
