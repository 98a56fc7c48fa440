/**
 * The process logger: pino JSON lines, asynchronous so no request waits on the disk.
 *
 * Reads the configured level (LOG_LEVEL); sets nothing. Redaction is a second line of defence:
 * code never passes a secret to a log call, and these paths catch one that slips through.
 * They are explicit paths, not `*` wildcards: a wildcard makes pino visit every key of every
 * line, which cost about 20 µs per access-log line; explicit paths cost nothing measurable.
 * `infoLineWriter` writes a line from members the caller serialised (the access log), as
 * `logger.info` would have written it, without the intermediate object.
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

/** Writes `{level, time, bindings, …members, msg}` at info level; `members` is `,"name":json` per field. */
type InfoLineWriter = (members: string, message: string) => void;

interface PinoInternals {
  readonly [key: symbol]: unknown;
}

/**
 * A writer of info lines for `logger` from pre-serialised members: pino's own level prefix,
 * time, bindings and end around them, straight into its destination, so a hot line (the
 * access log) builds no object for pino to walk. A logger this template cannot stand in for
 * (a mixin, a message prefix, a nested key, log hooks, a destination asking for metadata;
 * createLogger makes none of these) gets the members parsed back and logged as usual.
 * The members must hold no redacted field: the template does not redact.
 */
export function infoLineWriter(logger: Logger): InfoLineWriter {
  const internals = logger as unknown as PinoInternals;
  const { symbols } = pino;
  const stream = internals[symbols.streamSym] as { write(line: string): unknown } & PinoInternals;
  const hooks = internals[symbols.hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  const plain =
    !internals[symbols.mixinSym] &&
    !internals[(symbols as unknown as Record<string, symbol>).msgPrefixSym as symbol] &&
    !internals[symbols.nestedKeySym] &&
    !hooks?.logMethod &&
    !hooks?.streamWrite &&
    !stream[symbols.needsMetadataGsym] &&
    internals[symbols.messageKeySym] === 'msg';
  if (!plain) {
    return (members, message) => logger.info(JSON.parse(`{${members.slice(1)}}`) as object, message);
  }
  const time = internals[symbols.timeSym] as () => string;
  const end = internals[symbols.endSym] as string;
  return (members, message) => {
    if (!logger.isLevelEnabled('info')) return;
    const prefix = (internals[symbols.lsCacheSym] as Record<number, string>)[30];
    stream.write(`${prefix}${time()}${internals[symbols.chindingsSym] as string}${members},"msg":${JSON.stringify(message)}${end}`);
  };
}
