/** Config of the vendor API's answer compression (config key `compression`). */
import { z } from 'zod';

/** Chosen by measurement (docs/performance.md, "Compression levels"). */
const GZIP_LEVEL = 1;
const BROTLI_QUALITY = 4;
/** Bodies this small take a fraction of a millisecond to compress at level 1; a larger one is streamed so it never holds the event loop long. */
const WHOLE_BODY_MAX_BYTES = 64 * 1024;

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
    gzipLevel: z
      .number()
      .int()
      .min(1)
      .max(9)
      .default(GZIP_LEVEL)
      .describe(
        "zlib level of gzip and deflate answers (1 fastest, 9 smallest; zlib's own default is 6): dynamic answers are compressed once per request, so the CPU matters more than the last bytes (docs/performance.md)",
      ),
    wholeBodyMaxBytes: z
      .number()
      .int()
      .min(0)
      .max(1024 * 1024)
      .default(WHOLE_BODY_MAX_BYTES)
      .describe(
        'An answer whose whole body comes at once (a buffered answer, or a streamed one in one chunk of its Content-Length) up to this size is compressed in one synchronous call and sent with its compressed Content-Length; larger or longer answers are compressed as a stream. 0: always stream (docs/performance.md)',
      ),
    brotliQuality: z
      .number()
      .int()
      .min(0)
      .max(11)
      .default(BROTLI_QUALITY)
      .describe('Brotli quality of br answers (0 fastest, 11 smallest and very slow; 4-5 is usual for dynamic content) (docs/performance.md)'),
  })
  .strict();

export type CompressionConfig = z.infer<typeof compressionSchema>;
