/** Config of the admin audit log (config key `audit`): how long entries are kept, and a count guard. */
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
      .describe('Second guard on the audit log size; trimming a younger entry for it counts gateway_audit_trimmed_before_retention_total'),
  })
  .strict();

export type AuditConfig = z.infer<typeof auditSchema>;
