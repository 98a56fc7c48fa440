/**
 * The audit hash chain and its verifier, as pure functions: what the hash covers, and each way
 * of tampering (edit, delete, insert, reorder, cut the front, cut the newest, forge or cut a
 * checkpoint) found at the entry where it happened.
 */
import { generateKeyPairSync } from 'node:crypto';
import { canonicalJson, ChainVerifier, entryHash, GENESIS_HASH, keyIdOf, signCheckpoint, type VerifyOptions } from './audit-chain';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keyId = keyIdOf(publicKey);
const keys = new Map([[keyId, publicKey]]);

type Entry = { id: string } & Record<string, unknown>;

/** A chain of n entries (every `checkpointEvery`th a signed checkpoint), ids `1-0`, `2-0`, ... */
function chain(n: number, checkpointEvery = 0, signer = privateKey, signerId = keyId): Entry[] {
  const out: Entry[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const isCheckpoint = checkpointEvery > 0 && i % checkpointEvery === 0;
    const body = isCheckpoint
      ? { at, actor: 'gateway', action: 'audit.checkpoint', target: 'audit', before: null, after: signCheckpoint(signer, signerId, prev, i - 1, at) }
      : { at, actor: 'admin', action: 'test.step', target: `step/${i}`, before: null, after: { i, nested: { b: 1, a: [1, 2] } } };
    const linked = { ...body, prevHash: prev };
    const hash = entryHash(linked);
    out.push({ id: `${i}-0`, ...linked, hash });
    prev = hash;
  }
  return out;
}

function verify(entries: readonly Entry[], options: Partial<VerifyOptions> = {}) {
  const verifier = new ChainVerifier({ keys, ...options });
  for (const entry of entries) verifier.add(entry);
  return verifier.result();
}

describe('audit hash chain', () => {
  it('hashes a canonical JSON with keys sorted at every depth, so key order does not matter', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}');
    const one = { prevHash: GENESIS_HASH, at: 'x', actor: 'a', action: 'b', target: 'c', before: null, after: { x: 1, y: 2 } };
    const other = { after: { y: 2, x: 1 }, target: 'c', action: 'b', actor: 'a', at: 'x', before: null, prevHash: GENESIS_HASH };
    expect(entryHash(one)).toBe(entryHash(other));
    expect(entryHash(one)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('covers every field but id and hash, including fields added later (vendorIds)', () => {
    const base = { prevHash: GENESIS_HASH, at: 'x', actor: 'a', action: 'b', target: 'c', before: null, after: null, vendorIds: ['acme'] };
    expect(entryHash({ ...base, vendorIds: ['other'] })).not.toBe(entryHash(base));
    expect(entryHash({ ...base, id: '5-0', hash: 'anything' })).toBe(entryHash(base));
    expect(entryHash({ ...base, prevHash: '1'.repeat(64) })).not.toBe(entryHash(base));
  });

  it('passes an untouched chain, counting its signed checkpoints', () => {
    const entries = chain(10, 4);
    expect(verify(entries)).toMatchObject({ ok: true, checked: 10, checkpoints: 2, head: entries[9]!.hash, firstId: '1-0', lastId: '10-0' });
    expect(verify([])).toMatchObject({ ok: true, checked: 0, head: GENESIS_HASH });
  });

  it('names an edited entry', () => {
    const entries = chain(6);
    entries[3] = { ...entries[3]!, after: { i: 999 } };
    expect(verify(entries)).toMatchObject({ ok: false, firstBadId: '4-0', reason: expect.stringMatching(/edited/) });
  });

  it('names the entry after a deleted one', () => {
    const entries = chain(6);
    entries.splice(2, 1);
    expect(verify(entries)).toMatchObject({ ok: false, firstBadId: '4-0', reason: expect.stringMatching(/removed, inserted or moved/) });
  });

  it('names the first of two swapped entries', () => {
    const entries = chain(6);
    [entries[2], entries[3]] = [entries[3]!, entries[2]!];
    expect(verify(entries)).toMatchObject({ ok: false, firstBadId: '4-0' });
  });

  it('names an entry added without the chain, and one re-hashed on its own', () => {
    const entries = chain(4);
    expect(verify([...entries.slice(0, 2), { id: '2-5', at: 'x', actor: 'intruder' }, ...entries.slice(2)])).toMatchObject({
      ok: false,
      firstBadId: '2-5',
      reason: expect.stringMatching(/no hash/),
    });
    const forged: Entry = { ...entries[1]!, after: { i: 'forged' } };
    forged.hash = entryHash(forged);
    expect(verify([entries[0]!, forged, ...entries.slice(2)])).toMatchObject({ ok: false, firstBadId: '3-0' });
  });

  it('accepts a chain trimmed to a signed checkpoint, and refuses one whose front was cut elsewhere', () => {
    const entries = chain(12, 4);
    expect(verify(entries.slice(3))).toMatchObject({ ok: true, firstId: '4-0', checked: 9 });
    expect(verify(entries.slice(5))).toMatchObject({
      ok: false,
      firstBadId: '6-0',
      reason: expect.stringMatching(/neither the first .* nor a signed checkpoint/),
    });
  });

  it('refuses a checkpoint signed by another key as the oldest entry, and a checkpoint whose signature was altered', () => {
    const other = generateKeyPairSync('ed25519');
    const foreign = chain(8, 4, other.privateKey, keyIdOf(other.publicKey));
    expect(verify(foreign.slice(3))).toMatchObject({ ok: false, firstBadId: '4-0', reason: expect.stringMatching(/key not given/) });
    expect(verify(foreign)).toMatchObject({ ok: true, checkpoints: 0, unverifiedCheckpoints: 2 });

    const entries = chain(8, 4);
    const cp = entries[3]!;
    const after = { ...(cp.after as Record<string, unknown>), count: 99 };
    const altered: Entry = { ...cp, after };
    altered.hash = entryHash(altered);
    expect(verify([...entries.slice(0, 3), altered])).toMatchObject({ ok: false, firstBadId: '4-0', reason: expect.stringMatching(/signature/) });
  });

  it('finds the newest entries removed with the head an auditor holds, or the head the store recorded', () => {
    const entries = chain(8);
    const held = entries[7]!.hash as string;
    expect(verify(entries, { expectedHead: held })).toMatchObject({ ok: true });
    expect(verify(entries.slice(0, 6), { expectedHead: held })).toMatchObject({ ok: false, firstBadId: '6-0', reason: expect.stringMatching(/expected head/) });
    expect(verify(entries.slice(0, 6), { recordedHead: held })).toMatchObject({ ok: false, firstBadId: '6-0', reason: expect.stringMatching(/recorded/) });
    // A head older than the newest entry is fine: the log grew since.
    expect(verify(entries, { expectedHead: entries[4]!.hash as string })).toMatchObject({ ok: true });
  });

  it('requires an export to end with a signed checkpoint', () => {
    const entries = chain(9, 4);
    expect(verify(entries, { endsWithCheckpoint: true })).toMatchObject({ ok: false, firstBadId: '9-0', reason: expect.stringMatching(/does not end/) });
    expect(verify(entries.slice(0, 7), { endsWithCheckpoint: true })).toMatchObject({ ok: false, firstBadId: '7-0' });
    expect(verify(entries.slice(0, 8), { endsWithCheckpoint: true })).toMatchObject({ ok: true, checked: 8 });
  });

  it('skips entries written before the chain began, at the front only', () => {
    const entries = chain(3);
    const legacy = { id: '0-1', at: 'x', actor: 'a', action: 'b', target: 'c', before: null, after: null };
    expect(verify([legacy, ...entries])).toMatchObject({ ok: true, unchained: 1, checked: 3 });
  });
});
