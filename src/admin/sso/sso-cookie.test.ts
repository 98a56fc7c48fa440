import { SsoSeal, ssoCookie } from './sso-cookie';

const flow = { kind: 'flow', state: 's', nonce: 'n', verifier: 'v', silent: false, retried: false } as const;

describe('SsoSeal', () => {
  it('opens what it sealed, of the kind asked for, until it expires', () => {
    let now = 1_000_000;
    const seal = new SsoSeal('a-shared-secret-0001', () => now);
    const text = seal.seal(flow, 600);
    expect(seal.open(text, 'flow')).toMatchObject(flow);
    expect(seal.open(text, 'handoff')).toBeNull();
    now += 600_000;
    expect(seal.open(text, 'flow')).toBeNull();
  });

  it('refuses a value another secret sealed, or one changed by a byte', () => {
    const seal = new SsoSeal('a-shared-secret-0001');
    const text = seal.seal({ kind: 'handoff', adminId: 'oidc:alice', role: 'viewer' }, 60);
    expect(new SsoSeal('another-secret-0002').open(text, 'handoff')).toBeNull();
    const [payload, mac] = text.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ kind: 'handoff', adminId: 'oidc:alice', role: 'owner', exp: Date.now() + 60_000 })).toString('base64url');
    expect(seal.open(`${forged}.${mac}`, 'handoff')).toBeNull();
    expect(seal.open(`${payload}.${mac}x`, 'handoff')).toBeNull();
    expect(seal.open(null, 'handoff')).toBeNull();
  });

  it('is a Lax, HttpOnly cookie scoped to the single-sign-on routes', () => {
    expect(ssoCookie('v', 600, true)).toBe('cbg_admin_sso=v; Path=/ui/sso; HttpOnly; SameSite=Lax; Max-Age=600; Secure');
  });
});
