import type http from 'node:http';
import { newContext } from '../request/context';
import { coreRequestHeaders, vendorLocation, vendorResponseHeaders, type CoreHeaderRules } from './core-headers';

const rules: CoreHeaderRules = {
  passHeaders: ['x-correlation-id'],
  forwarded: () => ({ clientAddress: '203.0.113.9', proto: 'https', host: 'api.bank.example' }),
};

function vendorRequest(headers: http.IncomingHttpHeaders): http.IncomingMessage {
  return { headers } as http.IncomingMessage;
}

function authenticatedContext(): ReturnType<typeof newContext> {
  const ctx = newContext('req-1');
  ctx.principal = { vendorId: 'acme', vendorName: 'Acme', keyId: 'k1', userId: 'teller', certificateThumbprints: [] };
  return ctx;
}

describe('headers to the core', () => {
  it('are the gateway’s own, plus the configured pass-through headers, and nothing else of the vendor’s', () => {
    const headers = coreRequestHeaders(
      vendorRequest({
        'x-correlation-id': 'c-9',
        'x-vendor-id': 'other',
        cookie: 'a=1',
        authorization: 'Bearer x',
        'x-http-method-override': 'DELETE',
        'content-type': 'text/plain',
        'content-length': '99',
      }),
      authenticatedContext(),
      rules,
      null,
    );
    expect(headers).toEqual({
      accept: 'application/json',
      'accept-encoding': 'identity',
      'x-request-id': 'req-1',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.bank.example',
      'x-vendor-id': 'acme',
      'x-vendor-user': 'teller',
      'x-correlation-id': 'c-9',
    });
  });

  it('frame a body the gateway holds with its own Content-Type and Content-Length', () => {
    const headers = coreRequestHeaders(vendorRequest({ 'transfer-encoding': 'chunked' }), authenticatedContext(), rules, {
      contentType: 'application/json',
      length: 12,
    });
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'content-length': 12 });
    expect(headers['transfer-encoding']).toBeUndefined();
  });

  it('send an empty body with Content-Length: 0 alone', () => {
    const headers = coreRequestHeaders(vendorRequest({}), authenticatedContext(), rules, { contentType: null, length: 0 });
    expect(headers['content-length']).toBe(0);
    expect(headers['content-type']).toBeUndefined();
  });

  it.each([
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', false],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', false],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', false],
  ])('pass the traceparent %s only when well formed (%s)', (traceparent, passed) => {
    const headers = coreRequestHeaders(vendorRequest({ traceparent }), authenticatedContext(), rules, null);
    expect(headers.traceparent).toBe(passed ? traceparent : undefined);
  });
});

describe("headers of the core's answer to the vendor", () => {
  it('are the allow-listed ones and the length', () => {
    const passed = vendorResponseHeaders(
      {
        'content-type': 'application/json',
        'content-length': '10',
        'set-cookie': ['a=1'],
        'x-core-node': 'n7',
        server: 'Core',
        etag: '"1"',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
      },
      ['content-type', 'etag', 'cache-control'],
      new URL('http://core.internal:5000/'),
    );
    expect(Object.fromEntries(passed)).toEqual({ 'content-type': 'application/json', etag: '"1"', 'content-length': '10' });
  });

  it.each([
    ['a path', '/transactions/10001', 'http://core.internal:5000/', '/transactions/10001'],
    ["the core's own absolute URL", 'http://core.internal:5000/accounts/7?x=1', 'http://core.internal:5000/', '/accounts/7?x=1'],
    ["a path under the core's base path", '/core/v1/people/3', 'http://core.internal:5000/core/v1/', '/people/3'],
    ['a relative reference, resolved as the core would', 'people/3', 'http://core.internal:5000/core/v1/', '/people/3'],
    ['another host', 'https://evil.example/transactions/1', 'http://core.internal:5000/', undefined],
    ['the core on another port', 'http://core.internal:6000/x', 'http://core.internal:5000/', undefined],
    ['a path outside the base path', '/admin/secret', 'http://core.internal:5000/core/v1/', undefined],
    ['a scheme-relative URL to another host', '//evil.example/x', 'http://core.internal:5000/', undefined],
    ['a path that normalises to a scheme-relative one', '/.//evil.example/x', 'http://core.internal:5000/', undefined],
    ['an absolute URL on the core whose path starts with //', 'http://core.internal:5000//evil.example/x', 'http://core.internal:5000/', undefined],
  ])('carry a Location as a gateway path: %s', (_case, location, base, expected) => {
    expect(vendorLocation(location, new URL(base))).toBe(expected);
    const passed = Object.fromEntries(vendorResponseHeaders({ location }, [], new URL(base)));
    expect(passed.location).toBe(expected);
  });
});
