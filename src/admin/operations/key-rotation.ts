/**
 * Rotating a vendor's key with an overlap: a new key with the old one's user, certificate binding
 * and expiry, while the old one keeps working until the overlap ends (its expiry becomes the end
 * of the overlap, never later than it already was). Both in one write, so no instant holds
 * neither key, and one audit entry names both.
 *
 * Reads the live records through the AccessWriter; writes two key records. The new secret is in
 * the result only, once. Used by the vendor portal,
 * whose writes keep or reduce access and so apply at once (no four-eyes proposal).
 */
import { z } from 'zod';
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../../access/api-key';
import type { KeyEntity } from '../../access/access-state';
import { GatewayError } from '../../errors/error-catalogue';
import type { AccessWriter, Outcome, WriteBy } from './access-writer';
import { keyView, newId, type IssuedKey, type KeyView } from './access-service';
import { parseInput } from './admin-inputs';

/** A week: long enough to roll a key through every deployment of a vendor's app, short enough that a leaked key dies. */
const MAX_OVERLAP_HOURS = 168;

const rotateKeyInput = z
  .object({
    overlapHours: z.number().int('a whole number of hours').min(0).max(MAX_OVERLAP_HOURS),
  })
  .strict();

/** A rotation's body, checked: 400 naming `overlapHours` unless a whole number of hours from 0 to 168. */
export function rotationOf(input: unknown): { readonly overlapHours: number } {
  return parseInput(rotateKeyInput, input, 'rotation');
}

interface RotatedKey {
  /** The new key, with its secret (shown once). */
  readonly key: IssuedKey;
  /** The old key as it is now: its expiry is the end of the overlap. */
  readonly previous: KeyView;
}

/**
 * Rotates `keyId`, which must belong to `vendorId` (another vendor's key is not found: a portal
 * user cannot tell it exists) and still be active and unexpired.
 */
export function rotateKey(
  writer: AccessWriter,
  vendorId: string,
  keyId: string,
  { overlapHours }: { readonly overlapHours: number },
  by: WriteBy,
  now = Date.now,
): Promise<Outcome<RotatedKey>> {
  const secret = generateApiKey();
  return writer.write(by, (index) => {
    const old = index.key(keyId);
    if (!old || old.vendorId !== vendorId) throw new GatewayError('not_found', `No key "${keyId}".`);
    const nowMs = now();
    if (old.status === 'revoked') throw new GatewayError('conflict', `Key "${keyId}" is revoked; a revoked key cannot be rotated.`);
    if (old.expiresAt !== undefined && Date.parse(old.expiresAt) <= nowMs)
      throw new GatewayError('conflict', `Key "${keyId}" has expired; it cannot be rotated.`);
    const overlapEndMs = nowMs + overlapHours * 3_600_000;
    const previousEnd = old.expiresAt === undefined ? overlapEndMs : Math.min(Date.parse(old.expiresAt), overlapEndMs);
    const ending: KeyEntity = { ...old, expiresAt: new Date(previousEnd).toISOString() };
    const id = newId('key');
    const fresh: KeyEntity = {
      id,
      prefix: apiKeyPrefix(secret),
      hash: hashApiKey(secret),
      userId: old.userId,
      status: 'active',
      createdAt: new Date(nowMs).toISOString(),
      ...(old.expiresAt === undefined ? {} : { expiresAt: old.expiresAt }),
      ...(old.certificateThumbprints === undefined ? {} : { certificateThumbprints: old.certificateThumbprints }),
      vendorId,
    };
    const previous = keyView(ending);
    const key = keyView(fresh);
    return {
      result: { key: { ...key, secret }, previous },
      change: {
        action: 'key.rotate',
        target: `keys/${keyId}`,
        before: { previous: keyView(old) },
        after: { previous, key, overlapHours },
        vendorIds: [vendorId],
      },
      ops: [
        { kind: 'key', id: keyId, value: ending, expect: old },
        // The store refuses a key whose vendor is gone by then; the retry then answers 404.
        { kind: 'key', id, value: fresh, expect: null },
      ],
    };
  });
}
