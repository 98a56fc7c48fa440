import { claimedSubject, classifyFailure } from './oidc-client';

class AuthorizationResponseError extends Error {
  constructor(readonly error: string) {
    super(error);
  }
}
class ResponseBodyError extends Error {}
const library = { AuthorizationResponseError, ResponseBodyError } as unknown as Parameters<typeof classifyFailure>[0];

/** The library's own shape: a ClientError with a code, its cause naming the claim compared. */
const libraryError = (code: string, cause?: object): Error => Object.assign(new Error('checked'), { code, cause });

describe('classifyFailure', () => {
  it('tells a silent attempt with no session at the provider from the provider refusing', () => {
    expect(classifyFailure(library, new AuthorizationResponseError('login_required'))).toBe('login_required');
    expect(classifyFailure(library, new AuthorizationResponseError('consent_required'))).toBe('login_required');
    expect(classifyFailure(library, new AuthorizationResponseError('access_denied'))).toBe('provider_error');
    expect(classifyFailure(library, new ResponseBodyError('invalid_grant'))).toBe('provider_error');
  });

  it('names a wrong issuer, unknown signing keys and an unreachable provider; any other failed check is an invalid token', () => {
    expect(classifyFailure(library, libraryError('OAUTH_JWT_CLAIM_COMPARISON_FAILED', { claim: 'iss' }))).toBe('wrong_issuer');
    expect(classifyFailure(library, libraryError('OAUTH_JWT_CLAIM_COMPARISON_FAILED', { claim: 'nonce' }))).toBe('invalid_token');
    expect(classifyFailure(library, libraryError('OAUTH_KEY_SELECTION_FAILED'))).toBe('keys_changed');
    expect(classifyFailure(library, libraryError('OAUTH_JWT_TIMESTAMP_CHECK_FAILED', { claim: 'exp' }))).toBe('invalid_token');
    expect(classifyFailure(library, libraryError('OAUTH_INVALID_RESPONSE', { message: 'JWT signature verification failed' }))).toBe('invalid_token');
    expect(classifyFailure(library, new TypeError('fetch failed'))).toBe('provider_unavailable');
  });
});

describe('claimedSubject', () => {
  const idToken = (payload: object): string => ['e30', Buffer.from(JSON.stringify(payload)).toString('base64url'), 'c2ln'].join('.');

  it('reads the subject an ID token claims, for the audit of a refusal', () => {
    expect(claimedSubject(JSON.stringify({ id_token: idToken({ sub: 'alice-123' }), access_token: 'x' }))).toBe('alice-123');
  });

  it('gives nothing for an answer without an ID token, a garbled one, or a subject no provider may send', () => {
    expect(claimedSubject('{"access_token":"x"}')).toBeUndefined();
    expect(claimedSubject('not json')).toBeUndefined();
    expect(claimedSubject(JSON.stringify({ id_token: 'a.b' }))).toBeUndefined();
    expect(claimedSubject(JSON.stringify({ id_token: idToken({ sub: 'x'.repeat(300) }) }))).toBeUndefined();
    expect(claimedSubject(JSON.stringify({ id_token: idToken({ sub: 'has space' }) }))).toBeUndefined();
  });
});
