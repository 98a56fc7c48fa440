/**
 * The access document `npm run bench:scale` uploads: `size` keys, each its own user with two
 * permissions. Reads nothing; starts nothing.
 */
import { generateApiKey, hashApiKey, apiKeyPrefix } from '../src/access/api-key';

/** The vendor's config: `size` keys, each its own user with two permissions; the first `sampleKeys` secrets kept. */
export function accessDocument(size: number, sampleKeys: number): { json: string; secrets: string[]; keyIds: string[] } {
  const secrets: string[] = [];
  const keys = [];
  const users = [];
  for (let i = 0; i < size; i++) {
    const secret = generateApiKey();
    if (i < sampleKeys) secrets.push(secret);
    const id = `k${i}`;
    keys.push({ id, prefix: apiKeyPrefix(secret), hash: hashApiKey(secret), userId: `u${i}` });
    users.push({
      id: `u${i}`,
      permissions: [
        { id: 'read-accounts', api: 'GETaccounts*' },
        { id: 'read-customers', api: 'GETcustomers*' },
      ],
    });
  }
  const vendor = { id: 'bench', name: 'Bench', rateLimit: { points: 1_000_000, durationSeconds: 1 }, licences: [{ id: 'read', api: 'GET*' }], keys };
  return { json: JSON.stringify({ vendors: [vendor], users }), secrets, keyIds: keys.slice(0, sampleKeys).map((k) => k.id) };
}
