/**
 * Stages a whole access config in Redis for the swap script (lua/swap.ts): each kind
 * of record goes into a private hash beside the live one (same `{access}` slot), in chunks of
 * 1,000 fields, each chunk giving the hash the staging lifetime so that a writer that dies
 * mid-write leaves nothing behind for ever. Records are serialised a chunk at a time, so 100,000
 * keys never sit in memory as text all at once.
 *
 * Reads the records it is given; sets the staged hashes (the caller deletes them after the swap),
 * and answers how many fields each one gained, which the swap checks are all still there (a lifetime that ran out during a long write
 * must not swap in a loss).
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/redis-client';
import { canonicalJson, type AccessRecords, type RecordKind, type RecordValues } from './access-state';

/** Fields per HSET: small enough that neither Redis nor this process stalls. */
const CHUNK_FIELDS = 1000;

export type StagedKind = RecordKind | 'keyhash';

export type StagedKeys = Readonly<Record<StagedKind, string>>;

/** Fresh private hash names under `<base>:stage:<random>`, one per kind. */
export function stagedKeys(base: string): StagedKeys {
  const stage = `${base}:stage:${randomBytes(8).toString('hex')}`;
  return {
    vendor: `${stage}:vendors`,
    key: `${stage}:keys`,
    user: `${stage}:users`,
    keyhash: `${stage}:keyhash`,
    admin: `${stage}:admins`,
    proposal: `${stage}:pending`,
    portalUser: `${stage}:portalusers`,
  };
}

/**
 * Stages `records` under `keys` and answers how many fields each hash gained. Admins, pending
 * changes and portal users are staged only `withAdmins` (a whole-document write leaves them as
 * the store holds them).
 */
export async function stageRecords(
  client: RedisClient,
  keys: StagedKeys,
  records: AccessRecords,
  withAdmins: boolean,
  ttlMs: number,
): Promise<Readonly<Record<StagedKind, number>>> {
  const counts: Record<StagedKind, number> = { vendor: 0, key: 0, user: 0, keyhash: 0, admin: 0, proposal: 0, portalUser: 0 };
  const write = async (kind: StagedKind, entries: Iterable<[string, string]>): Promise<void> => {
    const key = keys[kind];
    let chunk: string[] = [];
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      // A pipeline answers each command's error in its results rather than failing: a chunk
      // lost to a dropped connection must stop the swap, not let it swap in a partial config.
      const results = await client
        .pipeline()
        .hset(key, ...chunk)
        .pexpire(key, ttlMs)
        .exec();
      const failed = (results ?? []).find(([err]) => err !== null)?.[0];
      if (failed) throw failed;
      counts[kind] += Number(results?.[0]?.[1] ?? 0);
      chunk = [];
    };
    for (const [field, value] of entries) {
      chunk.push(field, value);
      if (chunk.length >= CHUNK_FIELDS * 2) await flush();
    }
    await flush();
  };
  // Records of a validated document or of a store: schema output already.
  const asJson = function* <K extends RecordKind>(kind: K, items: readonly RecordValues[K][]): Iterable<[string, string]> {
    for (const item of items) yield [item.id, canonicalJson(kind, item)];
  };
  await write('vendor', asJson('vendor', records.vendors));
  await write('key', asJson('key', records.keys));
  await write('user', asJson('user', records.users));
  await write(
    'keyhash',
    (function* () {
      for (const key of records.keys) yield [key.hash, key.id] as [string, string];
    })(),
  );
  if (withAdmins) {
    await write('admin', asJson('admin', records.admins ?? []));
    await write('proposal', asJson('proposal', records.proposals ?? []));
    await write('portalUser', asJson('portalUser', records.portalUsers ?? []));
  }
  return counts;
}
