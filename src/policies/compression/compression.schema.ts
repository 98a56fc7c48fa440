/** Config of the vendor API's answer compression (config key `compression`). */
import { z } from 'zod';

export const compressionSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Compress JSON and XML answers (gzip, br or deflate, as Accept-Encoding allows); false: every answer goes uncompressed'),
    thresholdBytes: z
      .number()
      .int()
      .min(0)
      .max(10 * 1024 * 1024)
      .default(1024)
      .describe(
        'Answers with a Content-Length below this go uncompressed (a few hundred bytes gain nothing and cost CPU); streamed answers of unknown length are compressed',
      ),
  })
  .strict();

export type CompressionConfig = z.infer<typeof compressionSchema>;
