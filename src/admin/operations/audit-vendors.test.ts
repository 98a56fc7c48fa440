/**
 * Each admin change's audit entry names the vendors it concerns, resolved on the records it is
 * planned on: a vendor's own writes, a key's vendor (its target is `keys/<id>`), the vendors whose
 * live keys act as a user whose permission changed, every vendor a whole-document change touched,
 * and a change filed for approval or rejected; none for admin accounts.
 */
import { MemoryAccessStore } from '../../access/access-store';
import { type AuditEntry } from '../../access/audit-log';
import { MemoryAuditLog } from '../../access/memory-audit-log';
import type { AccessDocument, AdminAccount } from '../../access/model';
import { accessServiceFor } from '../../../test/support/access-service';
import { AdminDirectory } from './admin-directory';
import { Proposals } from './proposals';
import { BOOTSTRAP_ID } from './four-eyes';

const ACTOR = 'admin:otto';
const vendor = (id: string) => ({ id, name: id, status: 'active' as const, licences: [], keys: [] });

async function setUp(document: AccessDocument = { vendors: [vendor('acme'), vendor('acme-corp'), vendor('other')], users: [] }) {
  const audit = new MemoryAuditLog();
  const store = new MemoryAccessStore(document, { audit });
  const service = accessServiceFor(store);
  const newest = async (): Promise<AuditEntry> => (await audit.list({ limit: 1 }))[0] as AuditEntry;
  return { audit, store, service, newest };
}

describe('vendorIds of audit entries', () => {
  it('names the vendor of vendor, licence and rate-limit writes, and the key’s vendor for key writes by key id', async () => {
    const { service, newest } = await setUp();
    await service.patchVendor('acme', { name: 'Acme Ltd' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'vendor.update', vendorIds: ['acme'] });
    await service.grantLicence('acme', { id: 'lic-1', api: '*' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'licence.grant', vendorIds: ['acme'] });
    await service.setRateLimit('acme', { points: 10, durationSeconds: 60 }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'rate-limit.set', vendorIds: ['acme'] });
    await service.issueKey('acme-corp', { id: 'key-1', userId: 'teller' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'key.issue', vendorIds: ['acme-corp'] });
    await service.patchKey('key-1', { expiresAt: '2099-01-01T00:00:00.000Z' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'key.update', target: 'keys/key-1', vendorIds: ['acme-corp'] });
    await service.revokeKey('key-1', ACTOR);
    expect(await newest()).toMatchObject({ action: 'key.revoke', target: 'keys/key-1', vendorIds: ['acme-corp'] });
    await service.deleteVendor('other', ACTOR);
    expect(await newest()).toMatchObject({ action: 'vendor.delete', vendorIds: ['other'] });
  });

  it('names every vendor with a live key acting as the user whose permission is granted or revoked', async () => {
    const { service, newest } = await setUp();
    await service.issueKey('acme', { id: 'k-acme', userId: 'teller' }, ACTOR);
    await service.issueKey('other', { id: 'k-other', userId: 'teller' }, ACTOR);
    await service.issueKey('acme-corp', { id: 'k-corp', userId: 'clerk' }, ACTOR);
    await service.issueKey('acme-corp', { id: 'k-corp-old', userId: 'teller' }, ACTOR);
    await service.revokeKey('k-corp-old', ACTOR);

    await service.grantPermission('teller', { id: 'p1', api: 'GET*' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'permission.grant', vendorIds: ['acme', 'other'] });
    await service.revokePermission('teller', 'p1', ACTOR);
    expect(await newest()).toMatchObject({ action: 'permission.revoke', vendorIds: ['acme', 'other'] });
    await service.grantPermission('nobody', { api: 'GET*' }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'permission.grant', vendorIds: [] });
  });

  it('names every vendor a whole-document change added, removed or changed (keys included), and no other', async () => {
    const { service, newest } = await setUp({
      vendors: [vendor('acme'), vendor('acme-corp'), vendor('other'), vendor('gone')],
      users: [],
    });
    await service.issueKey('acme', { id: 'k1', userId: 'teller' }, ACTOR);
    const current = JSON.parse([...(await service.exportDocument()).chunks].join('')) as AccessDocument;
    const next: AccessDocument = {
      vendors: [
        ...current.vendors
          .filter((v) => v.id !== 'gone')
          .map((v) => (v.id === 'acme' ? { ...v, keys: v.keys.map((k) => ({ ...k, status: 'revoked' as const })) } : v)),
        vendor('new'),
      ],
      users: current.users,
    };
    await service.replaceDocument(next, ACTOR);
    expect(await newest()).toMatchObject({ action: 'access.replace', target: 'access', vendorIds: ['acme', 'gone', 'new'] });
  });

  it('names none for admin accounts', async () => {
    const { service, newest } = await setUp();
    await new AdminDirectory(service.writer).create({ id: 'nina', name: 'Nina', role: 'viewer' }, { codeHash: `sha256:${'c'.repeat(64)}` }, ACTOR);
    expect(await newest()).toMatchObject({ action: 'admin.create', vendorIds: [] });
  });

  it('names the vendor of a change filed for approval, and of its rejection', async () => {
    const anna: AdminAccount = {
      id: 'anna',
      name: 'Anna',
      role: 'approver',
      createdAt: '2026-01-01T00:00:00.000Z',
      sponsor: BOOTSTRAP_ID,
      tokenPrefix: 'cba_abcd',
      tokenHash: `sha256:${'a'.repeat(64)}`,
    };
    const { store, service, newest } = await setUp();
    await store.commit({ ops: [{ kind: 'admin', id: 'anna', value: anna, expect: null }], audit: null });
    await service.issueKey('acme', { id: 'k1', userId: 'teller' }, ACTOR);
    const queue = new Proposals(service, { approvals: 'required', changeTtlHours: 72 }, new AdminDirectory(service.writer));
    const filed = await queue.submit('grantPermission', ['teller', { api: 'GET*' }], { actor: 'admin:anna', adminId: 'anna' });
    expect('pending' in filed).toBe(true);
    expect(await newest()).toMatchObject({ action: 'change.propose', vendorIds: ['acme'] });
    const changeId = (filed as { pending: { id: string } }).pending.id;
    await queue.reject(changeId, { actor: 'admin:bootstrap', adminId: BOOTSTRAP_ID });
    expect(await newest()).toMatchObject({ action: 'change.reject', vendorIds: ['acme'] });
  });
});
