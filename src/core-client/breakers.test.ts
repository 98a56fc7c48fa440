/**
 * The breaker wrapper on its own: its refusals and timeouts come back as typed errors (and an
 * attempt's own errors unchanged, even one whose code is ETIMEDOUT), Retry-After counts down
 * the reset time, and `gateway_circuit_state` follows every state change.
 */
import { createLogger } from '../logging/logger';
import { createMetrics, type GatewayMetrics } from '../metrics/metrics';
import { BreakerTimeoutError, CircuitOpenError, CoreBreakers } from './breakers';
import { breakersSchema } from './breakers.schema';

const RESET_MS = 300;

function build(): { breakers: CoreBreakers; metrics: GatewayMetrics } {
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  const config = breakersSchema.parse({
    resources: { timeoutMs: 100, volumeThreshold: 2, resetTimeoutMs: RESET_MS },
    bankaccounts: { volumeThreshold: 1, resetTimeoutMs: 5000 },
  });
  return { breakers: new CoreBreakers(config, { defaultTimeoutMs: 5000, metrics, logger: createLogger('silent') }), metrics };
}

async function gauge(metrics: GatewayMetrics, group: string): Promise<number | undefined> {
  const { values } = await metrics.circuitState.get();
  return values.find((v) => v.labels.group === group)?.value;
}

const rejection = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => null, (e: unknown) => e);

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
    expect(built.breakers.states()).toEqual({ resources: 'closed', bankaccounts: 'closed', receipts: 'closed' });
  });
});
