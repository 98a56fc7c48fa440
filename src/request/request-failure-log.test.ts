/**
 * The "request failed" line of a 5xx: always at `error`; our own fault keeps its stack, an
 * expected failure of the core (timeout, open breaker, reset) is one line naming its code and
 * root cause, with no stack.
 */
import { GatewayError } from '../errors/error-catalogue';
import { CoreCallError } from '../core-client/core-call-error';
import { createLogger } from '../logging/logger';
import { logRequestFailure } from './request-failure-log';

function logged(error: GatewayError): { line: string; fields: Record<string, unknown> } {
  const lines: string[] = [];
  logRequestFailure(createLogger('debug', { write: (chunk: string) => lines.push(chunk.trim()) }), error, 'req-1');
  expect(lines).toHaveLength(1);
  const line = lines[0] ?? '';
  return { line, fields: JSON.parse(line) as Record<string, unknown> };
}

function errnoError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('logRequestFailure', () => {
  it('logs our own fault (internal_error) at error with the stack of its cause', () => {
    const { fields } = logged(new GatewayError('internal_error', 'An unexpected error occurred.', { cause: new TypeError('x is undefined') }));
    expect(fields).toMatchObject({
      level: 50,
      msg: 'request failed',
      requestId: 'req-1',
      code: 'internal_error',
      err: { type: 'TypeError', message: 'x is undefined' },
    });
    expect((fields.err as { stack: string }).stack).toMatch(/\n\s+at /);
  });

  it.each([
    ['a core timeout', new CoreCallError('core_timeout', true, { cause: errnoError('Timed out after 300ms', 'ETIMEDOUT') }), 'core_timeout', 'ETIMEDOUT'],
    [
      'an open breaker',
      new CoreCallError('core_unavailable', false, { cause: errnoError('Breaker is open', 'EOPENBREAKER') }),
      'core_unavailable',
      'EOPENBREAKER',
    ],
    ['a reset connection', new CoreCallError('bad_gateway', true, { cause: errnoError('socket hang up', 'ECONNRESET') }), 'bad_gateway', 'ECONNRESET'],
  ])('logs %s at error as one line with its code and root cause, without a stack', (_name, error, code, cause) => {
    const { line, fields } = logged(error);
    expect(fields).toMatchObject({ level: 50, requestId: 'req-1', code, cause, reason: expect.any(String) });
    expect(fields.err).toBeUndefined();
    expect(line).not.toMatch(/"stack"|\\n\s+at /);
  });
});
