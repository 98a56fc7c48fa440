/**
 * What every gatewayctl command group is registered with: the admin API client, printing that
 * honours --json, and the argument helpers the groups share.
 *
 * Reads ADMIN_TOKEN and GATEWAY_ADMIN_URL from the io's env, and the program's --json option,
 * when a command first needs them. Sets nothing; prints to the io's stdout.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { AdminClient, CommandFailure, DEFAULT_ADMIN_URL, type GatewayctlIo } from '../admin-client';

export interface CommandContext {
  readonly io: GatewayctlIo;
  /** Writes text to stdout as it is. */
  print(text: string): void;
  /** Whether --json was given. */
  json(): boolean;
  /** Prints JSON when asked for, else the human form. */
  show<T>(value: T, human: (value: T) => string): void;
  /**
   * `show` for a write's answer, which with approvals required is the change filed for approval
   * (202), not the thing written: that is said as such.
   */
  showWrite<T>(value: T, human: (value: T) => string): void;
  /** The admin API client; throws a CommandFailure when ADMIN_TOKEN is not set. */
  api(): AdminClient;
  /** The admin API client without a token, for the one request that takes none (enrolling). */
  anonymousApi(): AdminClient;
}

export function commandContext(program: Command, io: GatewayctlIo): CommandContext {
  // Made on first use, not up front, so `--help` and usage errors need no token.
  let client: AdminClient | null = null;
  const print = (text: string): void => {
    io.stdout.write(text);
  };
  // Read at action time: the option is parsed only after the commands are registered.
  const json = (): boolean => program.opts<{ json?: boolean }>().json === true;
  return {
    io,
    print,
    json,
    show: (value, human) => print(json() ? `${JSON.stringify(value, null, 2)}\n` : human(value)),
    showWrite: (value, human) => print(json() ? `${JSON.stringify(value, null, 2)}\n` : isFiled(value) ? filedText(value) : human(value)),
    api: () => {
      const token = io.env.ADMIN_TOKEN;
      if (!token) throw new CommandFailure('ADMIN_TOKEN is not set; export the admin token first.');
      client ??= new AdminClient(io.env.GATEWAY_ADMIN_URL || DEFAULT_ADMIN_URL, token);
      return client;
    },
    anonymousApi: () => new AdminClient(io.env.GATEWAY_ADMIN_URL || DEFAULT_ADMIN_URL, ''),
  };
}

/** A change filed for approval, as the admin API answers a write with approvals required. */
interface FiledChange {
  readonly status: 'pending';
  readonly id: string;
  readonly action: string;
  readonly target: string;
}

const isFiled = (value: unknown): value is FiledChange =>
  typeof value === 'object' &&
  value !== null &&
  (value as { status?: unknown }).status === 'pending' &&
  typeof (value as { action?: unknown }).action === 'string';

const filedText = (change: FiledChange): string =>
  `Filed for approval as change ${change.id} (${change.action} ${change.target}); it applies once another admin approves it.\n`;

/** Commander's parser for a count option: digits only, so `--points 1e3` or `-5` is refused. */
export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number.');
  return Number(value);
}

/** `--allow-empty` as the admin API's query: a pattern matching no API id is then taken. */
export const allowEmptyQuery = (options: { allowEmpty?: boolean }): Record<string, string | undefined> => ({
  allowEmpty: options.allowEmpty ? 'true' : undefined,
});

/** An id as one URL path segment (ids may hold characters a path would split or misread). */
export const segment = (id: string): string => encodeURIComponent(id);
