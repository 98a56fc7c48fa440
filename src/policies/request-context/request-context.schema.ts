/** Config of the request-context step (config key `requestContext`). */
import { z } from 'zod';

export const requestContextSchema = z
  .object({
    trustedRequestIdPattern: z
      .string()
      .min(1)
      .default('^[A-Za-z0-9._:-]{1,128}$')
      .describe('A client X-Request-Id matching this is kept; any other is replaced by a generated one'),
  })
  .strict();

export type RequestContextConfig = z.infer<typeof requestContextSchema>;
