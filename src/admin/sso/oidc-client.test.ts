import { classifyFailure } from './oidc-client';

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
