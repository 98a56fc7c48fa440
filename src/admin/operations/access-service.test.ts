import { isWellFormedApiKey, hashApiKey } from '../../access/api-key';
import { diffAccessDocuments } from './access-diff';
import { AccessService } from './access-service';
import { accessDocumentSchema, type AccessDocument } from '../../access/model';
import { AccessIndex } from '../../access/access-index';
import { MemoryAccessStore, readDocument } from '../../access/access-store';
import { AccessCache } from '../../access/cache';
import { createLogger } from '../../logging/logger';
import { GatewayError } from '../../errors/error-catalogue';

const HASH_A = `sha256:${'a'.repeat(64)}`;
const HASH_B = `sha256:${'b'.repeat(64)}`;

function document(): AccessDocument {
  return accessDocumentSchema.parse({
    vendors: [
      {
        id: 'acme',
        name: 'Acme',
        rateLimit: { points: 10, durationSeconds: 1 },
        licences: [{ id: 'lic-read', api: 'GET*' }],
        keys: [{ id: 'key-1', prefix: 'cbk_AAAAAAAA', hash: HASH_A, userId: 'teller' }],
      },
    ],
    users: [{ id: 'teller', permissions: [{ id: 'perm-read', api: 'GET*' }] }],
  });
}

const ACTOR = 'admin:test';

/** An instance's admin side: its own cache of the store, and the service on it. */
async function serviceOn(store: MemoryAccessStore, options: ConstructorParameters<typeof AccessService>[2] = {}): Promise<AccessService> {
  const cache = new AccessCache(store, createLogger('silent'));
  await cache.start();
  return new AccessService(cache, store, options);
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('AccessService', () => {
  it('issues a key whose secret authenticates, while the store keeps only its hash and prefix', async () => {
    const store = new MemoryAccessStore(document());
    const service = await serviceOn(store);
    const { result, change } = await service.issueKey('acme', { userId: 'teller' }, ACTOR);

    expect(isWellFormedApiKey(result.secret)).toBe(true);
    const { version, document: stored } = await readDocument(store);
    const record = stored.vendors[0]?.keys.find((k) => k.id === result.id);
    expect(record).toMatchObject({ hash: hashApiKey(result.secret), prefix: result.secret.slice(0, 12), userId: 'teller', status: 'active' });
    expect(JSON.stringify(stored)).not.toContain(result.secret);
    expect(JSON.stringify(change)).not.toContain(result.secret);
    expect(AccessIndex.fromDocument(stored, version).authenticate(result.secret)).toMatchObject({ ok: true, principal: { keyId: result.id } });
  });

  it('names every bad field of a body, unknown properties included', async () => {
    const service = await serviceOn(new MemoryAccessStore(document()));
    const error = await rejection(service.createVendor({ id: '-bad', rateLimit: { points: 0 }, colour: 'red' }, ACTOR));

    expect(error.code).toBe('invalid_request');
    expect(error.errors?.map((e) => e.field).sort()).toEqual(['colour', 'id', 'name', 'rateLimit.durationSeconds', 'rateLimit.points']);
  });

  it('answers not_found for unknown ids and conflict for duplicate ids', async () => {
    const service = await serviceOn(new MemoryAccessStore(document()));

    expect((await rejection(service.getVendor('nobody'))).code).toBe('not_found');
    expect((await rejection(service.revokeKey('key-none', ACTOR))).code).toBe('not_found');
    expect((await rejection(service.revokeLicence('acme', 'lic-none', ACTOR))).code).toBe('not_found');
    expect((await rejection(service.listPermissions('stranger'))).code).toBe('not_found');
    expect((await rejection(service.createVendor({ id: 'acme', name: 'Again' }, ACTOR))).code).toBe('conflict');
    expect((await rejection(service.issueKey('acme', { id: 'key-1', userId: 'teller' }, ACTOR))).code).toBe('conflict');
    expect((await rejection(service.grantLicence('acme', { id: 'lic-read', api: 'GET*' }, ACTOR))).code).toBe('conflict');
    expect((await rejection(service.grantPermission('teller', { id: 'perm-read', api: 'GET*' }, ACTOR))).code).toBe('conflict');
  });

  it('keeps a revoked key in the document, and revoking it again changes nothing', async () => {
    const store = new MemoryAccessStore(document());
    const service = await serviceOn(store);

    const first = await service.revokeKey('key-1', ACTOR);
    const versionAfterFirst = (await readDocument(store)).version;
    const second = await service.revokeKey('key-1', ACTOR);

    expect(first.change).toMatchObject({ before: { status: 'active' }, after: { status: 'revoked' } });
    expect(second.change).toBeNull();
    expect((await readDocument(store)).version).toBe(versionAfterFirst);
    expect((await service.listKeys('acme')).items.map((k) => k.status)).toEqual(['revoked']);
  });

  it('loses no update when two instances write to the same store at once', async () => {
    const store = new MemoryAccessStore(document());
    const instances = [await serviceOn(store), await serviceOn(store)];
    const { version } = await readDocument(store);

    await Promise.all(Array.from({ length: 30 }, (_, i) => instances[i % 2]!.grantPermission(`user-${i % 3}`, { id: `perm-${i}`, api: 'GET*' }, ACTOR)));

    const after = await readDocument(store);
    const granted = after.document.users.flatMap((u) => u.permissions.map((p) => p.id)).filter((id) => id.startsWith('perm-') && id !== 'perm-read');
    expect(granted.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `perm-${i}`).sort());
    expect(after.version).toBe(version + 30);
  });

  it('gives up with conflict when the document is not at the version the caller read', async () => {
    const store = new MemoryAccessStore(document());
    const service = await serviceOn(store);

    const error = await rejection(service.replaceDocument(document(), ACTOR, { expectedVersion: 99 }));

    expect(error.code).toBe('conflict');
  });

  it('applies nothing when the document sent is the one in force', async () => {
    const store = new MemoryAccessStore(document());
    const service = await serviceOn(store);

    const { result, change } = await service.replaceDocument(document(), ACTOR);

    expect(result).toMatchObject({ applied: false, version: 1, diff: { identical: true } });
    expect(change).toBeNull();
  });
});

describe('diffAccessDocuments', () => {
  it('reports added, removed and changed vendors, keys, licences, users and permissions by id', () => {
    const before = document();
    const after = document();
    const acme = after.vendors[0]!;
    acme.status = 'suspended';
    acme.licences = [{ id: 'lic-receipts', api: 'POSTapi/transaction/*' }];
    acme.keys[0]!.status = 'revoked';
    acme.keys.push({ id: 'key-2', prefix: 'cbk_BBBBBBBB', hash: HASH_B, userId: 'teller', status: 'active' });
    after.vendors.push({ id: 'newco', name: 'NewCo', status: 'active', licences: [], keys: [] });
    after.users[0]!.permissions[0]!.api = 'GETaccounts';
    after.users.push({ id: 'auditor', permissions: [] });

    expect(diffAccessDocuments(before, after)).toEqual({
      identical: false,
      vendors: {
        added: ['newco'],
        removed: [],
        changed: [
          {
            id: 'acme',
            fields: [{ field: 'status', from: 'active', to: 'suspended' }],
            keys: { added: ['key-2'], removed: [], changed: [{ id: 'key-1', fields: [{ field: 'status', from: 'active', to: 'revoked' }] }] },
            licences: { added: ['lic-receipts'], removed: ['lic-read'], changed: [] },
          },
        ],
      },
      users: {
        added: ['auditor'],
        removed: [],
        changed: [
          {
            id: 'teller',
            permissions: { added: [], removed: [], changed: [{ id: 'perm-read', fields: [{ field: 'api', from: 'GET*', to: 'GETaccounts' }] }] },
          },
        ],
      },
    });
    expect(diffAccessDocuments(after, before).vendors.removed).toEqual(['newco']);
  });

  it('says a key hash changed without showing either hash', () => {
    const after = document();
    after.vendors[0]!.keys[0]!.hash = HASH_B;

    const diff = diffAccessDocuments(document(), after);

    expect(diff.vendors.changed[0]?.keys.changed).toEqual([{ id: 'key-1', fields: [{ field: 'hash' }] }]);
    expect(JSON.stringify(diff)).not.toMatch(/sha256:/);
  });

  it('finds two equal documents identical', () => {
    expect(diffAccessDocuments(document(), document()).identical).toBe(true);
  });
});

describe('replacing the whole document after a revocation', () => {
  it('refuses a document that would make a revoked key work again', async () => {
    const store = new MemoryAccessStore({ vendors: [{ id: 'v', name: 'V', status: 'active', licences: [], keys: [] }], users: [] });
    const service = await serviceOn(store);
    const issued = await service.issueKey('v', { userId: 'u' }, ACTOR);
    const exported = (await readDocument(store)).document;
    await service.revokeKey(issued.result.id, ACTOR);
    await expect(service.replaceDocument(exported, ACTOR)).rejects.toMatchObject({ code: 'conflict' });
    const live = (await readDocument(store)).document;
    expect(live.vendors[0]?.keys[0]?.status).toBe('revoked');
  });
});
