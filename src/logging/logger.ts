/**
 * The process logger: pino JSON lines, asynchronous so no request waits on the disk.
 *
 * Reads the configured level; sets nothing. Redaction is a second line of defence: code
 * never passes a secret to a log call, and these paths catch one that slips through.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Paths whose values never reach a log line (tokens, passwords, two-factor codes). */
export const REDACTED_PATHS = [
  'req.headers["x-vendor-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-vendor-token"]',
  'headers.authorization',
  '*.token',
  '*.secret',
  '*.password',
  '*.overridePassword',
  '*.OverridePassword',
  '*.tempToken',
  '*.TempToken',
  '*.twoFactorCode',
  '*.TwoFactorCode',
] as const;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'core-banking-gateway' },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ sync: false }),
  );
}
