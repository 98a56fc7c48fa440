import { apiKeyPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key';

describe('API keys', () => {
  it('generates keys in the cbk_<32 base62>_<6 CRC32> format that pass their own checksum', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^cbk_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it('rejects a key with one character changed, through its checksum', () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedApiKey(flipped)).toBe(false);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('hashes with SHA-256 in the stored sha256:<hex> form, and shows only a short prefix', () => {
    expect(hashApiKey('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(apiKeyPrefix(key)).toBe(key.slice(0, 12));
  });
});
