/** Config of the vendor API's CORS policy (config key `cors`): off unless origins are named. */
import { z } from 'zod';

/** `https://app.example` or `http://localhost:3000`: scheme, host and optional port, nothing else. */
const origin = z
  .string()
  .regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, 'an origin: scheme://host[:port], no path')
  .transform((value) => value.toLowerCase());

export const corsSchema = z
  .object({
    allowedOrigins: z
      .array(origin)
      .default([])
      .describe('Browser origins that may call the vendor API; empty: no CORS at all (a preflight is a keyless call: 401), the default'),
    maxAgeSeconds: z.number().int().min(0).max(86_400).default(600).describe('How long a browser may cache a preflight answer'),
  })
  .strict();

export type CorsConfig = z.infer<typeof corsSchema>;
