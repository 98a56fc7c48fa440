/**
 * The memory idempotency store's own duties, with a clock the test moves: records are
 * forgotten after their retention (memory stays bounded) and an expired claim is unknown.
 */
import { MemoryIdempotencyStore } from './memory-idempotency-store';

const TIMINGS = { inFlightMs: 1000, retentionMs: 60_000 };
const FP = Buffer.from('fingerprint');
const response = { status: 201, contentType: 'application/json', body: Buffer.from('{"receiptNo":1}') };

describe('memory idempotency store', () => {
  it('forgets settled keys after the retention and sweeps them, so memory stays bounded', async () => {
    const clock = { now: 0 };
    const store = new MemoryIdempotencyStore(TIMINGS, () => clock.now);
    for (let i = 0; i < 100; i++) {
      await store.claim(`k${i}`, FP, 't');
      await store.complete(`k${i}`, FP, 't', response);
    }
    expect(store.size).toBe(100);
    clock.now = TIMINGS.retentionMs - 1;
    expect((await store.claim('k0', FP, 'retry')).kind).toBe('completed');
    clock.now = TIMINGS.retentionMs;
    expect(await store.claim('fresh', FP, 't')).toEqual({ kind: 'claimed' });
    expect(store.size).toBe(1);
    expect(await store.claim('k0', FP, 'retry')).toEqual({ kind: 'claimed' });
  });

  it('turns an in-flight claim unknown at its deadline and keeps it unknown for the retention', async () => {
    const clock = { now: 0 };
    const store = new MemoryIdempotencyStore(TIMINGS, () => clock.now);
    await store.claim('k', FP, 'dead');
    clock.now = TIMINGS.inFlightMs - 1;
    expect(await store.claim('k', FP, 'retry')).toEqual({ kind: 'in_flight' });
    clock.now = TIMINGS.inFlightMs;
    expect(await store.claim('k', FP, 'retry')).toEqual({ kind: 'unknown' });
    clock.now = TIMINGS.inFlightMs + TIMINGS.retentionMs - 1;
    expect(await store.claim('k', FP, 'retry')).toEqual({ kind: 'unknown' });
    clock.now = TIMINGS.inFlightMs + TIMINGS.retentionMs;
    expect(await store.claim('k', FP, 'retry')).toEqual({ kind: 'claimed' });
  });

  it('keeps its own copy of a stored body', async () => {
    const store = new MemoryIdempotencyStore(TIMINGS);
    const body = Buffer.from('{"receiptNo":7}');
    await store.claim('k', FP, 't');
    await store.complete('k', FP, 't', { ...response, body });
    body.fill(0);
    const outcome = await store.claim('k', FP, 'retry');
    expect(outcome.kind === 'completed' && outcome.response.body.toString()).toBe('{"receiptNo":7}');
  });
});
