import { adminSessions } from './admin-session';
import { cookieValue, tokenFingerprint } from '../sessions/cookies';

describe('admin sessions', () => {
  it('signs in the admin namespace with a key derived from the bootstrap token', async () => {
    const sessions = adminSessions('bootstrap-token-for-tests-0123', { idleMinutes: 30, maxHours: 12 });
    const { value, maxAgeSeconds } = await sessions.issue('otto', tokenFingerprint('cba_x'));
    expect(maxAgeSeconds).toBe(1800);
    expect(await sessions.read(value)).toMatchObject({ subject: 'otto', fingerprint: tokenFingerprint('cba_x') });
    expect(await adminSessions('another-bootstrap-token-000000', { idleMinutes: 30, maxHours: 12 }).read(value)).toBeNull();
  });

  it('finds one cookie among several', () => {
    expect(cookieValue('a=1; cbg_admin_session=abc.def; b=2', 'cbg_admin_session')).toBe('abc.def');
    expect(cookieValue('a=1', 'cbg_admin_session')).toBeNull();
    expect(cookieValue(undefined, 'cbg_admin_session')).toBeNull();
  });
});
