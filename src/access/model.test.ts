import { accessDocumentSchema, derivedGrantId, documentField, parseAccessDocumentInPlace } from './model';
import { fieldErrors } from '../admin/operations/admin-inputs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test spoils arbitrary fields of a plain JSON document
type Spoilable = Record<string, any>;

const HASH = (c: string): string => `sha256:${c.repeat(64)}`;

function valid(): Record<string, unknown> {
  return {
    sandbox: true,
    vendors: [
      { id: 'acme', name: 'Acme', licences: [{ id: 'l1', api: 'GET*' }], keys: [{ id: 'k1', prefix: 'cbk_AAAAAAAA', hash: HASH('a'), userId: 'u1' }] },
      { id: 'beta', name: 'Beta', keys: [] },
    ],
    users: [{ id: 'u1', permissions: [{ id: 'p1', api: 'GET*' }] }],
  };
}

describe('parseAccessDocumentInPlace', () => {
  it('gives the schema’s own result for a valid document, defaults included', () => {
    const result = parseAccessDocumentInPlace(valid());
    expect(result.success && result.data).toEqual(accessDocumentSchema.parse(valid()));
  });

  it('keeps each key and user of the input as the result, with the defaults filled in, so nothing is held twice', () => {
    const input = valid();
    const result = parseAccessDocumentInPlace(input);
    if (!result.success) throw new Error('expected success');
    const rawKey = (input.vendors as Array<{ keys: unknown[] }>)[0]?.keys[0];
    expect(result.data.vendors[0]?.keys[0]).toBe(rawKey);
    expect(rawKey).toMatchObject({ status: 'active' });
    expect(result.data.users[0]).toBe((input.users as unknown[])[0]);
    expect(result.data.vendors[1]).toMatchObject({ status: 'active', licences: [] });
  });

  it.each([
    ['a bad key field', (d: Spoilable) => (d.vendors[0].keys[0].hash = 'md5:x')],
    ['an unknown vendor field', (d: Spoilable) => (d.vendors[1].colour = 'red')],
    ['a bad permission', (d: Spoilable) => (d.users[0].permissions[0].api = 'FETCH*')],
    ['a duplicate key hash', (d: Spoilable) => d.vendors[1].keys.push({ id: 'k2', prefix: 'cbk_BBBBBBBB', hash: HASH('a'), userId: 'u1' })],
    ['a duplicate vendor id', (d: Spoilable) => (d.vendors[1].id = 'acme')],
    ['vendors that are not a list', (d: Spoilable) => (d.vendors = 'acme')],
    ['an unknown top-level field', (d: Spoilable) => (d.owner = 'me')],
  ])('names the same fields as the schema for %s', (_what, spoil) => {
    const expected = valid();
    spoil(expected);
    const schema = accessDocumentSchema.safeParse(expected);
    const inPlace = parseAccessDocumentInPlace(structuredClone(expected));
    expect(schema.success).toBe(false);
    expect(inPlace.success).toBe(false);
    if (schema.success || inPlace.success) return;
    expect(fieldErrors(inPlace.error)).toEqual(fieldErrors(schema.error));
  });
});

describe('licence and permission ids a document leaves out', () => {
  it('derives them from the owner and the pattern, the same on every parse, and keeps the ids written', () => {
    const input = {
      vendors: [{ id: 'acme', name: 'Acme', licences: [{ api: 'GET*' }, { id: 'mine', api: 'POST*' }] }],
      users: [{ id: 'ann', permissions: [{ api: 'GET*' }] }],
    };
    const first = parseAccessDocumentInPlace(structuredClone(input));
    const again = parseAccessDocumentInPlace(structuredClone(input));
    if (!first.success || !again.success) throw new Error('expected success');
    const [derived, kept] = first.data.vendors[0]!.licences;
    expect(derived!.id).toBe(derivedGrantId('lic', 'acme', 'GET*'));
    expect(derived!.id).toMatch(/^lic-[0-9a-f]{12}$/);
    expect(kept!.id).toBe('mine');
    expect(first.data.users[0]!.permissions[0]!.id).toMatch(/^perm-[0-9a-f]{12}$/);
    // The owner is part of it: another user's same pattern gets another id.
    expect(derivedGrantId('perm', 'bob', 'GET*')).not.toBe(first.data.users[0]!.permissions[0]!.id);
    expect(again.data).toEqual(first.data);
  });

  it('refuses two entries of one owner that would share an id, naming the owner and the entry', () => {
    const input = { vendors: [{ id: 'acme', name: 'Acme', licences: [{ api: 'GET*' }, { api: 'GET*' }] }] };
    const result = parseAccessDocumentInPlace(input);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(fieldErrors(result.error, (path) => documentField(path, input).field)).toEqual([
      { field: 'vendors[acme].licences[1].api', message: expect.stringMatching(/^same id "lic-[0-9a-f]{12}" as entry 1 \(derived from the pattern/) },
    ]);
  });
});

describe('documentField', () => {
  const input = { vendors: [{ id: 'acme' }, { id: 'not a valid id' }], users: [{ id: 'ann' }] };

  it.each([
    [['vendors', 0, 'licences', 1, 'api'], 'vendors[acme].licences[1].api', 'vendor "acme" licence 2, api'],
    [['vendors', 0, 'keys', 0, 'hash'], 'vendors[acme].keys[0].hash', 'vendor "acme" key 1, hash'],
    [['vendors', 0, 'rateLimit', 'points'], 'vendors[acme].rateLimit.points', 'vendor "acme", rateLimit.points'],
    [['vendors', 1, 'id'], 'vendors.1.id', 'vendor 2, id'],
    [['users', 0, 'permissions', 0, 'api'], 'users[ann].permissions[0].api', 'user "ann" permission 1, api'],
    [['users', 0], 'users[ann]', 'user "ann"'],
    [['sandbox'], 'sandbox', 'sandbox'],
    [[], '(root)', '(root)'],
  ])('names %j as %s', (path, field, words) => {
    expect(documentField(path, input)).toEqual({ field, words });
  });
});
