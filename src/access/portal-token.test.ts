import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key';
import { generatePortalToken, isWellFormedPortalToken, portalTokenPrefix } from './portal-token';

describe('portal tokens', () => {
  it('are cbp_<32 base62>_<6 CRC32> and pass their own checksum', () => {
    for (let i = 0; i < 200; i++) {
      const token = generatePortalToken();
      expect(token).toMatch(/^cbp_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      expect(isWellFormedPortalToken(token)).toBe(true);
    }
  });

  it('are never taken for an API key, nor an API key for a portal token', () => {
    const token = generatePortalToken();
    expect(isWellFormedApiKey(token)).toBe(false);
    expect(isWellFormedApiKey(`cbk_${token.slice(4)}`)).toBe(false);
    expect(isWellFormedPortalToken(generateApiKey())).toBe(false);
  });

  it('fail their checksum with one character changed', () => {
    const token = generatePortalToken();
    const flipped = token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11);
    expect(isWellFormedPortalToken(flipped)).toBe(false);
    expect(isWellFormedPortalToken(`${token}x`)).toBe(false);
    expect(isWellFormedPortalToken('')).toBe(false);
  });

  it('show cbp_ and 8 characters as their prefix, and hash as keys do', () => {
    const token = generatePortalToken();
    expect(portalTokenPrefix(token)).toMatch(/^cbp_[0-9A-Za-z]{8}$/);
    expect(portalTokenPrefix(token)).toBe(token.slice(0, 12));
    expect(hashApiKey(token)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
