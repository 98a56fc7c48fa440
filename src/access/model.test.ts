import { accessDocumentSchema, parseAccessDocumentInPlace } from './model';
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
