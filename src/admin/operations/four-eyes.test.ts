/**
 * Who counts as one person, and when set-up closes: the rules four-eyes approval rests on.
 */
import { AccessIndex } from '../../access/access-index';
import { BOOTSTRAP_ID, chainOf, personOf, samePerson, setupLatch, setupOpen } from './four-eyes';
import type { AdminAccount } from '../../access/model';

const HASH = `sha256:${'a'.repeat(64)}`;
const at = '2026-01-01T00:00:00.000Z';

function admin(id: string, role: AdminAccount['role'], extra: Partial<AdminAccount> = {}): AdminAccount {
  return {
    id,
    name: id,
    role,
    createdAt: at,
    tokenPrefix: 'cba_abcd',
    tokenHash: `sha256:${id
      .padEnd(64, '0')
      .replace(/[^0-9a-f]/g, 'e')
      .slice(0, 64)}`,
    ...extra,
  };
}

const index = (...admins: AdminAccount[]): AccessIndex => AccessIndex.fromRecords({ vendors: [], keys: [], users: [], admins, proposals: [] }, 1);

describe('personOf', () => {
  it('counts an admin as the person its sponsor counts as, up the chain', () => {
    const idx = index(
      admin('olga', 'owner', { sponsor: BOOTSTRAP_ID }),
      admin('sock', 'approver', { sponsor: 'olga' }),
      admin('sock2', 'approver', { sponsor: 'sock' }),
    );
    expect(['olga', 'sock', 'sock2'].map((id) => personOf(idx, id))).toEqual(['olga', 'olga', 'olga']);
  });

  it('makes each admin enrolled with a set-up code, or with no sponsor on record, a person of their own', () => {
    const idx = index(admin('anna', 'approver', { sponsor: BOOTSTRAP_ID }), admin('abe', 'approver'), admin('olga', 'owner', { sponsor: BOOTSTRAP_ID }));
    expect(['anna', 'abe', 'olga', BOOTSTRAP_ID].map((id) => personOf(idx, id))).toEqual(['anna', 'abe', 'olga', BOOTSTRAP_ID]);
  });

  it('counts every admin of a sponsor loop, and every admin sponsored into it, as one person', () => {
    const idx = index(
      admin('a', 'owner', { sponsor: 'b' }),
      admin('b', 'owner', { sponsor: 'a' }),
      admin('c', 'approver', { sponsor: 'b' }),
      admin('anna', 'approver', { sponsor: BOOTSTRAP_ID }),
    );
    expect(chainOf(idx, 'a')).toEqual(['a', 'b']);
    expect([samePerson(idx, 'a', 'b'), samePerson(idx, 'b', 'a'), samePerson(idx, 'c', 'a'), samePerson(idx, 'c', 'b')]).toEqual([true, true, true, true]);
    expect(samePerson(idx, 'anna', 'a')).toBe(false);
  });

  it('follows the chain through a deleted admin’s tombstone, and counts a sponsor with no record as a member', () => {
    const idx = index(
      admin('olga', 'owner', { sponsor: BOOTSTRAP_ID }),
      admin('sock', 'owner', { sponsor: 'olga', tokenHash: undefined, tokenPrefix: undefined, deletedAt: at }),
      admin('sock2', 'approver', { sponsor: 'sock' }),
    );
    expect(chainOf(idx, 'sock2')).toEqual(['sock2', 'sock', 'olga']);
    expect(samePerson(idx, 'sock2', 'olga')).toBe(true);
    const dangling = index(admin('x', 'approver', { sponsor: 'gone' }), admin('y', 'approver', { sponsor: 'gone' }));
    expect([personOf(dangling, 'x'), samePerson(dangling, 'x', 'y')]).toEqual(['gone', true]);
  });
});

describe('set-up', () => {
  it('is open until two named admins who can approve hold a token, and closes for good with the latch', () => {
    const waiting = admin('anna', 'approver', { tokenHash: undefined, tokenPrefix: undefined, enrolment: { codeHash: HASH, expiresAt: at } });
    expect(setupOpen(index(admin('olga', 'owner'), admin('otto', 'operator'), waiting))).toBe(true);
    const two = [admin('olga', 'owner'), admin('anna', 'approver')];
    expect(setupOpen(index(...two))).toBe(false);
    const [latch] = setupLatch(index(admin('olga', 'owner')), two).ops;
    expect(latch).toMatchObject({ kind: 'admin', id: BOOTSTRAP_ID, expect: null });
    // With the latch kept, deleting approvers does not open set-up again.
    expect(setupOpen(index(latch!.value as AdminAccount))).toBe(false);
    expect(setupLatch(index(latch!.value as AdminAccount, ...two), two).ops).toEqual([]);
  });

  it('closes with the write that takes one of two approvers’ tokens away, not only with one that gives the second', () => {
    const two = [admin('olga', 'owner'), admin('anna', 'approver')];
    const revoked = { ...admin('anna', 'approver'), tokenHash: undefined, tokenPrefix: undefined };
    expect(setupLatch(index(...two), [two[0]!, revoked]).ops).toMatchObject([{ id: BOOTSTRAP_ID, expect: null }]);
    expect(setupLatch(index(...two)).ops).toHaveLength(1);
    expect(setupLatch(index(two[0]!)).ops).toEqual([]);
  });

  it('clears, with the latch, every code the bootstrap token was handed and no one redeemed, but the one being written', () => {
    const enrolling = (id: string, sponsor: string): AdminAccount => ({
      ...admin(id, 'owner'),
      sponsor,
      tokenHash: undefined,
      tokenPrefix: undefined,
      enrolment: { codeHash: HASH, expiresAt: at },
    });
    const two = [admin('olga', 'owner'), admin('anna', 'approver')];
    const { ops, cleared } = setupLatch(
      index(...two, enrolling('late1', BOOTSTRAP_ID), enrolling('late2', BOOTSTRAP_ID), enrolling('mine', 'olga')),
      two,
      'late2',
    );
    expect(cleared).toEqual(['late1']);
    expect(ops).toHaveLength(2);
    expect(ops[1]).toMatchObject({ kind: 'admin', id: 'late1', expect: { enrolment: { codeHash: HASH } } });
    expect((ops[1]!.value as AdminAccount).enrolment).toBeUndefined();
  });
});
