import { AdminSessions, cookieValue, tokenFingerprint } from './admin-session';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('AdminSessions', () => {
  const sessions = new AdminSessions('bootstrap-token-for-tests-0123', 30 * 60_000);

  it('reads back what it issued until the idle time has passed', () => {
    const { value, maxAgeSeconds } = sessions.issue('otto', tokenFingerprint('cba_x'), NOW);
    expect(maxAgeSeconds).toBe(1800);
    expect(sessions.read(value, NOW + 60_000)).toEqual({ adminId: 'otto', tokenFingerprint: tokenFingerprint('cba_x'), expiresAtMs: NOW + 1_800_000 });
    expect(sessions.read(value, NOW + 1_800_000)).toBeNull();
  });

  it('refuses a cookie whose claims were changed, or that another gateway key signed', () => {
    const { value } = sessions.issue('otto', 'f', NOW);
    const [payload, mac] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ a: 'bootstrap', f: 'f', e: NOW + 1e9 })).toString('base64url');
    expect(sessions.read(`${forged}.${mac}`, NOW)).toBeNull();
    expect(new AdminSessions('another-bootstrap-token-000000', 60_000).read(value, NOW)).toBeNull();
    expect(sessions.read(`${payload}`, NOW)).toBeNull();
    expect(sessions.read('garbage', NOW)).toBeNull();
  });

  it('finds one cookie among several', () => {
    expect(cookieValue('a=1; cbg_admin_session=abc.def; b=2', 'cbg_admin_session')).toBe('abc.def');
    expect(cookieValue('a=1', 'cbg_admin_session')).toBeNull();
    expect(cookieValue(undefined, 'cbg_admin_session')).toBeNull();
  });
});
