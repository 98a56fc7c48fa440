import { cleanText, problemFromCoreAnswer } from './core-problem';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe("the core's refusals as the gateway's problems", () => {
  it.each([
    [400, 'invalid_request'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [409, 'conflict'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [422, 'unprocessable_content'],
    [429, 'rate_limited'],
  ])('tells a %i as %s', (status, code) => {
    expect(problemFromCoreAnswer(status, 'application/json', json({}))).toMatchObject({ code, status });
  });

  it('tells a 410 as not_found (404): the catalogue has one code for a resource that is not there', () => {
    expect(problemFromCoreAnswer(410, 'application/json', json({}))).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('tells a refusal of the gateway itself (401, 403) as 502: the operator has to act, not the vendor', () => {
    expect(problemFromCoreAnswer(401, 'text/html', Buffer.from('<h1>Unauthorized</h1>'))).toMatchObject({ code: 'bad_gateway', status: 502 });
    expect(problemFromCoreAnswer(403, 'application/json', json({ message: 'client not allowed' })).detail).not.toContain('client not allowed');
  });

  it("keeps the core's message and maps RFC 9457 problems and ASP.NET validation errors", () => {
    const aspNet = problemFromCoreAnswer(
      400,
      'application/problem+json',
      json({ type: 'about:blank', title: 'One or more validation errors occurred.', errors: { PageSize: ['must be at most 100'] } }),
    );
    expect(aspNet).toMatchObject({
      code: 'invalid_request',
      detail: 'One or more validation errors occurred.',
      errors: [{ field: 'PageSize', message: 'must be at most 100' }],
    });
    const listed = problemFromCoreAnswer(400, 'application/json', json({ detail: 'bad sort', errors: [{ field: 'sort', message: 'unknown field' }] }));
    expect(listed).toMatchObject({ detail: 'bad sort', errors: [{ field: 'sort', message: 'unknown field' }] });
  });

  it('never shows HTML or plain text, and cuts and cleans JSON messages: no control characters, at most 300 characters', () => {
    expect(problemFromCoreAnswer(404, 'text/html', Buffer.from('<pre>at Core.Accounts.Get() on cbs-db-01</pre>')).detail).toBe(
      'The core banking system has no such resource.',
    );
    expect(problemFromCoreAnswer(400, 'text/plain', Buffer.from('System.IO at D:\\cbs\\Receipts.cs:42 on cbs-app-03.internal')).detail).toBe(
      'The core banking system refused the request as invalid.',
    );
    const noisy = problemFromCoreAnswer(400, 'application/json', json({ errorMessage: `bad\u0001input\u0000${'x'.repeat(500)}` }));
    expect([...noisy.detail].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
    expect(noisy.detail.length).toBeLessThanOrEqual(300);
    expect(cleanText('a\r\n\tb')).toBe('a b');
  });

  it("keeps the core's Retry-After on a 429", () => {
    expect(problemFromCoreAnswer(429, 'application/json', json({}), '30').headers).toEqual({ 'Retry-After': '30' });
  });
});
