/**
 * The breaker wrapper on its own: its refusals and timeouts come back as typed errors (and an
 * attempt's own errors unchanged, even one whose code is ETIMEDOUT), Retry-After counts down
 * to the next probe, the wait before a probe starts short and doubles per failed probe up to
 * resetTimeoutMs, and `gateway_circuit_state` follows every state change. Real timers.
 */
import { createLogger } from '../logging/logger';
import { createMetrics, type GatewayMetrics } from '../metrics/metrics';
import { BreakerTimeoutError, CircuitOpenError, CoreBreakers, type CoreBreaker } from './breakers';
import { breakersSchema, type BreakersConfig } from './breakers.schema';

const RESET_MS = 300;

function build(
  config: BreakersConfig = breakersSchema.parse({
    resources: { timeoutMs: 100, volumeThreshold: 2, resetTimeoutMs: RESET_MS },
    bankaccounts: { volumeThreshold: 1, resetTimeoutMs: 5000, firstProbeDelayMs: 5000 },
  }),
): { breakers: CoreBreakers; metrics: GatewayMetrics } {
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  return { breakers: new CoreBreakers(config, { defaultTimeoutMs: 5000, metrics, logger: createLogger('silent') }), metrics };
}

async function gauge(metrics: GatewayMetrics, group: string): Promise<number | undefined> {
  const { values } = await metrics.circuitState.get();
  return values.find((v) => v.labels.group === group)?.value;
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );
const failing = (): Promise<never> => Promise.reject(new Error('refused'));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds from now until the breaker turns half-open, polled every 2 ms. */
async function untilHalfOpen(breaker: CoreBreaker, withinMs: number): Promise<number> {
  const started = performance.now();
  while (breaker.state !== 'half-open') {
    if (performance.now() - started > withinMs) throw new Error(`not half-open within ${withinMs} ms (${breaker.state})`);
    await sleep(2);
  }
  return performance.now() - started;
}

describe('CoreBreakers', () => {
  let built: ReturnType<typeof build>;
  beforeEach(() => (built = build()));
  afterEach(() => built.breakers.shutdown());

  it('uses the group timeout, or core.timeoutMs when the group sets none', () => {
    expect(built.breakers.get('resources').timeoutMs).toBe(100);
    expect(built.breakers.get('receipts').timeoutMs).toBe(5000);
  });

  it("passes an attempt's own error through unchanged, even one coded ETIMEDOUT", async () => {
    const own = Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' });
    expect(await rejection(built.breakers.get('resources').run(() => Promise.reject(own)))).toBe(own);
  });

  it('turns its own timeout into BreakerTimeoutError', async () => {
    const err = await rejection(built.breakers.get('resources').run(() => new Promise(() => undefined)));
    expect(err).toBeInstanceOf(BreakerTimeoutError);
  });

  it('counts Retry-After down to the half-open time, never below 1 s', async () => {
    const breaker = built.breakers.get('bankaccounts');
    await rejection(breaker.run(() => Promise.reject(new Error('refused'))));
    const now = Date.now();
    expect(breaker.retryAfterSeconds(now)).toBe(5);
    expect(breaker.retryAfterSeconds(now + 2500)).toBe(3);
    expect(breaker.retryAfterSeconds(now + 60_000)).toBe(1);
  });

  it('opens, refuses without calling the attempt, probes once and closes; the gauge follows', async () => {
    const breaker = built.breakers.get('resources');
    expect(await gauge(built.metrics, 'resources')).toBe(0);
    for (let i = 0; i < 2; i += 1) await rejection(breaker.run(() => Promise.reject(new Error('refused'))));
    expect(breaker.state).toBe('open');
    expect(await gauge(built.metrics, 'resources')).toBe(2);

    let called = false;
    const refused = await rejection(breaker.run(() => ((called = true), Promise.resolve(1))));
    expect(refused).toBeInstanceOf(CircuitOpenError);
    expect((refused as CircuitOpenError).retryAfterSeconds).toBe(1);
    expect(called).toBe(false);

    await new Promise((r) => setTimeout(r, RESET_MS + 50));
    expect(breaker.state).toBe('half-open');
    expect(await gauge(built.metrics, 'resources')).toBe(1);
    let release: (value: number) => void = () => undefined;
    const probe = breaker.run(() => new Promise<number>((resolve) => (release = resolve)));
    expect(await rejection(breaker.run(() => Promise.resolve(2)))).toBeInstanceOf(CircuitOpenError);
    release(200);
    expect(await probe).toBe(200);
    expect(breaker.state).toBe('closed');
    expect(await gauge(built.metrics, 'resources')).toBe(0);
    expect(built.breakers.states()).toEqual({ resources: 'closed', bankaccounts: 'closed', receipts: 'closed', customers: 'closed' });
  });
});

describe('CoreBreaker recovery', () => {
  let built: ReturnType<typeof build> | undefined;
  afterEach(() => built?.breakers.shutdown());

  it('probes after firstProbeDelayMs, doubles the wait per failed probe up to resetTimeoutMs, and starts short again once closed', async () => {
    const FIRST_MS = 100;
    const CAP_MS = 800;
    built = build(breakersSchema.parse({ resources: { volumeThreshold: 1, firstProbeDelayMs: FIRST_MS, resetTimeoutMs: CAP_MS } }));
    const breaker = built.breakers.get('resources');

    await rejection(breaker.run(failing));
    expect(breaker.state).toBe('open');
    const waits = [await untilHalfOpen(breaker, CAP_MS * 2)];
    for (let probe = 0; probe < 4; probe += 1) {
      await rejection(breaker.run(failing));
      expect(breaker.state).toBe('open');
      waits.push(await untilHalfOpen(breaker, CAP_MS * 2));
    }
    const expected = [100, 200, 400, 800, 800];
    waits.forEach((wait, i) => {
      // Node starts a timer from the event loop's cached clock, so it may fire a few ms early as
      // seen from here; never a doubling early.
      expect(wait).toBeGreaterThanOrEqual(expected[i]! - 10);
      // Late by a loaded machine's scheduling, but never by a doubling.
      expect(wait).toBeLessThan(expected[i]! * 1.5 + 40);
    });

    expect(await breaker.run(() => Promise.resolve('ok'))).toBe('ok');
    expect(breaker.state).toBe('closed');
    await rejection(breaker.run(failing));
    const afterClose = await untilHalfOpen(breaker, CAP_MS * 2);
    expect(afterClose).toBeGreaterThanOrEqual(FIRST_MS - 10);
    expect(afterClose).toBeLessThan(FIRST_MS * 1.5 + 40);
  });

  it("tells Retry-After from the open period's own wait, which grows with the failed probes", async () => {
    built = build(breakersSchema.parse({ resources: { volumeThreshold: 1, firstProbeDelayMs: 1000, resetTimeoutMs: 2000 } }));
    const breaker = built.breakers.get('resources');
    await rejection(breaker.run(failing));
    const refused = await rejection(breaker.run(() => Promise.resolve(1)));
    expect((refused as CircuitOpenError).retryAfterSeconds).toBe(1);

    await untilHalfOpen(breaker, 1500);
    await rejection(breaker.run(failing));
    const reopenedAt = Date.now();
    const refusedAgain = await rejection(breaker.run(() => Promise.resolve(1)));
    expect((refusedAgain as CircuitOpenError).retryAfterSeconds).toBe(2);
    expect(breaker.retryAfterSeconds(reopenedAt + 1200)).toBe(1);
  });

  it('keeps the fixed wait of a config whose resetTimeoutMs is below firstProbeDelayMs', async () => {
    built = build(breakersSchema.parse({ resources: { volumeThreshold: 1, resetTimeoutMs: 150 } }));
    const breaker = built.breakers.get('resources');
    await rejection(breaker.run(failing));
    for (let probe = 0; probe < 3; probe += 1) {
      const wait = await untilHalfOpen(breaker, 1000);
      expect(wait).toBeGreaterThanOrEqual(140);
      expect(wait).toBeLessThan(150 + 80);
      await rejection(breaker.run(failing));
    }
  });
});
