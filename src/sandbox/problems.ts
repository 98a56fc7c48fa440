/**
 * The sandbox core's errors: RFC 9457 problem details, `application/problem+json`
 * `{type, title, status, detail, errors?}`.
 *
 * Reads nothing; handlers throw SandboxProblem and the app's error handler writes it. The type
 * is `about:blank`, so the title is the HTTP status phrase (RFC 9457 §4.2.1); `detail` says what
 * was wrong and `errors` names each bad field or parameter. A body never carries a stack trace.
 */
import { STATUS_CODES } from 'node:http';

export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldProblem[];
}

export class SandboxProblem extends Error {
  override readonly name = 'SandboxProblem';

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: readonly FieldProblem[],
    /** Response headers the status calls for, such as Allow on 405. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }

  body(): ProblemBody {
    const body = { type: 'about:blank', title: STATUS_CODES[this.status] ?? 'Error', status: this.status, detail: this.detail };
    return this.errors && this.errors.length > 0 ? { ...body, errors: this.errors } : body;
  }
}

/** 400 naming every bad field or parameter; the detail lists them so a reader of the detail alone knows too. */
export function invalid(errors: readonly FieldProblem[]): SandboxProblem {
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new SandboxProblem(400, detail, errors);
}

export function notFound(detail: string): SandboxProblem {
  return new SandboxProblem(404, detail);
}
