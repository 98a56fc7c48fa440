import { parseChange, toWire } from './redis-access-wire';
import type { Proposal } from './model';

const proposal: Proposal = {
  id: 'chg-1',
  makerId: 'olga',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-04T00:00:00.000Z',
  operation: 'grantLicence',
  args: ['acme', { id: 'l-all', api: '*' }],
  action: 'licence.grant',
  target: 'vendors/acme/licences/l-all',
  preview: { before: null, after: { id: 'l-all', api: '*' } },
};

const recordKey = (kind: string): string => `{access}:${kind}`;

describe('the change stream wire form', () => {
  it('names a proposal "change", as releases before the rename wrote it', () => {
    expect(toWire({ kind: 'proposal', id: 'chg-1', value: proposal, expect: null })).toMatchObject({ k: 'change', id: 'chg-1', e: '' });
  });

  it('reads a "change" operation an earlier release wrote as a proposal', () => {
    const ops = JSON.stringify([
      { k: 'change', id: 'chg-1', v: JSON.stringify(proposal) },
      { k: 'change', id: 'chg-0', v: '' },
    ]);
    expect(parseChange(['v', '7', 'ops', ops], '{access}:changes', recordKey)).toEqual({
      version: 7,
      ops: [
        { kind: 'proposal', id: 'chg-1', value: proposal },
        { kind: 'proposal', id: 'chg-0', value: null },
      ],
    });
  });

  it('leaves every other kind as it is', () => {
    const ops = JSON.stringify([{ k: 'user', id: 'u1', v: '' }]);
    expect(parseChange(['v', '2', 'ops', ops], '{access}:changes', recordKey).ops).toEqual([{ kind: 'user', id: 'u1', value: null }]);
  });
});
