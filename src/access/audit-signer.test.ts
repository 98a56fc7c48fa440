/**
 * The audit checkpoint signing key: read from a PKCS#8 PEM file or generated; a wrong file is
 * refused naming the file, never its contents; the private key shows in no serialisation.
 */
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { testTempDir } from '../../test/support/temp-dir';
import { publicKeys } from './audit-chain';
import { AuditSigner } from './audit-signer';

describe('audit signer', () => {
  let dir: string;
  beforeAll(() => {
    dir = testTempDir('audit-signer-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('signs with the key in the file, whose public key and id auditors verify with', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const file = path.join(dir, 'key.pem');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(file, pem);

    const signer = AuditSigner.fromFile(file);
    expect(signer.ephemeral).toBe(false);
    expect(signer.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect([...publicKeys([signer.publicKeyPem]).keys()]).toEqual([signer.keyId]);
    const body = signer.sign('0'.repeat(64), 0, '2026-01-01T00:00:00.000Z');
    expect(body).toMatchObject({ head: '0'.repeat(64), count: 0, keyId: signer.keyId });
    expect(JSON.stringify({ signer })).toBe(`{"signer":{"keyId":"${signer.keyId}"}}`);
    expect(JSON.stringify(body)).not.toContain(pem.split('\n')[1]);
  });

  it('refuses a missing file, or a key that is not Ed25519, naming the file and never the key', () => {
    expect(() => AuditSigner.fromFile(path.join(dir, 'absent.pem'))).toThrow(/absent\.pem is not a readable PEM private key \(ENOENT\)/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = path.join(dir, 'rsa.pem');
    writeFileSync(file, rsa);
    let message = '';
    try {
      AuditSigner.fromFile(file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(`audit.signingKeyFile ${file} holds a rsa key; an Ed25519 key is needed`);
  });

  it('generates a key for this process when none is configured', () => {
    const one = AuditSigner.generate();
    expect(one.ephemeral).toBe(true);
    expect(AuditSigner.generate().keyId).not.toBe(one.keyId);
  });
});
