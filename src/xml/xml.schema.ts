/** Config of the XML the gateway writes (config key `xml`). */
import { z } from 'zod';

export const xmlConfigSchema = z
  .object({
    responseNamespace: z
      .string()
      .regex(/^[^\s"<>&]*$/, 'a namespace name (a URI) without spaces, quotes, <, > or &')
      .default('')
      .describe("Namespace of an XML receipt answer when the request named none (a JSON request answered in XML); '' writes none"),
  })
  .strict();
