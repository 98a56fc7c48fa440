/**
 * The key audit checkpoints are signed with (Ed25519, node:crypto): read from
 * `audit.signingKeyFile` (a PKCS#8 PEM private key), or generated at start when none is set.
 * A generated key lives only in this process: checkpoints it signed no longer verify after a
 * restart, nor on another instance, so the gateway warns (gateway.ts). Storing a generated key
 * in Redis would not do: whoever can edit the log in Redis could then sign too.
 *
 * Reads the key file; sets nothing. The private key never leaves this module: callers get a
 * signature, the public key (PEM) and its id.
 */
import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { keyIdOf, signCheckpoint, type CheckpointBody } from './audit-chain';

export class AuditSigner {
  readonly publicKey: KeyObject;
  readonly publicKeyPem: string;
  readonly keyId: string;

  private constructor(
    private readonly privateKey: KeyObject,
    /** True when the key was generated at start (no audit.signingKeyFile). */
    readonly ephemeral: boolean,
  ) {
    this.publicKey = createPublicKey(privateKey);
    this.publicKeyPem = this.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    this.keyId = keyIdOf(this.publicKey);
  }

  /** A key for this process only. */
  static generate(): AuditSigner {
    return new AuditSigner(generateKeyPairSync('ed25519').privateKey, true);
  }

  /** The key in `file`; the error names the file and what is wrong, never the key. */
  static fromFile(file: string): AuditSigner {
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(file));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new Error(`audit.signingKeyFile ${file} is not a readable PEM private key${code ? ` (${code})` : ''}`);
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw new Error(`audit.signingKeyFile ${file} holds a ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is needed`);
    }
    return new AuditSigner(key, false);
  }

  sign(head: string, count: number, at: string): CheckpointBody {
    return signCheckpoint(this.privateKey, this.keyId, head, count, at);
  }

  /** A signer shows nothing of its private key, should it ever be logged or serialised. */
  toJSON(): { keyId: string } {
    return { keyId: this.keyId };
  }
}
