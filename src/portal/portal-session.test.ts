import { MemorySessionEpochs } from '../sessions/session-epochs';
import { adminSessions } from '../admin/admin-session';
import { parsePortalSubject, portalSessionCookie, portalSessions, portalSubject } from './portal-session';

describe('portal sessions', () => {
  it('names the vendor and the portal user, and reads them back', () => {
    expect(parsePortalSubject(portalSubject('acme', 'pu-0123456789ab'))).toEqual({ vendorId: 'acme', portalUserId: 'pu-0123456789ab' });
    expect(parsePortalSubject('no-separator')).toBeNull();
    expect(parsePortalSubject(':pu-1')).toBeNull();
    expect(parsePortalSubject('acme:')).toBeNull();
  });

  it('sets an HttpOnly, SameSite=Strict cookie on /portal, Secure under TLS', () => {
    expect(portalSessionCookie('v', 60, false)).toBe('cbg_portal_session=v; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(portalSessionCookie('v', 60, true)).toMatch(/; Secure$/);
  });

  it("an admin session's cookie value is no portal session, and a portal one no admin session", async () => {
    const secret = 'shared-secret-of-the-instances-0001';
    const epochs = new MemorySessionEpochs();
    const portal = portalSessions({ secret, idleMinutes: 30, maxHours: 12, epochs });
    const admin = adminSessions(secret, { idleMinutes: 30, maxHours: 12, epochs });
    const portalCookie = await portal.issue('acme:pu-1', 'f');
    const adminCookie = await admin.issue('bootstrap', 'f');
    expect(await portal.read(portalCookie.value)).not.toBeNull();
    expect(await portal.read(adminCookie.value)).toBeNull();
    expect(await admin.read(portalCookie.value)).toBeNull();
  });
});
