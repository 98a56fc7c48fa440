/**
 * The set-up decision is taken on the records a write commits at: the bootstrap token's write
 * whose check passed on an earlier copy is refused when the second approver enrolled (on another
 * instance) in between. The set-up latch cannot be lost: a store that holds two approvers' tokens but no latch (written
 * by an earlier release, or by two enrolments that raced on two instances) gets it from the next
 * admin write, even one that takes a token away, from start-up, and from refusing the bootstrap
 * token; so no road opens set-up again.
 */
import { MemoryAccessStore } from '../../access/access-store';
import { AdminDirectory, newEnrolmentCode } from './admin-directory';
import { Proposals } from './proposals';
import { BOOTSTRAP_ID, setupOpen } from './four-eyes';
import type { AdminAccount } from '../../access/model';
import { accessServiceFor } from '../../../test/support/access-service';

const at = '2026-01-01T00:00:00.000Z';
const approver = (id: string, digit: string): AdminAccount => ({
  id,
  name: id,
  role: 'approver',
  createdAt: at,
  sponsor: BOOTSTRAP_ID,
  tokenPrefix: 'cba_abcd',
  tokenHash: `sha256:${digit.repeat(64)}`,
});
const bootstrap = { actor: 'admin:bootstrap', adminId: BOOTSTRAP_ID };

/** A store with these admins and no latch, as an earlier release left it. */
async function storeWith(...admins: AdminAccount[]): Promise<{ admins: AdminDirectory; queue: Proposals; latched: () => Promise<boolean> }> {
  const store = new MemoryAccessStore({ vendors: [{ id: 'acme', name: 'Acme', status: 'active', licences: [], keys: [] }], users: [] });
  await store.commit({ ops: admins.map((admin) => ({ kind: 'admin', id: admin.id, value: admin, expect: null })), audit: null });
  const service = accessServiceFor(store);
  await service.writer.index(); // loaded, as the gateway's cache is before start-up goes on
  const directory = new AdminDirectory(service.writer);
  const queue = new Proposals(service, { approvals: 'required', changeTtlHours: 72 }, directory);
  return {
    admins: directory,
    queue,
    latched: async () => !setupOpen(await service.writer.index()) && (await service.writer.index()).admin(BOOTSTRAP_ID) !== undefined,
  };
}

describe('the set-up latch', () => {
  it('is written by the write that revokes one of two approvers’ tokens, so set-up stays closed', async () => {
    const { admins, queue, latched } = await storeWith(approver('anna', 'a'), approver('abe', 'b'));
    await admins.revokeToken('abe', 'admin:bootstrap');
    expect(await latched()).toBe(true);
    await expect(
      queue.submit('createAdmin', [{ id: 'evil', name: 'Evil', role: 'owner' }, { codeHash: `sha256:${'c'.repeat(64)}` }], bootstrap),
    ).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('is written by a deletion too, and at start-up when two approvers hold tokens', async () => {
    const deleting = await storeWith(approver('anna', 'a'), approver('abe', 'b'));
    await deleting.admins.remove('anna', 'admin:bootstrap');
    expect(await deleting.latched()).toBe(true);
    const starting = await storeWith(approver('anna', 'a'), approver('abe', 'b'));
    await starting.admins.closeSetupAtStart();
    expect(await starting.latched()).toBe(true);
    const one = await storeWith(approver('anna', 'a'));
    expect(await one.admins.closeSetupIfDue()).toBe(false);
    expect(await one.latched()).toBe(false);
  });

  it('is written when the bootstrap token is refused as "set-up closed" (fail closed)', async () => {
    const { queue, latched } = await storeWith(approver('anna', 'a'), approver('abe', 'b'));
    await expect(queue.submit('grantLicence', ['acme', { api: '*' }], bootstrap)).rejects.toMatchObject({ code: 'permission_denied' });
    expect(await latched()).toBe(true);
  });
});

describe('the bootstrap token’s set-up power', () => {
  /** Two instances on one store; olga has enrolled, anna's code is out: set-up is one enrolment from closing. */
  async function nearlyClosed(): Promise<{
    a: { admins: AdminDirectory; queue: Proposals; service: ReturnType<typeof accessServiceFor> };
    closeOnB: () => Promise<void>;
    olga: string;
  }> {
    const store = new MemoryAccessStore({ vendors: [{ id: 'acme', name: 'Acme', status: 'active', licences: [], keys: [] }], users: [] });
    const instance = async (): Promise<{ admins: AdminDirectory; queue: Proposals; service: ReturnType<typeof accessServiceFor> }> => {
      const service = accessServiceFor(store);
      await service.writer.index();
      const admins = new AdminDirectory(service.writer);
      return { admins, queue: new Proposals(service, { approvals: 'required', changeTtlHours: 72 }, admins), service };
    };
    const a = await instance();
    const b = await instance();
    const olga = newEnrolmentCode();
    const anna = newEnrolmentCode();
    await a.queue.submit('createAdmin', [{ id: 'olga', name: 'Olga', role: 'owner' }, { codeHash: olga.codeHash }], bootstrap);
    await a.queue.submit('createAdmin', [{ id: 'anna', name: 'Anna', role: 'approver' }, { codeHash: anna.codeHash }], bootstrap);
    expect(await a.admins.enrol(olga.code)).not.toBeNull();
    return { a, olga: 'olga', closeOnB: async () => void expect(await b.admins.enrol(anna.code)).not.toBeNull() };
  }

  /** Runs `closeOnB` once, just before instance A plans its next write (after every earlier check). */
  function beforeNextWrite(service: ReturnType<typeof accessServiceFor>, closeOnB: () => Promise<void>): void {
    const index = service.writer.index.bind(service.writer);
    let done = false;
    service.writer.index = async (options) => {
      if (options?.forChange && !done) {
        done = true;
        await closeOnB();
      }
      return index(options);
    };
  }

  it('creates no admin when set-up closed on another instance after its check', async () => {
    const { a, closeOnB } = await nearlyClosed();
    beforeNextWrite(a.service, closeOnB);
    await expect(
      a.queue.submit('createAdmin', [{ id: 'late', name: 'Late', role: 'owner' }, { codeHash: newEnrolmentCode().codeHash }], bootstrap),
    ).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await a.service.writer.index()).admin('late')).toBeUndefined();
  });

  it('approves nothing when set-up closed on another instance after its check', async () => {
    const { a, closeOnB } = await nearlyClosed();
    const olgaActor = { actor: 'admin:olga', adminId: 'olga' };
    const filed = await a.queue.submit('grantLicence', ['acme', { id: 'l-all', api: '*' }], olgaActor);
    const changeId = 'pending' in filed ? filed.pending.id : 'none';
    beforeNextWrite(a.service, closeOnB);
    await expect(a.queue.approve(changeId, bootstrap)).rejects.toMatchObject({ code: 'permission_denied' });
    expect((await a.service.writer.index()).vendor('acme')?.licences).toEqual([]);
  });
});
