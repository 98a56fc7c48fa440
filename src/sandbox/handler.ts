/**
 * What a sandbox route handler receives and the helpers every handler uses to answer.
 *
 * Reads path parameters and the query; writes JSON through the decimal-preserving writer.
 */
import type { Request, Response } from 'express';
import { writeJson } from './json';
import { invalid } from './problems';

export interface Exchange {
  readonly req: Request;
  readonly res: Response;
  /** Path parameters by the catalogue's names (`accountId`, `memberId`, ...), as sent. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
}

/** Answers the exchange or throws a SandboxProblem. */
export type Handler = (exchange: Exchange) => void;

export function sendJson(res: Response, status: number, value: unknown): void {
  res.status(status).type('application/json').send(writeJson(value));
}

/** The integer id in path parameter `name`; a 400 naming the parameter otherwise. */
export function pathId(params: Readonly<Record<string, string>>, name: string): number {
  const text = params[name] ?? '';
  const id = /^-?\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw invalid([{ field: name, message: `'${text.slice(0, 40)}' is not an integer id` }]);
  return id;
}
