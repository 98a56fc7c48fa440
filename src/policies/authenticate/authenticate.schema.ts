/** Config of the authenticate step (config key `authentication`). */
import { z } from 'zod';

export const authenticateSchema = z
  .object({
    tokenHeader: z.string().min(1).default('X-Vendor-Token').describe('Header carrying the vendor API key'),
    receiptTokenHeader: z
      .string()
      .min(1)
      .default('X-Vendor-Token')
      .describe('Header carrying the key on the three receipt operations'),
  })
  .strict();

export type AuthenticateConfig = z.infer<typeof authenticateSchema>;
