/**
 * The epoch watch's store sequence on the shared test Redis (a prefix of its own): a sequence
 * gone back under the same marker is a stale copy, found by the poll or taken on a claim's word;
 * the finder replaces the marker so that other instances hold too; a claim's sequence from
 * before the marker changed says nothing about the new one.
 */
import Redis from 'ioredis';
import { createLogger } from '../logging/logger';
import { within } from '../../test/support/within';
import { StoreEpoch } from './store-epoch';

const client = new Redis(process.env.TEST_REDIS_URL as string, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 200, lazyConnect: true });
client.on('error', () => undefined);
let prefixCounter = 0;
const epochs: StoreEpoch[] = [];

beforeAll(() => client.connect());
afterAll(() => {
  for (const epoch of epochs) epoch.stop();
  client.disconnect();
});

function epochOn(prefix: string, losses: { count: number }, on: Redis = client): StoreEpoch {
  const epoch = new StoreEpoch({
    client: on,
    keyPrefix: prefix,
    holdMs: 60_000,
    checkIntervalMs: 60_000,
    recordLifeMs: 60_000,
    logger: createLogger('silent'),
    onLossDetected: () => void (losses.count += 1),
  });
  epochs.push(epoch);
  return epoch;
}

describe('StoreEpoch store sequence', () => {
  it('holds when the sequence goes back under the same marker, and replaces the marker so that another instance holds too', async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const losses = { count: 0 };
    const finder = epochOn(prefix, losses);
    const other = epochOn(prefix, { count: 0 });
    await finder.start();
    await other.start();
    const firstId = finder.currentId();
    expect(other.currentId()).toBe(firstId);

    await client.incrby(`${prefix}epoch:seq`, 10); // claims counted it up
    await finder.check();
    expect(finder.highestSeq()).toBe(10);
    expect(finder.held).toBe(false);

    await client.set(`${prefix}epoch:seq`, '4'); // back from a copy taken at 4
    await finder.check();
    expect(finder.held).toBe(true);
    expect(losses.count).toBe(1);
    expect(finder.currentId()).not.toBe(firstId);
    expect(JSON.parse((await client.get(`${prefix}epoch`)) as string)).toMatchObject({ id: finder.currentId() });
    expect(finder.highestSeq()).toBe(4);

    // Never saw 10 itself: the replaced marker tells it.
    await other.check();
    expect(other.held).toBe(true);
    expect(other.currentId()).toBe(finder.currentId());
  });

  it("takes a claim's word for a stale copy even when the sequence was counted up again meanwhile", async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const losses = { count: 0 };
    const epoch = epochOn(prefix, losses);
    await epoch.start();
    const id = epoch.currentId() as string;
    await epoch.lossSeen('another-id'); // a claim under a marker this instance no longer knows: nothing to do
    expect(epoch.held).toBe(false);
    await epoch.lossSeen(id);
    expect(epoch.held).toBe(true);
    expect(losses.count).toBe(1);
    expect(epoch.currentId()).not.toBe(id);
  });

  it("holds when this instance's own key is lower than its last claim wrote, even with the shared sequence counted past it by others", async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const losses = { count: 0 };
    const epoch = epochOn(prefix, losses);
    await epoch.start();
    const id = epoch.currentId() as string;
    await client.set(epoch.ownSeqKey, '9');
    epoch.seqSeen(id, 9);
    expect(epoch.ownSeqExpected()).toBe(9);
    await client.set(`${prefix}epoch:seq`, '50'); // others counted on after a stale copy came back
    await client.set(epoch.ownSeqKey, '2');
    await epoch.check();
    expect(epoch.held).toBe(true);
    expect(losses.count).toBe(1);
    expect(epoch.currentId()).not.toBe(id);
    expect(epoch.ownSeqExpected()).toBe(0);
  });

  it('takes its own key gone as no loss once its last claim is older than a record lives', async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const losses = { count: 0 };
    const epoch = new StoreEpoch({
      client,
      keyPrefix: prefix,
      holdMs: 60_000,
      checkIntervalMs: 60_000,
      recordLifeMs: 100,
      logger: createLogger('silent'),
      onLossDetected: () => void (losses.count += 1),
    });
    epochs.push(epoch);
    await epoch.start();
    expect(epoch.ownSeqTtlMs).toBeGreaterThan(100);
    await client.set(`${prefix}epoch:seq`, '3'); // its claim counted the shared sequence to 3
    epoch.seqSeen(epoch.currentId() as string, 3);
    expect(epoch.ownSeqExpected()).toBe(3);
    await new Promise((r) => setTimeout(r, 150));
    expect(epoch.ownSeqExpected()).toBe(0);
    await epoch.check(); // the own key was never written: gone
    expect(epoch.held).toBe(false);
    expect(losses.count).toBe(0);
  });

  it("keeps a claim's sequence only under the marker it was claimed under", async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const epoch = epochOn(prefix, { count: 0 });
    await epoch.start();
    const id = epoch.currentId() as string;
    epoch.seqSeen(id, 7);
    epoch.seqSeen('an-older-marker', 99);
    expect(epoch.highestSeq()).toBe(7);
  });

  it('holds at once when a claim found a loss that Redis could not be told of, and replaces the marker as soon as Redis answers, so that the other instances hold too', async () => {
    const prefix = `test:${process.pid}:epoch${++prefixCounter}:`;
    const own = new Redis(process.env.TEST_REDIS_URL as string, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 200, lazyConnect: true });
    own.on('error', () => undefined);
    await own.connect();
    const losses = { count: 0 };
    const finder = epochOn(prefix, losses, own);
    const other = epochOn(prefix, { count: 0 });
    try {
      await finder.start();
      await other.start();
      const id = finder.currentId() as string;
      const ended = new Promise((resolve) => own.once('end', resolve));
      own.disconnect(); // the check after the claim's word fails at once: no offline queue
      await ended;

      await finder.lossSeen(id);
      expect(finder.held).toBe(true);
      expect(losses.count).toBe(1);
      expect(JSON.parse((await client.get(`${prefix}epoch`)) as string)).toMatchObject({ id });

      await own.connect();
      await within(5000, async () => finder.currentId() !== id);
      expect(JSON.parse((await client.get(`${prefix}epoch`)) as string)).toMatchObject({ id: finder.currentId() });
      expect(losses.count).toBe(1);
      await other.check();
      expect(other.held).toBe(true);
    } finally {
      finder.stop();
      own.disconnect();
    }
  });
});
