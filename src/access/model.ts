/**
 * The access model (public contract: README "Access control"): vendors with their keys and
 * licences, and users with their permissions. One schema validates the declarative file,
 * the admin API bodies and what is read back from a store. A document's licences and
 * permissions may come without ids (`withGrantIds` derives them), and its problems are named by
 * vendor and user id, not index (`documentField`).
 *
 * Reads nothing; exports the schemas and their TypeScript types.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'letters, digits, ".", "_", "@" or "-", at most 64, starting alphanumeric');
/** A single-sign-on admin: `oidc:` and the provider's subject (at most 255 printable ASCII characters, as OpenID Connect allows). */
const ssoAdminId = z.string().regex(/^oidc:[\x21-\x7e]{1,255}$/, 'oidc: and the subject of the OpenID provider');
/** Who an admin record or a proposal's maker is: a named admin, or a single-sign-on one. */
const adminId = z.union([id, ssoAdminId]);

/** An API id or a pattern where `*` matches any run of characters: `GET*`, `POSTapi/transaction/*`. */
const apiPattern = z.string().regex(/^(\*|(GET|POST|PUT|DELETE)[A-Za-z0-9/{}*._-]*)$/, 'an API id such as GETaccounts/{accountId}, or a pattern with *');

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

type DocumentShape = { vendors: Array<{ id: string; keys: Array<{ id: string; hash: string }> }>; users: Array<{ id: string }> };

/** Ids that must be unique across a document: vendors, users, keys and key hashes. */
function duplicateIssues(doc: DocumentShape): z.core.$ZodIssue[] {
  const issues: z.core.$ZodIssue[] = [];
  const unique = (values: Iterable<[string, (string | number)[]]>, what: string): void => {
    const seen = new Set<string>();
    for (const [value, path] of values) {
      if (seen.has(value)) issues.push({ code: 'custom', message: `duplicate ${what} "${value}"`, path, input: value });
      seen.add(value);
    }
  };
  unique(
    doc.vendors.map((v, i) => [v.id, ['vendors', i, 'id']]),
    'vendor id',
  );
  unique(
    doc.users.map((u, i) => [u.id, ['users', i, 'id']]),
    'user id',
  );
  function* keyFields(field: 'id' | 'hash'): Iterable<[string, (string | number)[]]> {
    for (const [vi, vendor] of doc.vendors.entries()) for (const [ki, key] of vendor.keys.entries()) yield [key[field], ['vendors', vi, 'keys', ki, field]];
  }
  unique(keyFields('id'), 'key id');
  unique(keyFields('hash'), 'key hash');
  return issues;
}

export const accessDocumentSchema = z
  .object({
    /** Marks the published sandbox document, whose keys anyone can read: never loaded with a real core. */
    sandbox: z.boolean().optional(),
    vendors: z.array(vendorSchema).default([]),
    users: z.array(userSchema).default([]),
  })
  .strict()
  .superRefine((doc, ctx) => {
    for (const issue of duplicateIssues(doc)) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[] });
  });

/** accessDocumentSchema's fields with its records left unparsed (a refined schema cannot be extended). */
const documentShell = z
  .object({ sandbox: z.boolean().optional(), vendors: z.array(z.unknown()).default([]), users: z.array(z.unknown()).default([]) })
  .strict();
const vendorShell = vendorSchema.extend({ keys: z.array(z.unknown()).default([]) });

const within = (prefix: (string | number)[], issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] =>
  issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));

/** The schema's defaults for what `raw` left out, written into `raw` itself. */
function withDefaults<T extends object>(raw: unknown, parsed: T): T {
  const target = raw as Record<string, unknown>;
  for (const [name, value] of Object.entries(parsed)) if (!(name in target)) target[name] = value;
  return target as T;
}

/**
 * The access document schema's answer for a document that may hold 100,000 keys, validated one
 * record at a time. Each key and user of `input` is kept as the result, its defaults filled in
 * (it mutates `input`; the schemas transform nothing else): the parsed copies die young, so a
 * large document is never held twice. Properties may be in the sender's order; the stores write
 * records in their schema's order (access-state.ts canonicalJson).
 */
export function parseAccessDocumentInPlace(input: unknown): z.ZodSafeParseResult<AccessDocument> {
  const shell = documentShell.safeParse(input);
  if (!shell.success) return shell as z.ZodSafeParseResult<AccessDocument>;
  const issues: z.core.$ZodIssue[] = withGrantIds(input);
  const rawVendors = (input as { vendors?: unknown[] }).vendors ?? [];
  const rawUsers = (input as { users?: unknown[] }).users ?? [];
  const vendors = shell.data.vendors.map((raw: unknown, vi: number) => {
    const vendor = vendorShell.safeParse(raw);
    if (!vendor.success) {
      issues.push(...within(['vendors', vi], vendor.error.issues));
      return null;
    }
    const rawKeys = (raw as { keys?: unknown[] }).keys ?? [];
    const keys = vendor.data.keys.map((rawKey, ki) => {
      const key = keySchema.safeParse(rawKey);
      if (!key.success) {
        issues.push(...within(['vendors', vi, 'keys', ki], key.error.issues));
        return null;
      }
      return withDefaults(rawKeys[ki], key.data);
    });
    rawVendors[vi] = { ...vendor.data, keys };
    return rawVendors[vi] as Vendor;
  });
  const users = shell.data.users.map((raw: unknown, ui: number) => {
    const user = userSchema.safeParse(raw);
    if (!user.success) {
      issues.push(...within(['users', ui], user.error.issues));
      return null;
    }
    return withDefaults(rawUsers[ui], user.data);
  });
  if (issues.length === 0) {
    const document = { ...(shell.data.sandbox === undefined ? {} : { sandbox: shell.data.sandbox }), vendors: vendors as Vendor[], users: users as User[] };
    issues.push(...duplicateIssues(document));
    if (issues.length === 0) return { success: true, data: document };
  }
  return { success: false, error: new z.ZodError(issues) } as z.ZodSafeParseResult<AccessDocument>;
}

type Path = ReadonlyArray<PropertyKey>;

/** Each grant list of a document: where it sits, and its ids' prefix. */
const GRANT_LISTS = [
  { section: 'vendors', list: 'licences', prefix: 'lic' },
  { section: 'users', list: 'permissions', prefix: 'perm' },
] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The id of a licence or permission written without one: a hash of its owner's id and its
 * pattern, so the same file gives the same id on every apply, and an export (which carries the
 * id) applies back unchanged.
 */
export function derivedGrantId(prefix: 'lic' | 'perm', ownerId: string, api: string): string {
  return `${prefix}-${createHash('sha256').update(`${ownerId}\n${api}`).digest('hex').slice(0, 12)}`;
}

/**
 * Gives every licence and permission of a raw document that has no `id` its derived one, in
 * place (ids written in the file are kept). Answers an issue for each id two entries of one
 * owner would share because of it: two grants of one pattern need ids of their own.
 */
export function withGrantIds(input: unknown): z.core.$ZodIssue[] {
  const issues: z.core.$ZodIssue[] = [];
  if (!isRecord(input)) return issues;
  for (const { section, list, prefix } of GRANT_LISTS) {
    const owners = input[section];
    if (!Array.isArray(owners)) continue;
    for (const [oi, owner] of owners.entries()) {
      if (!isRecord(owner) || typeof owner.id !== 'string' || !Array.isArray(owner[list])) continue;
      // Most owners of a large exported document have every id written: nothing to derive or compare.
      if ((owner[list] as unknown[]).every((grant) => !isRecord(grant) || grant.id !== undefined)) continue;
      const seen = new Map<string, { derived: boolean; index: number }>();
      for (const [gi, grant] of (owner[list] as unknown[]).entries()) {
        if (!isRecord(grant)) continue;
        const derived = grant.id === undefined && typeof grant.api === 'string';
        if (derived) grant.id = derivedGrantId(prefix, owner.id, grant.api as string);
        if (typeof grant.id !== 'string') continue;
        const earlier = seen.get(grant.id);
        if (earlier && (earlier.derived || derived)) {
          issues.push({
            code: 'custom',
            input: grant.id,
            path: [section, oi, list, gi, derived ? 'api' : 'id'],
            message: `same id "${grant.id}" as entry ${earlier.index + 1}${derived ? ' (derived from the pattern: give one of them an id of its own)' : ''}`,
          } as z.core.$ZodIssue);
        }
        seen.set(grant.id, { derived, index: gi });
      }
    }
  }
  return issues;
}

/** A list of the document in words, one entry of it: `licences` → `licence` (here and in gatewayctl's messages). */
export const ENTRY_WORDS: Readonly<Record<string, string>> = { licences: 'licence', keys: 'key', permissions: 'permission' };

/**
 * A document problem's place, by vendor and user id rather than index: the field
 * `vendors[acme].licences[1].api` and the words `vendor "acme" licence 2, api`. An owner
 * without a usable id is named by its position (`vendors.0.name`, `vendor 1, name`).
 */
export function documentField(path: Path, input: unknown): { field: string; words: string } {
  const [section, ownerIndex, list, itemIndex, ...rest] = path;
  const owners = isRecord(input) ? input[String(section)] : undefined;
  if ((section !== 'vendors' && section !== 'users') || typeof ownerIndex !== 'number') {
    const field = path.map(String).join('.') || '(root)';
    return { field, words: field };
  }
  const owner: unknown = Array.isArray(owners) ? owners[ownerIndex] : undefined;
  // Only a well-formed id names its owner: anything else could not be found in the file by it.
  const ownerId = isRecord(owner) && id.safeParse(owner.id).success ? (owner.id as string) : undefined;
  const ownerWord = section === 'vendors' ? 'vendor' : 'user';
  let field = ownerId === undefined ? `${section}.${ownerIndex}` : `${section}[${ownerId}]`;
  let words = ownerId === undefined ? `${ownerWord} ${ownerIndex + 1}` : `${ownerWord} "${ownerId}"`;
  let tailPath = path.slice(2);
  if (list !== undefined && typeof itemIndex === 'number') {
    field += `.${String(list)}[${itemIndex}]`;
    words += ` ${ENTRY_WORDS[String(list)] ?? String(list)} ${itemIndex + 1}`;
    tailPath = rest;
  }
  const tail = tailPath.map(String).join('.');
  return { field: tail ? `${field}.${tail}` : field, words: tail ? `${words}, ${tail}` : words };
}

/** What a named admin may do (README "Admin identities"); `bootstrap`, the ADMIN_TOKEN, is an owner. */
export const ADMIN_ROLES = ['viewer', 'operator', 'approver', 'owner'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/**
 * A named admin: the token itself is shown once, to the admin alone (redeeming an enrolment code
 * or rotating their own), and kept as its hash; no token while the admin has yet to enrol or
 * after theirs was revoked. The enrolment code is kept as its hash too, with its absolute expiry.
 * `sponsor` is the admin who was handed the current enrolment code (four-eyes.ts counts the two
 * as one person). The record with id `bootstrap` holds no token: it marks set-up as closed.
 */
export const adminAccountSchema = z
  .object({
    id: adminId,
    name: z.string().min(1).max(200),
    role: z.enum(ADMIN_ROLES),
    tokenPrefix: z
      .string()
      .regex(/^cba_[0-9A-Za-z_-]{4,12}$/)
      .optional(),
    tokenHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 lowercase hex digits>')
      .optional(),
    createdAt: timestamp,
    createdBy: adminId.optional(),
    sponsor: adminId.optional(),
    enrolment: z
      .object({ codeHash: z.string().regex(/^sha256:[0-9a-f]{64}$/), expiresAt: timestamp })
      .strict()
      .optional(),
    /** Set when the admin was deleted: the record stays, without token or code, so its id is never reused. */
    deletedAt: timestamp.optional(),
    /** `oidc`: a single-sign-on admin, recorded at its first sign-in; its role is the one its groups gave at its last sign-in. */
    source: z.literal('oidc').optional(),
    /** The OpenID provider a single-sign-on admin's subject belongs to: issuer and subject together are the identity. */
    issuer: z.string().max(2000).optional(),
    email: z.string().max(320).optional(),
    /** Set while an owner has blocked a single-sign-on admin: it cannot sign in (deleting it would only let it sign in again). */
    blockedAt: timestamp.optional(),
    blockedBy: adminId.optional(),
    /**
     * A single-sign-on admin's random session salt (never shown): its sessions' fingerprints are
     * made with it, so no one who can sign a cookie (the holder of the bootstrap token) can make
     * one up; a new salt at blocking ends every session it had.
     */
    sessionSalt: z
      .string()
      .regex(/^[A-Za-z0-9_-]{22,64}$/)
      .optional(),
  })
  .strict();

/**
 * A write waiting for a second admin (admin.approvals: required): the operation and its input as
 * the maker sent them, computed again against the config in force when it is approved.
 */
export const proposalSchema = z
  .object({
    id: id,
    makerId: adminId,
    /** The person the maker counted as when filing (admin/operations/four-eyes.ts): approval refuses that person too. */
    makerPerson: adminId.optional(),
    /** The maker's sponsor chain when filing (admin/operations/four-eyes.ts): approval refuses any admin whose chain meets it. */
    makerChain: z.array(adminId).max(1000).optional(),
    createdAt: timestamp,
    expiresAt: timestamp,
    operation: z.string().min(1).max(64),
    args: z.array(z.unknown()).max(4),
    action: z.string().min(1).max(64),
    target: z.string().min(1).max(300),
    /** What it would change, as computed when it was made: before, after (or a diff). */
    preview: z.unknown(),
    /** A digest of the whole records it writes over (admin/operations/access-writer.ts): approval applies it only on the same records. */
    pin: z.string().max(100).optional(),
    /**
     * A digest of the proposal id with the maker's token hash and role when filing (admin/operations/proposals.ts):
     * the proposal stands only while the maker still holds that token in that role. Never shown.
     */
    makerSeal: z.string().max(100).optional(),
  })
  .strict();

/**
 * A vendor's developer who signs in to the vendor portal with a portal token (portal-token.ts),
 * invited by an admin. The token is kept as its hash, with its first characters to tell tokens
 * apart; it works until `tokenExpiresAt`, and re-issuing it replaces both.
 */
export const portalUserSchema = z
  .object({
    id: z.string().regex(/^pu-[0-9a-f]{12}$/, 'pu- and 12 lowercase hex digits'),
    vendorId: id,
    email: z.email().max(320),
    name: z.string().min(1).max(200),
    tokenPrefix: z.string().regex(/^cbp_[0-9A-Za-z]{8}$/, 'cbp_ and 8 letters or digits'),
    tokenHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 lowercase hex digits>'),
    tokenIssuedAt: timestamp,
    tokenExpiresAt: timestamp,
    createdAt: timestamp,
    createdBy: adminId,
  })
  .strict();

export type AdminAccount = z.infer<typeof adminAccountSchema>;
export type PortalUser = z.infer<typeof portalUserSchema>;
export type Proposal = z.infer<typeof proposalSchema>;
export type RateLimit = z.infer<typeof rateLimitSchema>;
export type Licence = z.infer<typeof licenceSchema>;
export type ApiKeyRecord = z.infer<typeof keySchema>;
export type Vendor = z.infer<typeof vendorSchema>;
export type Permission = z.infer<typeof permissionSchema>;
export type User = z.infer<typeof userSchema>;
export type AccessDocument = z.infer<typeof accessDocumentSchema>;
