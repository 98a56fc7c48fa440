import type http from 'node:http';
import { createForwardedResolver } from './forwarded';

/** The parts of a request the resolver reads: the socket's addresses and the headers. */
function request(remoteAddress: string, headers: http.IncomingHttpHeaders = {}, encrypted = false): http.IncomingMessage {
  const socket = { remoteAddress, localAddress: '10.1.2.3', localPort: 8080, encrypted };
  return { socket, connection: socket, headers } as unknown as http.IncomingMessage;
}

const SPOOFED = {
  'x-forwarded-for': '6.6.6.6, 7.7.7.7',
  'x-forwarded-host': 'evil.example, api.bank.example',
  'x-forwarded-proto': 'https',
  host: 'evil.example',
};

describe('forwarded origin', () => {
  it('without trusted proxies: the socket and the listener, whatever the headers say', () => {
    const resolve = createForwardedResolver({ trustedProxies: [], publicUrl: null });
    expect(resolve(request('203.0.113.9', SPOOFED))).toEqual({ clientAddress: '203.0.113.9', proto: 'http', host: '10.1.2.3:8080' });
  });

  it('reports https for a TLS listener and plain IPv4 for an IPv4-mapped address', () => {
    const resolve = createForwardedResolver({ trustedProxies: [], publicUrl: null });
    expect(resolve(request('::ffff:203.0.113.9', {}, true))).toMatchObject({ clientAddress: '203.0.113.9', proto: 'https' });
  });

  it('from a trusted proxy: the first untrusted hop, and the last host and scheme (the ones that proxy wrote)', () => {
    const resolve = createForwardedResolver({ trustedProxies: ['10.0.0.0/8'], publicUrl: null });
    expect(resolve(request('10.0.0.5', SPOOFED))).toEqual({ clientAddress: '7.7.7.7', proto: 'https', host: 'api.bank.example' });
  });

  it('walks past every trusted hop in X-Forwarded-For', () => {
    const resolve = createForwardedResolver({ trustedProxies: ['10.0.0.0/8'], publicUrl: null });
    expect(resolve(request('10.0.0.5', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.7' })).clientAddress).toBe('203.0.113.9');
  });

  it('from an untrusted peer, ignores X-Forwarded-* even when proxies are configured', () => {
    const resolve = createForwardedResolver({ trustedProxies: ['10.0.0.0/8'], publicUrl: null });
    expect(resolve(request('203.0.113.9', SPOOFED))).toEqual({ clientAddress: '203.0.113.9', proto: 'http', host: '10.1.2.3:8080' });
  });

  it.each([
    ['a host with a path', { 'x-forwarded-host': 'evil.example/path' }],
    ['a host with userinfo', { 'x-forwarded-host': 'user@evil.example' }],
    ['an unknown scheme', { 'x-forwarded-proto': 'javascript' }],
  ])('falls back to the listener for %s from a trusted proxy', (_label, headers) => {
    const resolve = createForwardedResolver({ trustedProxies: ['10.0.0.0/8'], publicUrl: null });
    expect(resolve(request('10.0.0.5', headers))).toMatchObject({ proto: 'http', host: '10.1.2.3:8080' });
  });

  it('takes scheme and host from publicUrl when set, and still the client address from trusted proxies', () => {
    const resolve = createForwardedResolver({ trustedProxies: ['10.0.0.0/8'], publicUrl: 'https://gateway.bank.example:8443' });
    expect(resolve(request('10.0.0.5', SPOOFED))).toEqual({ clientAddress: '7.7.7.7', proto: 'https', host: 'gateway.bank.example:8443' });
  });
});
