/**
 * The HTTP SMS provider: one JSON POST per message, `{"to": "+447…", "text": "…"}` (plus
 * `"from"` when a sender id is configured), with `Authorization: Bearer <token>`.
 *
 * Each attempt has a deadline (answer body included). A 2xx is success; a 4xx means the
 * provider refused this message and is not retried; a 5xx, a timeout or a network error is
 * retried up to `maxRetries` times, waiting `retryBackoffMs`, then twice that, and so on. All
 * attempts of one message carry the same `Idempotency-Key`, so a provider that honours it
 * sends the SMS once even when an answer was lost. Redirects are refused, so the token only
 * ever goes to the configured URL.
 *
 * Reads its config; opens connections only when sending. Errors name the status or the kind
 * of failure, never the URL, the token, the recipient or the text.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { SmsHttpConfig } from './sms.schema';
import { SmsSendError, type SmsMessage, type SmsProvider } from './provider';

/** Why one attempt failed, when it may be retried. */
type RetryableFailure = string;

export class HttpSmsProvider implements SmsProvider {
  readonly kind = 'http';
  private readonly url: string;
  private readonly authorization: string;

  constructor(private readonly config: SmsHttpConfig) {
    if (config.url === null || config.bearerToken === null) throw new Error('sms.http.url and sms.http.bearerToken are required for the http SMS provider');
    this.url = config.url;
    this.authorization = `Bearer ${config.bearerToken}`;
  }

  async send(message: SmsMessage): Promise<void> {
    const body = JSON.stringify({ to: message.to, text: message.text, ...(this.config.sender === null ? {} : { from: this.config.sender }) });
    const idempotencyKey = randomUUID();
    const attempts = this.config.maxRetries + 1;
    let lastFailure: RetryableFailure = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await delay(this.config.retryBackoffMs * 2 ** (attempt - 2));
      const failure = await this.attempt(body, idempotencyKey);
      if (failure === null) return;
      lastFailure = failure;
    }
    throw new SmsSendError('failed', `SMS provider failed ${attempts} time(s); last: ${lastFailure}`);
  }

  /** Null on success; the reason on a retryable failure; throws on a refusal. */
  private async attempt(body: string, idempotencyKey: string): Promise<RetryableFailure | null> {
    let status: number;
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': idempotencyKey },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      status = response.status;
      // Read to the end, so the keep-alive socket goes back to the pool.
      await response.arrayBuffer();
    } catch (err) {
      const error = err as Error & { cause?: { code?: string } };
      if (error.name === 'TimeoutError') return `no answer within ${this.config.timeoutMs} ms`;
      return `network error${error.cause?.code ? ` (${error.cause.code})` : ''}`;
    }
    if (status >= 200 && status < 300) return null;
    if (status >= 400 && status < 500) throw new SmsSendError('rejected', `SMS provider refused the message with HTTP ${status}`);
    return `HTTP ${status}`;
  }
}
