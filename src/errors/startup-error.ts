/**
 * The one family of start-up failures: whatever stops the gateway before it serves (a bad
 * configuration, an unreadable TLS, access or receipt-enumeration file, Redis unreachable, a
 * port taken) is a StartupError, so main.ts answers all of them alike: the message on stderr,
 * no stack trace, exit 2 (the orchestrator's "fix the deployment, a restart will not help").
 *
 * Reads and sets nothing. Request-time errors are not here: they come from error-catalogue.ts.
 */

/** What failed, for logs and tests; the message says which key or file and what to fix. */
type StartupFailure = 'config' | 'tls-file' | 'access-file' | 'audit-key' | 'receipt-enums' | 'redis' | 'listen';

export class StartupError extends Error {
  override readonly name: string = 'StartupError';

  constructor(
    readonly failure: StartupFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A listener that could not open (port taken, address not on this host, no permission), named by its setting. */
export function listenFailure(setting: string, host: string, port: number, err: NodeJS.ErrnoException): StartupError {
  const why = err.code === 'EADDRINUSE' ? 'the port is in use (EADDRINUSE)' : err.message;
  return new StartupError('listen', `${setting}: cannot listen on ${host}:${port}: ${why}`);
}
