import { AuthThrottle } from './auth-throttle';

describe('admin auth throttle', () => {
  const clock = { now: 1_000_000 };
  const throttle = (): AuthThrottle => new AuthThrottle({ freeFailures: 3, maxBackoffMs: 8000 }, () => clock.now);

  it('lets the free failures go by, then doubles the wait with each one, up to the maximum', () => {
    const t = throttle();
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      t.failed('10.0.0.1');
      waits.push(t.waitMs('10.0.0.1'));
    }
    expect(waits).toEqual([0, 0, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('keeps addresses apart', () => {
    const t = throttle();
    for (let i = 0; i < 5; i++) t.failed('10.0.0.1');
    expect(t.waitMs('10.0.0.1')).toBeGreaterThan(0);
    expect(t.waitMs('10.0.0.2')).toBe(0);
    expect(t.size).toBe(1);
  });

  it('ends a wait when its time is over', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) t.failed('10.0.0.1');
    expect(t.waitMs('10.0.0.1')).toBe(1000);
    clock.now += 1000;
    expect(t.waitMs('10.0.0.1')).toBe(0);
  });

  it('refuses plainly until an address is made to wait, then answers the Retry-After of the wait the failure set', () => {
    const t = throttle();
    const answers = Array.from({ length: 5 }, () => t.refused('10.0.0.3'));
    expect(answers).toEqual([null, null, null, 2, 4]);
  });
});
