/**
 * The SMS provider contract every adapter meets (outbox, HTTP), its failure type, and the
 * masking that lets a log line name a recipient without holding the number.
 *
 * Reads nothing; sets nothing. A provider either delivers the message to its provider (the
 * promise resolves) or throws SmsSendError; neither the error's message nor anything else an
 * adapter logs carries the recipient or the text, which holds a two-factor code.
 */

export interface SmsMessage {
  /** E.164, e.g. `+447400123456`. */
  readonly to: string;
  readonly text: string;
}

/** Label values of gateway_sms_sent_total{outcome}. */
export type SmsOutcome = 'sent' | 'rejected' | 'failed';

export interface SmsProvider {
  readonly kind: 'outbox' | 'http';
  send(message: SmsMessage): Promise<void>;
}

export class SmsSendError extends Error {
  override readonly name = 'SmsSendError';

  constructor(
    /** `rejected`: the provider refused the message (4xx); `failed`: 5xx, timeout or network, after retries. */
    readonly outcome: Exclude<SmsOutcome, 'sent'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Every digit but the last three replaced by `*`: `+447400123456` → `+*********456`. */
export function maskPhoneNumber(number: string): string {
  const digits = number.replace(/\D/g, '').length;
  let seen = 0;
  return number.replace(/\d/g, (digit) => (++seen > digits - 3 ? digit : '*'));
}
