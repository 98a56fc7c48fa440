import { SsoSeal, ssoCookie } from './sso-cookie';

const flow = { state: 's', nonce: 'n', verifier: 'v', silent: false, retried: false } as const;

describe('SsoSeal', () => {
  it('opens what it sealed until it expires', () => {
    let now = 1_000_000;
    const seal = new SsoSeal('a-shared-secret-0001', () => now);
    const text = seal.seal(flow, 600);
    expect(seal.open(text)).toMatchObject(flow);
    now += 600_000;
    expect(seal.open(text)).toBeNull();
  });

  it('refuses a value another secret sealed, or one changed by a byte', () => {
    const seal = new SsoSeal('a-shared-secret-0001');
    const text = seal.seal(flow, 60);
    expect(new SsoSeal('another-secret-0002').open(text)).toBeNull();
    const [payload, mac] = text.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...flow, state: 'chosen', exp: Date.now() + 60_000 })).toString('base64url');
    expect(seal.open(`${forged}.${mac}`)).toBeNull();
    expect(seal.open(`${payload}.${mac}x`)).toBeNull();
    expect(seal.open(null)).toBeNull();
  });

  it('is a Lax, HttpOnly cookie scoped to the single-sign-on routes', () => {
    expect(ssoCookie('v', 600, true)).toBe('cbg_admin_sso=v; Path=/ui/sso; HttpOnly; SameSite=Lax; Max-Age=600; Secure');
  });
});
