import type { Request, Response } from 'express';
import { GatewayError } from '../../errors/error-catalogue';
import { connectionNamesFraming, framing } from './framing';

function run(method: string, headers: Record<string, string>): GatewayError | 'passed' {
  let outcome: GatewayError | 'passed' = 'passed';
  try {
    framing()({ method, headers } as unknown as Request, {} as Response, () => undefined);
  } catch (err) {
    outcome = err as GatewayError;
  }
  return outcome;
}

describe('framing step', () => {
  it.each(['Content-Length', 'transfer-encoding', 'close, HOST', ' keep-alive ,  Content-Length '])(
    'finds a framing header named in Connection: %s',
    (value) => {
      expect(connectionNamesFraming(value)).toBe(true);
    },
  );

  it.each([undefined, 'close', 'keep-alive, Upgrade', 'Content-Lengthy', 'X-Host'])('lets Connection: %s be', (value) => {
    expect(connectionNamesFraming(value)).toBe(false);
  });

  it('refuses a Connection header naming framing with 400 naming the header, and closes the connection', () => {
    const refused = run('GET', { connection: 'Content-Length' });
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'invalid_request', errors: [{ field: 'Connection' }], headers: { Connection: 'close' } });
  });

  it.each([
    ['GET', { 'content-length': '5' }],
    ['HEAD', { 'transfer-encoding': 'chunked' }],
    ['DELETE', { 'content-length': '2' }],
  ])('refuses a %s with a body (%j), closing the connection', (method, headers) => {
    expect(run(method, headers)).toMatchObject({ code: 'invalid_request', errors: [{ field: 'body' }], headers: { Connection: 'close' } });
  });

  it.each(['gzip, chunked', 'chunked, chunked', 'identity', 'gzip', 'chunked;q=1', 'x-custom, chunked'])(
    'refuses Transfer-Encoding: %s with 400 naming the header, closing the connection',
    (coding) => {
      expect(run('POST', { 'transfer-encoding': coding })).toMatchObject({
        code: 'invalid_request',
        errors: [{ field: 'Transfer-Encoding' }],
        headers: { Connection: 'close' },
      });
    },
  );

  it.each(['chunked', 'Chunked', ' CHUNKED '])('accepts plain chunked in any case (%j)', (coding) => {
    expect(run('POST', { 'transfer-encoding': coding })).toBe('passed');
  });

  it.each([
    ['GET', {}],
    ['GET', { 'content-length': '0' }],
    ['POST', { 'content-length': '5' }],
    ['PUT', { 'transfer-encoding': 'chunked' }],
  ])('lets a %s with %j through', (method, headers) => {
    expect(run(method, headers)).toBe('passed');
  });
});
