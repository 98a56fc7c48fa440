import { MemorySessionEpochs } from './session-epochs';
import { SignedSessions, type SignedSessionOptions } from './signed-sessions';

const START = Date.parse('2026-11-24T12:00:00Z');
const MINUTE = 60_000;

function sessionsAt(clock: { now: number }, overrides: Partial<SignedSessionOptions> = {}): SignedSessions {
  return new SignedSessions({
    namespace: 'admin',
    secret: 'bootstrap-token-for-tests-0123',
    idleMs: 30 * MINUTE,
    maxMs: 12 * 60 * MINUTE,
    epochs: new MemorySessionEpochs(),
    now: () => clock.now,
    ...overrides,
  });
}

describe('signed sessions', () => {
  it('ends a session issued with a shorter lifetime of its own then, however often renewed, and never extends the namespace maximum', async () => {
    const clock = { now: START };
    const sessions = sessionsAt(clock);
    const short = await sessions.issue('oidc:alice', 'sso:operator', 15 * MINUTE);
    clock.now += 10 * MINUTE;
    const renewed = sessions.renew((await sessions.read(short.value))!);
    expect(renewed.maxAgeSeconds).toBe(5 * 60);
    clock.now += 5 * MINUTE;
    expect(await sessions.read(renewed.value)).toBeNull();
    const long = await sessions.issue('oidc:bob', 'sso:viewer', 24 * 60 * MINUTE);
    expect(long.claims.maxMs).toBeUndefined();
  });

  it('reads back what it issued until the idle time has passed; each renewal slides it', async () => {
    const clock = { now: START };
    const sessions = sessionsAt(clock);
    const issued = await sessions.issue('otto', 'f1');
    expect(issued.maxAgeSeconds).toBe(1800);
    clock.now += 29 * MINUTE;
    const claims = await sessions.read(issued.value);
    expect(claims).toMatchObject({ subject: 'otto', fingerprint: 'f1', startedAtMs: START, expiresAtMs: START + 30 * MINUTE });
    const renewed = sessions.renew(claims!);
    clock.now += 2 * MINUTE;
    expect(await sessions.read(issued.value)).toBeNull();
    expect(await sessions.read(renewed.value)).toMatchObject({ subject: 'otto', startedAtMs: START });
  });

  it('ends a session at its maximum lifetime however often it is renewed', async () => {
    const clock = { now: START };
    const sessions = sessionsAt(clock, { maxMs: 60 * MINUTE });
    let value = (await sessions.issue('otto', 'f1')).value;
    for (let minute = 20; minute < 60; minute += 20) {
      clock.now = START + minute * MINUTE;
      const claims = await sessions.read(value);
      expect(claims).not.toBeNull();
      const renewed = sessions.renew(claims!);
      // The cookie's own Max-Age never reaches past the maximum either.
      expect(renewed.maxAgeSeconds).toBe(Math.min(30, 60 - minute) * 60);
      value = renewed.value;
    }
    clock.now = START + 60 * MINUTE;
    expect(await sessions.read(value)).toBeNull();
  });

  it('ends every session of a subject at sign-out, and only that subject’s', async () => {
    const clock = { now: START };
    const epochs = new MemorySessionEpochs();
    const one = sessionsAt(clock, { epochs });
    const other = sessionsAt(clock, { epochs });
    const laptop = await one.issue('otto', 'f1');
    const phone = await other.issue('otto', 'f1');
    const anna = await one.issue('anna', 'f2');
    await other.revoke('otto');
    expect(await one.read(laptop.value)).toBeNull();
    expect(await one.read(phone.value)).toBeNull();
    expect(await one.read(anna.value)).not.toBeNull();
    // Signing in again works at once.
    expect(await one.read((await one.issue('otto', 'f1')).value)).not.toBeNull();
  });

  it('refuses a cookie whose claims were changed, or that another secret or namespace signed', async () => {
    const clock = { now: START };
    const epochs = new MemorySessionEpochs();
    const sessions = sessionsAt(clock, { epochs });
    const { value } = await sessions.issue('otto', 'f');
    const [payload, mac] = value.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, s: 'bootstrap', t: START + 1e9 })).toString('base64url');
    expect(await sessions.read(`${forged}.${mac}`)).toBeNull();
    expect(await sessionsAt(clock, { epochs, secret: 'another-bootstrap-token-000000' }).read(value)).toBeNull();
    expect(await sessionsAt(clock, { epochs, namespace: 'portal' }).read(value)).toBeNull();
    expect(await sessions.read(`${payload}`)).toBeNull();
    expect(await sessions.read(`${value}.x`)).toBeNull();
    expect(await sessions.read('garbage')).toBeNull();
  });

  it('does not bring a signed-out session back when a memory store restarts', async () => {
    const clock = { now: START };
    const before = sessionsAt(clock);
    const { value } = await before.issue('otto', 'f');
    await before.revoke('otto');
    // A new process: a new memory store, the same secret.
    expect(await sessionsAt(clock).read(value)).toBeNull();
  });
});
