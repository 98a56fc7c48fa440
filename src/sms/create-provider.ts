/**
 * Builds the SMS provider the config names, wrapped so that every send is counted by outcome
 * (the `onSent` callback feeds gateway_sms_sent_total{outcome}).
 *
 * Reads the `sms` config; returns the provider, and the outbox when it is the outbox provider
 * (for the admin API's `GET /v1/sandbox/sms`).
 */
import { HttpSmsProvider } from './http-provider';
import { OutboxSmsProvider } from './outbox';
import { SmsSendError, type SmsMessage, type SmsOutcome, type SmsProvider } from './provider';
import type { SmsConfig } from './sms.schema';

interface SmsProviderDeps {
  readonly onSent?: (outcome: SmsOutcome) => void;
}

interface SmsSetup {
  readonly provider: SmsProvider;
  /** Set with the outbox provider only. */
  readonly outbox: OutboxSmsProvider | null;
}

export function createSmsProvider(config: SmsConfig, deps: SmsProviderDeps = {}): SmsSetup {
  const outbox = config.provider === 'outbox' ? new OutboxSmsProvider(config.outboxCapacity) : null;
  const inner: SmsProvider = outbox ?? new HttpSmsProvider(config.http);
  const onSent = deps.onSent;
  const provider: SmsProvider = {
    kind: inner.kind,
    async send(message: SmsMessage): Promise<void> {
      try {
        await inner.send(message);
      } catch (err) {
        onSent?.(err instanceof SmsSendError ? err.outcome : 'failed');
        throw err;
      }
      onSent?.('sent');
    },
  };
  return { provider, outbox };
}
