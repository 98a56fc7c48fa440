/**
 * What a vendor hears when a two-factor code is not accepted (400 `two_factor_invalid`), from
 * the code store's state after the try: whether the code this vendor was sent is still valid
 * and until when (so the vendor asks the customer again rather than sending a new code, which
 * would replace it and is limited to one a minute per number), the lock rule, or that this try
 * locked the customer. Wrong tries count per customer whichever vendor made them, so the detail
 * states the rule, never the tries left: those would tell one vendor of another's tries.
 *
 * Reads the store's answer and the two-factor config; sets nothing. Never holds the code.
 */
import type { RedeemResult } from './code-store';
import type { TwoFactorConfig } from './two-factor.schema';

/** A duration as a reader takes it in: seconds under two minutes, else whole minutes. */
function duration(seconds: number): string {
  return seconds < 120 ? `${String(seconds)} s` : `${String(Math.round(seconds / 60))} min`;
}

/** The detail of `two_factor_invalid` after the try at `now` (ms) that the store refused. */
export function codeRefusedDetail(
  result: Extract<RedeemResult, { kind: 'refused' }>,
  now: number,
  config: Pick<TwoFactorConfig, 'maxAttempts' | 'lockSeconds'>,
): string {
  const notAccepted = 'The two-factor code was not accepted: it is wrong, or it was sent for another change.';
  const lockFor = duration(config.lockSeconds);
  if (result.locked) {
    return `${notAccepted} That wrong code reached the limit of ${String(config.maxAttempts)} for this customer: the code sent is void, and changes to the customer's bank accounts are locked for ${lockFor}.`;
  }
  const lockWarning = `After ${String(config.maxAttempts)} wrong codes for a customer, from any vendor, changes to its bank accounts are locked for ${lockFor}.`;
  // 'unknown': a code stored by an instance from before holders were kept (a rolling upgrade);
  // whose it is, is not known, so nothing is told of it.
  if (result.liveCode === 'none' || result.liveCode === 'unknown') {
    return `${notAccepted} No code sent to you for this customer is still valid (it expired, was used, or none was sent): request a new one with POST /bankaccounts/verification. ${lockWarning}`;
  }
  const { expiresAt } = result.liveCode;
  const until = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const seconds = String(Math.max(1, Math.ceil((expiresAt - now) / 1000)));
  return `${notAccepted} The code sent stays valid until ${until} (${seconds} s more): ask the customer for it again, and request a new one only if it expired. ${lockWarning}`;
}
