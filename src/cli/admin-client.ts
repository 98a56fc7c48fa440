/**
 * gatewayctl's side of the admin API: the HTTP client every command calls, the failure it
 * throws, and how a failure becomes stderr lines and an exit code.
 *
 * Reads nothing itself: the base URL and token are handed in (gatewayctl takes them from
 * GATEWAY_ADMIN_URL and ADMIN_TOKEN). Sets nothing; writes problems to the stderr it is given.
 */
import { CommanderError } from 'commander';
import { fieldInWords } from './output';

/** Where gatewayctl reads its environment and writes its output; tests pass their own. */
export interface GatewayctlIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';
const REQUEST_TIMEOUT_MS = 30_000;
/** A streamed answer (an audit export of the whole retention) may take far longer. */
const STREAM_TIMEOUT_MS = 600_000;

interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A failure to report: the admin API's problem (detail and field errors), or a local one. */
export class CommandFailure extends Error {
  constructor(
    readonly detail: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(detail);
  }
}

/** What a 401 to a request that carried a token means: the token itself was refused. */
const TOKEN_NOT_ACCEPTED =
  'admin token not accepted: the admin API refused ADMIN_TOKEN (mistyped, revoked, rotated, or from another gateway); export a current admin token.';

interface RequestOptions {
  readonly body?: unknown;
  /** A body sent as it is, with its own media type (apply sends a YAML file unchanged). */
  readonly raw?: { readonly text: string; readonly contentType: string };
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** More request headers (apply sends `If-Match`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Given the headers of a successful answer (`audit` reads its `Link: rel="next"`). */
  readonly answerHeaders?: (headers: Headers) => void;
}

export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options, REQUEST_TIMEOUT_MS);
    options.answerHeaders?.(response.headers);
    const text = await response.text();
    return (text.length > 0 ? JSON.parse(text) : null) as T;
  }

  /**
   * A GET whose successful answer the caller reads as it arrives (`audit export`: JSON lines of
   * the whole retention), with a longer time limit; refusals fail as `request`'s do.
   */
  async stream(path: string, query: Readonly<Record<string, string | undefined>> = {}): Promise<Response> {
    return this.send('GET', path, { query, headers: { accept: '*/*' } }, STREAM_TIMEOUT_MS);
  }

  private async send(method: string, path: string, options: RequestOptions, timeoutMs: number): Promise<Response> {
    const url = new URL(`/v1/${path}`, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    // No token: a request that takes none (redeeming an enrolment code).
    const headers: Record<string, string> = {
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      accept: 'application/json',
      ...options.headers,
    };
    let body: string | undefined;
    if (options.raw) {
      body = options.raw.text;
      headers['content-type'] = options.raw.contentType;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CommandFailure(`cannot reach the admin API at ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    if (response.ok) return response;
    const text = await response.text();
    // A token was sent and refused: say so, not the API's advice on how to send one.
    if (response.status === 401 && this.token) throw new CommandFailure(TOKEN_NOT_ACCEPTED);
    throw problemOf(response, text);
  }
}

function problemOf(response: Response, text: string): CommandFailure {
  try {
    const problem = JSON.parse(text) as { detail?: unknown; errors?: unknown };
    if (typeof problem.detail === 'string') {
      return new CommandFailure(problem.detail, Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : []);
    }
  } catch {
    // Not a problem body (a proxy's error page, say): the status line is all there is to say.
  }
  return new CommandFailure(`the admin API answered ${response.status} ${response.statusText}`);
}

/**
 * The exit code for what a command threw, after writing its report to stderr. Commander has
 * already written its own usage errors (and help) through the program's output, so those only
 * pass their exit code on.
 */
export function exitCodeFor(err: unknown, io: GatewayctlIo): number {
  if (err instanceof CommanderError) return err.exitCode;
  if (err instanceof CommandFailure) {
    io.stderr.write(`error: ${err.detail}\n`);
    // A document's field (`vendors[acme].licences[1].api`) is read out as the vendor or user it concerns.
    for (const field of err.errors) io.stderr.write(`  ${fieldInWords(field.field)}: ${field.message}\n`);
    return 1;
  }
  io.stderr.write(`error: ${(err as Error).message}\n`);
  return 1;
}
