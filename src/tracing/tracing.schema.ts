/** Config of tracing (config key `tracing`); the standard OpenTelemetry variables set it. */
import { z } from 'zod';

export const tracingSchema = z
  .object({
    endpoint: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null)
      .describe('OTLP/HTTP collector base URL (env OTEL_EXPORTER_OTLP_ENDPOINT); spans go to <endpoint>/v1/traces; null: no tracing, no cost'),
    serviceName: z.string().min(1).default('core-banking-gateway').describe('service.name of the spans (env OTEL_SERVICE_NAME)'),
    exportDelayMs: z.number().int().min(10).default(2000).describe('Longest wait before a batch of finished spans is sent'),
    sampleRatio: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe("Share of new traces recorded (0 to 1); a caller's traceparent decides for its own trace (parent-based)"),
  })
  .strict();

export type TracingConfig = z.infer<typeof tracingSchema>;
