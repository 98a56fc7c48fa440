/**
 * The access model (public contract: README "Access control"): vendors with their keys and
 * licences, and users with their permissions. One schema validates the declarative file,
 * the admin API bodies and what is read back from a store.
 *
 * Reads nothing; exports the schemas and their TypeScript types.
 */
import { z } from 'zod';

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'letters, digits, ".", "_", "@" or "-", at most 64, starting alphanumeric');

/** An API id or a pattern where `*` matches any run of characters: `GET*`, `POSTapi/transaction/*`. */
export const apiPattern = z
  .string()
  .regex(/^(\*|(GET|POST|PUT|DELETE)[A-Za-z0-9/{}*._-]*)$/, 'an API id such as GETaccounts/{accountId}, or a pattern with *');

const timestamp = z.iso.datetime({ offset: true });

/** The longest rate-limit window: 31 days, a monthly quota. */
export const MAX_WINDOW_SECONDS = 31 * 86_400;

export const rateLimitSchema = z
  .object({
    points: z.number().int().min(1).describe('Requests allowed per window'),
    durationSeconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS).describe('Window length in seconds, at most 31 days'),
  })
  .strict();

export const licenceSchema = z
  .object({
    id: id,
    api: apiPattern,
    expiresAt: timestamp.optional(),
  })
  .strict();

export const keySchema = z
  .object({
    id: id,
    /** The key's first characters, shown in lists so people can tell keys apart. */
    prefix: z.string().regex(/^cbk_[0-9A-Za-z]{4,12}$/),
    hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 lowercase hex digits>'),
    /** The banking-application user this key acts as; permissions are looked up by it. */
    userId: id,
    status: z.enum(['active', 'revoked']).default('active'),
    expiresAt: timestamp.optional(),
    createdAt: timestamp.optional(),
    lastUsedAt: timestamp.optional(),
    /**
     * Certificates the key is bound to (RFC 8705 `x5t#S256`: base64url SHA-256 of the DER
     * certificate); two, so a renewed certificate can overlap the old. Bound, the key works only
     * with one of them.
     */
    certificateThumbprints: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'an x5t#S256 thumbprint: 43 base64url characters'))
      .min(1)
      .max(2)
      .optional(),
  })
  .strict();

export const vendorSchema = z
  .object({
    id: id,
    name: z.string().min(1).max(200),
    status: z.enum(['active', 'suspended']).default('active'),
    rateLimit: rateLimitSchema.optional(),
    licences: z.array(licenceSchema).default([]),
    keys: z.array(keySchema).default([]),
  })
  .strict();

export const permissionSchema = z
  .object({
    id: id,
    api: apiPattern,
  })
  .strict();

export const userSchema = z
  .object({
    id: id,
    permissions: z.array(permissionSchema).default([]),
  })
  .strict();

export const accessDocumentSchema = z
  .object({
    /** Marks the published sandbox document, whose keys anyone can read: never loaded with a real core. */
    sandbox: z.boolean().optional(),
    vendors: z.array(vendorSchema).default([]),
    users: z.array(userSchema).default([]),
  })
  .strict()
  .superRefine((doc, ctx) => {
    const unique = (values: string[], what: string, path: (i: number) => (string | number)[]): void => {
      const seen = new Set<string>();
      values.forEach((value, i) => {
        if (seen.has(value)) ctx.addIssue({ code: 'custom', message: `duplicate ${what} "${value}"`, path: path(i) });
        seen.add(value);
      });
    };
    unique(doc.vendors.map((v) => v.id), 'vendor id', (i) => ['vendors', i, 'id']);
    unique(doc.users.map((u) => u.id), 'user id', (i) => ['users', i, 'id']);
    const keys = doc.vendors.flatMap((v, vi) => v.keys.map((k, ki) => ({ k, vi, ki })));
    unique(keys.map((x) => x.k.id), 'key id', (i) => ['vendors', keys[i]!.vi, 'keys', keys[i]!.ki, 'id']);
    unique(keys.map((x) => x.k.hash), 'key hash', (i) => ['vendors', keys[i]!.vi, 'keys', keys[i]!.ki, 'hash']);
  });

export type RateLimit = z.infer<typeof rateLimitSchema>;
export type Licence = z.infer<typeof licenceSchema>;
export type ApiKeyRecord = z.infer<typeof keySchema>;
export type Vendor = z.infer<typeof vendorSchema>;
export type Permission = z.infer<typeof permissionSchema>;
export type User = z.infer<typeof userSchema>;
export type AccessDocument = z.infer<typeof accessDocumentSchema>;
