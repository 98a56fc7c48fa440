/**
 * Config of the admin audit log (config key `audit`): how long entries are kept, a count guard,
 * and the signed checkpoints of its hash chain (the key and how often).
 */
import { z } from 'zod';

export const auditSchema = z
  .object({
    retentionDays: z
      .number()
      .int()
      .min(1)
      .default(400)
      .describe('Days every audit entry is kept at least; older entries are trimmed when new ones are written'),
    maxEntries: z
      .number()
      .int()
      .min(10)
      .default(1_000_000)
      .describe(
        'Second guard on the audit log size; trimming a younger entry for it counts gateway_audit_trimmed_before_retention_total. Trims stop at a signed checkpoint, so up to a tenth more may be kept',
      ),
    signingKeyFile: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'Ed25519 private key (PKCS#8 PEM file) that signs audit checkpoints; auditors verify with its public key (GET /v1/audit/public-key). Unset: a key generated at start, whose checkpoints do not verify after a restart or on another instance',
      ),
    checkpointIntervalSeconds: z
      .number()
      .int()
      .min(10)
      .default(300)
      .describe('How often a signed checkpoint is written to the audit log, when entries were written since the last one (exports write one too)'),
  })
  .strict();

export type AuditConfig = z.infer<typeof auditSchema>;
