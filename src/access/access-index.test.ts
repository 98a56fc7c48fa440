import { generateApiKey, hashApiKey } from './api-key';
import { accessDocumentSchema } from './model';
import { AccessIndex, compileApiPattern } from './access-index';
import { canonicalJson, recordJson } from './access-state';

const activeKey = generateApiKey();
const revokedKey = generateApiKey();
const expiredKey = generateApiKey();
const suspendedKey = generateApiKey();
const NOW = Date.parse('2026-06-01T12:00:00Z');

const doc = accessDocumentSchema.parse({
  vendors: [
    {
      id: 'acme',
      name: 'Acme',
      licences: [
        { id: 'l1', api: 'GET*' },
        { id: 'l2', api: 'POSTapi/transaction/*', expiresAt: '2026-01-01T00:00:00Z' },
        { id: 'l3', api: 'POSTbankaccounts/add' },
      ],
      keys: [
        { id: 'k1', prefix: activeKey.slice(0, 12), hash: hashApiKey(activeKey), userId: 'teller' },
        { id: 'k2', prefix: revokedKey.slice(0, 12), hash: hashApiKey(revokedKey), userId: 'teller', status: 'revoked' },
        { id: 'k3', prefix: expiredKey.slice(0, 12), hash: hashApiKey(expiredKey), userId: 'teller', expiresAt: '2026-05-01T00:00:00Z' },
      ],
    },
    {
      id: 'sleepy',
      name: 'Sleepy',
      status: 'suspended',
      licences: [{ id: 'l4', api: '*' }],
      keys: [{ id: 'k4', prefix: suspendedKey.slice(0, 12), hash: hashApiKey(suspendedKey), userId: 'teller' }],
    },
  ],
  users: [
    {
      id: 'teller',
      permissions: [
        { id: 'p1', api: 'GETaccounts*' },
        { id: 'p2', api: 'POST*' },
      ],
    },
  ],
});

describe('AccessIndex', () => {
  const snapshot = AccessIndex.fromDocument(doc, 1);

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['not-a-key', 'malformed'],
    [generateApiKey(), 'unknown'],
    [revokedKey, 'revoked'],
    [expiredKey, 'expired'],
  ])('refuses %j as %s', (token, reason) => {
    expect(snapshot.authenticate(token, NOW)).toEqual({ ok: false, reason });
  });

  it('authenticates an active key as its vendor and user', () => {
    const result = snapshot.authenticate(activeKey, NOW);
    expect(result.ok && result.principal).toEqual({ vendorId: 'acme', vendorName: 'Acme', keyId: 'k1', userId: 'teller', certificateThumbprints: [] });
  });

  it('decides licence, then permission, then allows', () => {
    const auth = snapshot.authenticate(activeKey, NOW);
    if (!auth.ok) throw new Error('expected ok');
    expect(snapshot.authorize(auth.principal, auth.vendor, 'GETaccounts/{accountId}', NOW)).toBeNull();
    expect(snapshot.authorize(auth.principal, auth.vendor, 'GETbanks', NOW)).toBe('permission_denied');
    expect(snapshot.authorize(auth.principal, auth.vendor, 'POSTapi/transaction/savings/deposit', NOW)).toBe('licence_required');
    expect(snapshot.authorize(auth.principal, auth.vendor, 'POSTbankaccounts/add', NOW)).toBeNull();
    expect(snapshot.authorize(auth.principal, auth.vendor, 'DELETEaccounts/{accountId}', NOW)).toBe('licence_required');
  });

  it('refuses a suspended vendor before looking at licences', () => {
    const auth = snapshot.authenticate(suspendedKey, NOW);
    if (!auth.ok) throw new Error('expected ok');
    expect(snapshot.authorize(auth.principal, auth.vendor, 'GETaccounts', NOW)).toBe('vendor_suspended');
  });

  it('stops honouring a licence once it expires, even after a memoised decision', () => {
    const expiring = accessDocumentSchema.parse({
      vendors: [
        {
          id: 'v',
          name: 'V',
          licences: [{ id: 'l', api: 'GET*', expiresAt: '2026-06-01T12:00:01Z' }],
          keys: [{ id: 'k', prefix: activeKey.slice(0, 12), hash: hashApiKey(activeKey), userId: 'u' }],
        },
      ],
      users: [{ id: 'u', permissions: [{ id: 'p', api: '*' }] }],
    });
    const s = AccessIndex.fromDocument(expiring, 2);
    const auth = s.authenticate(activeKey, NOW);
    if (!auth.ok) throw new Error('expected ok');
    expect(s.authorize(auth.principal, auth.vendor, 'GETbanks', NOW)).toBeNull();
    expect(s.authorize(auth.principal, auth.vendor, 'GETbanks', NOW + 1000)).toBe('licence_required');
  });
});

describe('AccessIndex deltas', () => {
  const acme = { id: 'acme', name: 'Acme', status: 'active' as const, licences: [{ id: 'l1', api: 'GET*' }] };
  const key = { id: 'k1', prefix: activeKey.slice(0, 12), hash: hashApiKey(activeKey), userId: 'teller', status: 'active' as const, vendorId: 'acme' };
  const teller = { id: 'teller', permissions: [{ id: 'p1', api: 'GET*' }] };
  const fresh = (): AccessIndex => AccessIndex.fromRecords({ vendors: [acme], keys: [key], users: [teller] }, 1);

  it('forgets a memoised licence decision when the vendor record changes', () => {
    const index = fresh();
    const auth = index.authenticate(activeKey, NOW);
    if (!auth.ok) throw new Error('expected ok');
    expect(index.authorize(auth.principal, auth.vendor, 'GETbanks', NOW)).toBeNull();

    index.apply([{ kind: 'vendor', id: 'acme', value: { ...acme, licences: [] } }], 2);

    const again = index.authenticate(activeKey, NOW);
    if (!again.ok) throw new Error('expected ok');
    expect(index.authorize(again.principal, again.vendor, 'GETbanks', NOW)).toBe('licence_required');
    expect(index.version).toBe(2);
  });

  it('forgets a memoised permission when the user record changes, and the user when deleted', () => {
    const index = fresh();
    const auth = index.authenticate(activeKey, NOW);
    if (!auth.ok) throw new Error('expected ok');
    expect(index.authorize(auth.principal, auth.vendor, 'GETbanks', NOW)).toBeNull();
    index.apply([{ kind: 'user', id: 'teller', value: { id: 'teller', permissions: [{ id: 'p2', api: 'GETaccounts*' }] } }], 2);
    expect(index.authorize(auth.principal, auth.vendor, 'GETbanks', NOW)).toBe('permission_denied');
    expect(index.authorize(auth.principal, auth.vendor, 'GETaccounts', NOW)).toBeNull();
    index.apply([{ kind: 'user', id: 'teller', value: null }], 3);
    expect(index.authorize(auth.principal, auth.vendor, 'GETaccounts', NOW)).toBe('permission_denied');
  });

  it('turns a key away once a delta revokes it, deletes it, or deletes its vendor', () => {
    const revoked = fresh();
    revoked.apply([{ kind: 'key', id: 'k1', value: { ...key, status: 'revoked' } }], 2);
    expect(revoked.authenticate(activeKey, NOW)).toEqual({ ok: false, reason: 'revoked' });

    const deleted = fresh();
    deleted.apply([{ kind: 'key', id: 'k1', value: null }], 2);
    expect(deleted.authenticate(activeKey, NOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(deleted.keysOf('acme')).toEqual([]);

    const vendorGone = fresh();
    vendorGone.apply([{ kind: 'vendor', id: 'acme', value: null }], 2);
    expect(vendorGone.authenticate(activeKey, NOW)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('answers a key under its new hash only, after a delta replaces the secret', () => {
    const index = fresh();
    const next = generateApiKey();
    index.apply([{ kind: 'key', id: 'k1', value: { ...key, hash: hashApiKey(next), prefix: next.slice(0, 12) } }], 2);
    expect(index.authenticate(activeKey, NOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(index.authenticate(next, NOW)).toMatchObject({ ok: true, principal: { keyId: 'k1' } });
  });

  it('names the vendor as it is now, after a rename', () => {
    const index = fresh();
    expect(index.authenticate(activeKey, NOW)).toMatchObject({ principal: { vendorName: 'Acme' } });
    index.apply([{ kind: 'vendor', id: 'acme', value: { ...acme, name: 'Acme Ltd' } }], 2);
    expect(index.authenticate(activeKey, NOW)).toMatchObject({ principal: { vendorName: 'Acme Ltd' } });
  });

  it('lists vendor and user ids in order, including ones a delta added', () => {
    const index = fresh();
    index.apply(
      [
        { kind: 'vendor', id: 'aardvark', value: { ...acme, id: 'aardvark' } },
        { kind: 'user', id: 'zed', value: { id: 'zed', permissions: [] } },
      ],
      2,
    );
    expect(index.vendorIds()).toEqual(['aardvark', 'acme']);
    expect(index.userIds()).toEqual(['teller', 'zed']);
    expect(index.documentForDiff().vendors.map((v) => [v.id, v.keys.map((k) => k.id)])).toEqual([
      ['aardvark', []],
      ['acme', ['k1']],
    ]);
  });
});

describe('API patterns', () => {
  it.each([
    ['GET*', 'GETaccounts/{accountId}', true],
    ['GET*', 'POSTaccounts', false],
    ['POSTapi/transaction/*', 'POSTapi/transaction/savings/deposit', true],
    ['POSTapi/transaction/*', 'POSTapi/transactions', false],
    ['GETaccounts', 'GETaccounts/{accountId}', false],
    ['GETaccounts/{accountId}', 'GETaccounts/{accountId}', true],
    ['*', 'DELETEpeople/{memberId}', true],
    ['GET*/transactions', 'GETaccounts/{accountId}/transactions', true],
  ])('%s matches %s: %s', (pattern, apiId, expected) => {
    expect(compileApiPattern(pattern)(apiId)).toBe(expected);
  });
});

describe('canonicalJson', () => {
  it('writes a record as its schema would, whatever order its properties were sent in', () => {
    const sent = { userId: 'u', hash: `sha256:${'a'.repeat(64)}`, vendorId: 'acme', id: 'k', status: 'active' as const, prefix: 'cbk_AAAAAAAA' };
    expect(canonicalJson('key', sent)).toBe(recordJson('key', sent));
    const vendor = { licences: [{ api: 'GET*', id: 'l' }], rateLimit: { durationSeconds: 1, points: 5 }, status: 'active' as const, name: 'Acme', id: 'acme' };
    expect(canonicalJson('vendor', vendor)).toBe(recordJson('vendor', vendor));
    const user = { permissions: [{ api: 'GET*', id: 'p' }], id: 'u' };
    expect(canonicalJson('user', user)).toBe(recordJson('user', user));
  });
});
