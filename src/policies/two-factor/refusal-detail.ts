/**
 * What a vendor hears when a two-factor code is not accepted (400 `two_factor_invalid`), from
 * the code store's state after the try: whether the code this vendor was sent is still valid
 * and until when (so the vendor asks the customer again rather than sending a new code, which
 * would replace it and is limited to one a minute per number), how many wrong codes are left
 * before the customer is locked, or that this try locked the customer.
 *
 * Reads the store's answer and the two-factor config; sets nothing. Never holds the code.
 */
import type { RedeemResult } from './code-store';
import type { TwoFactorConfig } from './two-factor.schema';

/** The detail of `two_factor_invalid` after the try at `now` (ms) that the store refused. */
export function codeRefusedDetail(
  result: Extract<RedeemResult, { kind: 'refused' }>,
  now: number,
  config: Pick<TwoFactorConfig, 'maxAttempts' | 'lockSeconds' | 'codeTtlSeconds'>,
): string {
  const notAccepted = 'The two-factor code was not accepted: it is wrong, or it was sent for another change.';
  const lockFor = `${String(Math.max(1, Math.round(config.lockSeconds / 60)))} min`;
  if (result.locked) {
    return `${notAccepted} That was wrong code ${String(result.wrongTries)} of ${String(config.maxAttempts)} for this customer: the code sent is void, and changes to the customer's bank accounts are locked for ${lockFor}.`;
  }
  const left = config.maxAttempts - result.wrongTries;
  const lockWarning = `${String(left)} more wrong ${left === 1 ? 'code locks' : 'codes lock'} the customer's bank-account changes for ${lockFor}.`;
  if (result.liveCode === 'none') {
    return `${notAccepted} No code sent to you for this customer is still valid (it expired, was used, or none was sent): request a new one with POST /bankaccounts/verification. ${lockWarning}`;
  }
  if (result.liveCode === 'unknown') {
    // Only while instances from before holders were kept still run: whose code it is, is not known.
    const lifetime = `${String(Math.max(1, Math.round(config.codeTtlSeconds / 60)))} min`;
    return `${notAccepted} A code sent stays valid for ${lifetime}: request a new one only if yours expired. ${lockWarning}`;
  }
  const { expiresAt } = result.liveCode;
  const until = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const seconds = String(Math.max(1, Math.ceil((expiresAt - now) / 1000)));
  return `${notAccepted} The code sent stays valid until ${until} (${seconds} s more): ask the customer for it again, and request a new one only if it expired. ${lockWarning}`;
}
