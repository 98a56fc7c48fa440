/**
 * The process logger: pino JSON lines, asynchronous so no request waits on the disk.
 *
 * Reads the configured level (LOG_LEVEL); sets nothing. Redaction is a second line of defence:
 * code never passes a secret to a log call, and these paths catch one that slips through.
 * They are explicit paths, not `*` wildcards: a wildcard makes pino visit every key of every
 * line, which cost about 20 µs per access-log line; explicit paths cost nothing measurable.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Field names that hold a secret, as DTOs, admin code and configs spell them. */
const SECRET_FIELDS = [
  'token',
  'secret',
  'password',
  'apiKey',
  'adminToken',
  'overridePassword',
  'OverridePassword',
  'overridepassword',
  'tempToken',
  'TempToken',
  'temptoken',
  'twoFactorCode',
  'TwoFactorCode',
  'twofactorcode',
] as const;

/** Where such a field may sit in a logged object: at the top, or in a logged body. */
const SECRET_CARRIERS = ['', 'body.', 'req.body.', 'request.body.', 'data.', 'input.'] as const;

/** Request headers that carry credentials, and where a logged object may hold headers. */
const SECRET_HEADERS = ['authorization', 'cookie', 'x-vendor-token', 'x-receipt-token', 'x-admin-token'] as const;
const HEADER_CARRIERS = ['headers', 'req.headers', 'request.headers'] as const;

/** Paths whose values never reach a log line (tokens, passwords, two-factor codes). */
const REDACTED_PATHS: readonly string[] = [
  ...SECRET_CARRIERS.flatMap((carrier) => SECRET_FIELDS.map((field) => `${carrier}${field}`)),
  ...HEADER_CARRIERS.flatMap((carrier) => SECRET_HEADERS.map((header) => `${carrier}["${header}"]`)),
];

export const REDACTION_CENSOR = '[redacted]';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'core-banking-gateway' },
      redact: { paths: [...REDACTED_PATHS], censor: REDACTION_CENSOR },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ sync: false }),
  );
}
