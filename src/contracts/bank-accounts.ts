/**
 * Request bodies of the bank-account operations: `BankAccountVerification`, `BankAccountAdd`
 * and `BankAccountUpdate` (the catalogue's body schema ids), as zod schemas with field checks.
 *
 * JSON names are PascalCase, as the spec writes them (`CustomerId`, `MobileNumber`,
 * `TwoFactorCode`, ...): the spec shows these records in .NET's names and gives no camelCase
 * form for them, unlike the receipt DTOs. Names are matched case-insensitively on input (as
 * .NET model binding does) and written canonically; unknown fields are refused.
 *
 * Values are normalised, so the core and the two-factor store see one form:
 * - MobileNumber: a UK mobile, written `07…`, `447…`, `00447…` or `+447…`, with spaces or
 *   hyphens anywhere, becomes E.164 `+447…`. "Mobile" is libphonenumber-js's (max metadata)
 *   type MOBILE under calling code 44, which takes in the Crown Dependencies' mobiles: Isle of
 *   Man `07624…`, Jersey `07797…`, Guernsey `07781…`. It leaves out `070…` (PERSONAL_NUMBER),
 *   `076…` other than `07624` (PAGER), landlines (FIXED_LINE) and `08…`/`03…`. Ofcom's drama
 *   range `07700 900000–900999` (which libphonenumber-js reports as not valid) is taken as a
 *   mobile: no real phone has such a number, and the sandbox's customers hold them (the
 *   two-factor step refuses it when the core is real). A landline (01…, 02…, Ofcom's drama
 *   landlines included) is named as one, so the vendor knows to ask for the customer's mobile.
 * - Code, TwoFactorCode: six digits, as a string (`"012345"`) or a JSON number with six digits
 *   (`123456`); always a 6-character string afterwards.
 * - SortCode: six digits, alone or in pairs joined by hyphens or spaces (`12-34-56`); becomes
 *   `123456`. AccountNumber: exactly eight digits. Name: trimmed, 1 to 100 characters.
 * - CustomerId, PersonId: positive 32-bit integers (JSON numbers).
 * - The verification's AccountNumber and SortCode (gateway additions, both or neither, which the
 *   two-factor step checks): the destination the code is bound to.
 * - DateClosed: `yyyy-MM-ddTHH:mm:ss` (the core's datetime form, no zone) naming a real
 *   moment, or null; absent and null mean different things to the core (see the sandbox's
 *   bank-accounts.ts).
 *
 * Reads nothing; exports the schemas, their output types, `validate…` functions that return
 * `{ok, value}` or `{ok: false, errors}` with `{field, message}` items for a 400 `invalid_request`,
 * and the three as body contracts for the body step's registry (JSON only; numbers arrive as
 * lossless-json LosslessNumber). The add's contract leaves `TwoFactorCode` out of the JSON the
 * core receives (the gateway checks the code, and the idempotency fingerprint then holds no
 * secret), keeping it in the value for the two-factor step. No message echoes the value it
 * refuses, so a mobile number never lands in an error body.
 */
import { CORE_DATETIME_FORMS, toCoreDateTime } from '../catalogue/core-datetime';
import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';
import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';
import type { BodySchemaId } from '../catalogue/api-catalogue';
import { GatewayError, type FieldError } from '../errors/error-catalogue';
import type { BodyContract, DecodedBody, OpenApiSchema, ParsedDocument } from './body-contract';

const INT32_MAX = 2_147_483_647;
const NAME_MAX = 100;

const id = (what: string) =>
  z
    .int({ error: (issue) => (issue.input === undefined ? 'required' : 'must be a whole number (a JSON number)') })
    .min(1, 'must be a positive id')
    .max(INT32_MAX, 'must be a 32-bit id')
    .describe(what);

const requiredString = (what: string) => z.string({ error: (issue) => (issue.input === undefined ? 'required' : `must be ${what} (a JSON string)`) });

/** What libphonenumber-js calls the number, for a message that says why it is not a mobile (landlines have their own). */
const NUMBER_KINDS: Partial<Record<NumberType & string, string>> = {
  PERSONAL_NUMBER: 'a personal number (070)',
  PAGER: 'a pager number (076)',
  TOLL_FREE: 'a freephone number',
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  UAN: 'a non-geographic number (03)',
  VOIP: 'a VoIP number (056)',
  VOICEMAIL: 'a voicemail access number',
};

/** Accepted spellings before libphonenumber-js looks at them: a UK prefix, then digits. */
const UK_NUMBER_SHAPE = /^(?:\+44|0044|44|0)\d{6,12}$/;
/**
 * A UK geographic number's national digits: 01… or 02…, 9 or 10 digits after the 0. Ofcom's
 * drama landlines (`01632 960…`) are geographic numbers no exchange serves, so
 * libphonenumber-js calls them not valid; they are landlines all the same.
 */
const UK_GEOGRAPHIC = /^(?:\+44|0044|44|0)[12]\d{8,9}$/;
const LANDLINE = 'is a UK landline; SMS codes go to mobiles (07…)';
/** Ofcom's range for fiction (TV, films, tests): 07700 900000–900999. */
const DRAMA_MOBILE = /^(?:\+44|0044|44|0)7700900(\d{3})$/;

/** Whether a normalised (`+447…`) number is in Ofcom's drama range: no phone has one, so only the sandbox's customers do. */
export function isDramaMobile(e164: string): boolean {
  return DRAMA_MOBILE.test(e164);
}

type MobileNumberResult = { readonly ok: true; readonly e164: string } | { readonly ok: false; readonly message: string };

/** A UK mobile number in E.164 (`+447…`), or why the text is not one. */
export function normaliseUkMobileNumber(text: string): MobileNumberResult {
  const compact = text.replace(/[\s-]/g, '');
  const notOne = 'must be a UK mobile number: 07…, 447…, 00447… or +447…';
  if (!UK_NUMBER_SHAPE.test(compact)) return { ok: false, message: notOne };
  const drama = DRAMA_MOBILE.exec(compact);
  if (drama) return { ok: true, e164: `+447700900${drama[1]}` };
  const parsed = parsePhoneNumberFromString(compact, 'GB');
  const valid = parsed !== undefined && parsed.countryCallingCode === '44' && parsed.isValid();
  const type = valid ? parsed.getType() : undefined;
  if (type === 'FIXED_LINE' || (!valid && UK_GEOGRAPHIC.test(compact))) return { ok: false, message: LANDLINE };
  if (!valid) return { ok: false, message: `${notOne}; this is not a valid UK number` };
  if (type !== 'MOBILE') {
    const kind = (type && NUMBER_KINDS[type]) ?? 'not a mobile number';
    return { ok: false, message: `must be a UK mobile number; this is ${kind}` };
  }
  return { ok: true, e164: parsed.number };
}

const mobileNumber = requiredString('a UK mobile number')
  .transform((text, ctx) => {
    const result = normaliseUkMobileNumber(text);
    if (result.ok) return result.e164;
    ctx.addIssue({ code: 'custom', message: result.message });
    return z.NEVER;
  })
  .describe('UK mobile number: 07…, 447…, 00447… or +447…, spaces allowed; 070 personal and 076 pager numbers are refused');

const CODE_MESSAGE = 'must be a 6-digit code: a string such as "012345" or a number from 100000 to 999999';

const sixDigitCode = (what: string) =>
  z
    .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? 'required' : CODE_MESSAGE) })
    .transform((raw, ctx) => {
      const text = typeof raw === 'number' ? (Number.isInteger(raw) && raw >= 100_000 && raw <= 999_999 ? String(raw) : '') : raw;
      if (/^\d{6}$/.test(text)) return text;
      ctx.addIssue({ code: 'custom', message: CODE_MESSAGE });
      return z.NEVER;
    })
    .describe(`${what}: 6 digits, as a string ("012345") or a number (123456)`);

const sortCode = requiredString('a sort code')
  .transform((text, ctx) => {
    const match = /^(\d{2})([- ]?)(\d{2})\2(\d{2})$/.exec(text.trim());
    if (match) return `${match[1]}${match[3]}${match[4]}`;
    ctx.addIssue({ code: 'custom', message: 'must be a UK sort code: 6 digits, e.g. 123456 or 12-34-56' });
    return z.NEVER;
  })
  .describe('UK sort code: 6 digits, alone or in pairs joined by hyphens or spaces (12-34-56); the core stores and answers the 6 digits alone (123456)');

const accountNumber = requiredString('an account number')
  .regex(/^\d{8}$/, 'must be a UK account number: exactly 8 digits')
  .describe('UK account number: 8 digits');

const accountName = requiredString('the account name')
  .trim()
  .min(1, 'must not be empty')
  .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
  .describe('Name of the bank account');

const dateClosed = z
  .string({ error: `must be ${CORE_DATETIME_FORMS}, or null` })
  .transform((text, ctx) => {
    const core = toCoreDateTime(text);
    if (core === null) ctx.addIssue({ code: 'custom', message: `must be ${CORE_DATETIME_FORMS}, or null` });
    return core ?? text;
  })
  .nullable()
  .optional()
  .describe(
    'A date or datetime closes the account (inactive; sent to the core as yyyy-MM-ddTHH:mm:ss, an offset converted to UTC); null reopens it; absent keeps it as it is',
  );

const bankAccountVerificationSchema = z
  .object({
    CustomerId: id('Customer the code is for'),
    MobileNumber: mobileNumber,
    Code: sixDigitCode('Sandbox only: the code to send; absent or null, the gateway generates one').nullable().optional(),
    AccountNumber: accountNumber
      .describe(
        'Gateway addition (with SortCode, both or neither): the destination the code is for; the SMS names its last four digits, and the code then allows adding or updating a bank account to exactly this destination. Without a destination, the code allows only adding a new account.',
      )
      .nullable()
      .optional(),
    SortCode: sortCode
      .describe('Gateway addition (with AccountNumber, both or neither): the sort code of the destination the code is for')
      .nullable()
      .optional(),
  })
  .strict();

const bankAccountAddSchema = z
  .object({
    CustomerId: id('Customer who holds the account'),
    PersonId: id("The customer's person"),
    Name: accountName,
    AccountNumber: accountNumber,
    SortCode: sortCode,
    TwoFactorCode: sixDigitCode(
      'The code received by SMS after POST /bankaccounts/verification (sent without a destination, or with this AccountNumber and SortCode)',
    ),
  })
  .strict();

const bankAccountUpdateSchema = z
  .object({
    Id: z.number().int().optional().describe("The account's Id, as GET returns it, so a record read can be sent back; must be the path's id"),
    CustomerId: id('Customer who holds the account'),
    PersonId: id("The customer's person"),
    Name: accountName,
    AccountNumber: accountNumber,
    SortCode: sortCode,
    DateClosed: dateClosed,
    TwoFactorCode: sixDigitCode(
      'Needed to change AccountNumber or SortCode: the code sent to the customer by POST /bankaccounts/verification with this AccountNumber and SortCode (a code sent without them only adds accounts)',
    )
      .nullable()
      .optional(),
  })
  .strict();

type BankAccountVerification = z.output<typeof bankAccountVerificationSchema>;
type BankAccountAdd = z.output<typeof bankAccountAddSchema>;
type BankAccountUpdate = z.output<typeof bankAccountUpdateSchema>;

export type BodyValidation<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: FieldError[] };
type BodyValidator<T = Record<string, unknown>> = (value: unknown) => BodyValidation<T>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function validator<T extends Record<string, unknown>>(schema: z.ZodObject & z.ZodType<T>): BodyValidator<T> {
  const canonical = new Map(Object.keys(schema.shape).map((name) => [name.toLowerCase(), name]));
  return function validate(value) {
    if (!isPlainObject(value)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
    const errors: FieldError[] = [];
    const renamed: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value)) {
      const known = canonical.get(name.toLowerCase());
      if (known === undefined) errors.push({ field: name, message: 'unknown field' });
      else if (known in renamed) errors.push({ field: name, message: `given twice (as ${known} in another letter case)` });
      else renamed[known] = inner;
    }
    const result = schema.safeParse(renamed);
    if (!result.success) {
      for (const issue of result.error.issues) errors.push({ field: issue.path.map(String).join('.') || 'body', message: issue.message });
    }
    if (errors.length > 0 || !result.success) return { ok: false, errors };
    return { ok: true, value: result.data };
  };
}

export const validateBankAccountVerification: BodyValidator<BankAccountVerification> = validator(bankAccountVerificationSchema);
export const validateBankAccountAdd: BodyValidator<BankAccountAdd> = validator(bankAccountAddSchema);
export const validateBankAccountUpdate: BodyValidator<BankAccountUpdate> = validator(bankAccountUpdateSchema);

type BankAccountSchemaId = Extract<BodySchemaId, `BankAccount${string}`>;

/** Body schema id → validator. */
export const BANK_ACCOUNT_VALIDATORS = {
  BankAccountVerification: validateBankAccountVerification,
  BankAccountAdd: validateBankAccountAdd,
  BankAccountUpdate: validateBankAccountUpdate,
} as const satisfies Record<BankAccountSchemaId, BodyValidator<Record<string, unknown>>>;

const SCHEMAS: Readonly<Record<BankAccountSchemaId, z.ZodObject>> = {
  BankAccountVerification: bankAccountVerificationSchema,
  BankAccountAdd: bankAccountAddSchema,
  BankAccountUpdate: bankAccountUpdateSchema,
};

/** Fields that stay at the gateway: never in the JSON the core receives. */
/** Fields the gateway reads and the core never gets: the second factor, and the Id the path already names. */
const GATEWAY_ONLY_FIELDS: ReadonlySet<string> = new Set(['TwoFactorCode', 'Id']);

/** Top-level JSON numbers as JS numbers (every number of these bodies is a small integer or a code). */
function withPlainNumbers(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || isLosslessNumber(json)) return json;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(json)) out[name] = isLosslessNumber(value) ? Number(value.value) : value;
  return out;
}

function bankAccountContract(id: BankAccountSchemaId): BodyContract {
  const validate: BodyValidator<Record<string, unknown>> = BANK_ACCOUNT_VALIDATORS[id];
  return {
    id,
    formats: ['json'],
    decode(document: ParsedDocument): DecodedBody {
      const result = validate(document.format === 'json' ? withPlainNumbers(document.json) : undefined);
      if (!result.ok) {
        const count = result.errors.length;
        throw new GatewayError('invalid_request', `The ${id} body has ${count} invalid field${count === 1 ? '' : 's'}.`, { errors: result.errors });
      }
      const forCore = Object.fromEntries(Object.entries(result.value).filter(([name]) => !GATEWAY_ONLY_FIELDS.has(name)));
      return { value: result.value, coreJson: JSON.stringify(forCore) };
    },
    describe(components: Record<string, OpenApiSchema>) {
      components[id] = z.toJSONSchema(SCHEMAS[id], { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as OpenApiSchema;
      delete components[id].$schema;
      return { $ref: `#/components/schemas/${id}` };
    },
  };
}

/** The three bank-account body contracts, for the body step's registry (src/contracts/registry.ts). */
export function bankAccountContracts(): BodyContract[] {
  return (Object.keys(SCHEMAS) as BankAccountSchemaId[]).map(bankAccountContract);
}
