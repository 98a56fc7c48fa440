/**
 * The logger's second line of defence: a secret passed to a log call by mistake, at the top
 * of the logged object, in a logged body or in logged headers, comes out censored; the level
 * (LOG_LEVEL) filters lines. A templated info line is the line logger.info writes.
 */
import pino from 'pino';
import { createLogger, infoLineWriter, REDACTION_CENSOR } from './logger';

function capture(level: string): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (chunk: string) => lines.push(JSON.parse(chunk) as Record<string, unknown>) });
  return { lines, logger };
}

describe('logger', () => {
  it('censors secrets at the top of a logged object, in a logged body and in logged headers', () => {
    const { lines, logger } = capture('info');
    logger.info(
      {
        adminToken: 'admin-secret',
        password: 'redis-secret',
        body: { OverridePassword: 'override-secret', TempToken: 'temp-secret', TwoFactorCode: '123456', twoFactorCode: '654321', amount: '0.10' },
        req: { headers: { 'x-vendor-token': 'vendor-secret', authorization: 'Bearer b', cookie: 'c=1', accept: 'application/json' } },
        headers: { 'x-receipt-token': 'receipt-secret' },
      },
      'oops',
    );
    expect(lines[0]).toMatchObject({
      adminToken: REDACTION_CENSOR,
      password: REDACTION_CENSOR,
      body: {
        OverridePassword: REDACTION_CENSOR,
        TempToken: REDACTION_CENSOR,
        TwoFactorCode: REDACTION_CENSOR,
        twoFactorCode: REDACTION_CENSOR,
        amount: '0.10',
      },
      req: { headers: { 'x-vendor-token': REDACTION_CENSOR, authorization: REDACTION_CENSOR, cookie: REDACTION_CENSOR, accept: 'application/json' } },
      headers: { 'x-receipt-token': REDACTION_CENSOR },
    });
    expect(JSON.stringify(lines)).not.toMatch(/secret|123456|654321|Bearer b/);
  });

  it('writes only lines at or above its level', () => {
    const { lines, logger } = capture('warn');
    logger.info('request');
    logger.warn('circuit breaker opened');
    expect(lines.map((line) => line.msg)).toEqual(['circuit breaker opened']);
  });

  it('writes a templated info line exactly as logger.info writes the same fields, bindings of a child included, and not below its level', () => {
    const raw: string[] = [];
    const logger = createLogger('info', { write: (chunk: string) => raw.push(chunk) }).child({ component: 'vendor' });
    const fields = { requestId: 'r-1', path: '/a"b\\c\u0001', status: 200, durationMs: 1.25, aborted: true };
    const members = Object.entries(fields)
      .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
      .join('');
    logger.info(fields, 'request');
    infoLineWriter(logger)(members, 'request');
    const withoutTime = (line: string | undefined): string | undefined => line?.replace(/"time":"[^"]*"/, '"time":""');
    expect(raw).toHaveLength(2);
    expect(withoutTime(raw[1])).toBe(withoutTime(raw[0]));
    logger.level = 'warn';
    infoLineWriter(logger)(members, 'request');
    expect(raw).toHaveLength(2);
  });

  it('logs a templated line through pino when the logger adds to every line (a mixin)', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ mixin: () => ({ zone: 'a' }) }, { write: (chunk: string) => lines.push(JSON.parse(chunk) as Record<string, unknown>) });
    infoLineWriter(logger)(',"status":201', 'request');
    expect(lines[0]).toMatchObject({ zone: 'a', status: 201, msg: 'request' });
  });
});
