/**
 * What the admin operations accept: one schema per operation's input (built from the access
 * model's own field schemas), and the parser that turns a bad input into one 400 naming every
 * bad field.
 *
 * Pure: reads the input it is given.
 */
import { z } from 'zod';
import { GatewayError, type FieldError } from '../../errors/error-catalogue';
import { keySchema, licenceSchema, permissionSchema, vendorSchema } from '../../access/model';

export const idSchema = vendorSchema.shape.id;
// A malformed timestamp is reported once, by the format check, not again as "in the past".
const futureTimestamp = keySchema.shape.expiresAt.unwrap().refine((value) => !(Date.parse(value) <= Date.now()), 'must be in the future');

export const createVendorInput = z
  .object({
    id: idSchema,
    name: vendorSchema.shape.name,
    status: vendorSchema.shape.status,
    rateLimit: vendorSchema.shape.rateLimit,
    licences: z.array(licenceSchema.partial({ id: true })).default([]),
  })
  .strict();

export const patchVendorInput = z
  .object({
    name: vendorSchema.shape.name.optional(),
    status: vendorSchema.shape.status.unwrap().optional(),
    rateLimit: vendorSchema.shape.rateLimit,
  })
  .strict()
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), 'give at least one of name, status, rateLimit');

export const issueKeyInput = z
  .object({
    id: idSchema.optional(),
    userId: keySchema.shape.userId,
    expiresAt: futureTimestamp.optional(),
    certificateThumbprints: keySchema.shape.certificateThumbprints,
  })
  .strict();

/**
 * `PATCH keys/{keyId}`: rebinding a key to other certificates (an empty list unbinds it), or
 * setting when it expires (a rotation's overlap), without re-issuing.
 */
export const patchKeyInput = z
  .object({
    certificateThumbprints: z
      .array(z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'an x5t#S256 thumbprint: 43 base64url characters'))
      .max(2)
      .optional(),
    expiresAt: futureTimestamp.optional(),
  })
  .strict()
  .refine((patch) => patch.certificateThumbprints !== undefined || patch.expiresAt !== undefined, 'give certificateThumbprints, expiresAt or both');

export const grantLicenceInput = z
  .object({
    id: idSchema.optional(),
    api: licenceSchema.shape.api,
    expiresAt: futureTimestamp.optional(),
  })
  .strict();

export const grantPermissionInput = permissionSchema.partial({ id: true });

/**
 * Zod issues as `{field, message}`, one per bad field; an unknown property is named itself.
 * `name` turns an issue's path into the field's name (dotted, unless a document names it by id).
 */
export function fieldErrors(error: z.ZodError, name: (path: PropertyKey[]) => string = dotted): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: name([...issue.path, key]), message: 'not allowed here' }));
    }
    return [{ field: name(issue.path), message: issue.message }];
  });
}

const dotted = (path: PropertyKey[]): string => (path.length > 0 ? path.map(String).join('.') : '(root)');

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) {
    throw new GatewayError('invalid_request', `The ${what} is not valid; see errors.`, { errors: fieldErrors(result.error) });
  }
  return result.data;
}
