/** Config of the authenticate step (config key `authentication`). */
import { z } from 'zod';

const headerName = z.string().regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name');

export const authenticateSchema = z
  .object({
    tokenHeader: headerName.default('X-Vendor-Token').describe('Header carrying the vendor API key'),
    receiptTokenHeader: headerName.default('X-Vendor-Token').describe('Header carrying the key on the three receipt operations'),
  })
  .strict();

export type AuthenticateConfig = z.infer<typeof authenticateSchema>;
