/**
 * The outbox SMS provider (sandbox mode): messages are kept in memory instead of being sent,
 * so that a vendor developing against the sandbox can read the code its customer would have
 * received, at the admin API (`GET /v1/sandbox/sms`).
 *
 * Reads nothing; keeps at most `capacity` messages, dropping the oldest. Each instance has its
 * own outbox: with several instances behind a balancer, a message is in the outbox of the
 * instance that handled the verification.
 */
import { randomUUID } from 'node:crypto';
import type { SmsMessage, SmsProvider } from './provider';

export interface OutboxMessage {
  readonly id: string;
  /** ISO 8601, UTC. */
  readonly sentAt: string;
  readonly to: string;
  readonly text: string;
}

/** What the admin API needs of the outbox. */
export interface SmsOutboxReader {
  /** Newest first; at most `limit`. */
  list(limit?: number): OutboxMessage[];
}

export class OutboxSmsProvider implements SmsProvider, SmsOutboxReader {
  readonly kind = 'outbox';
  /** Oldest first: appends are cheap, and list() reads it backwards. */
  private readonly messages: OutboxMessage[] = [];

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`outbox capacity must be a positive integer, not ${capacity}`);
  }

  async send(message: SmsMessage): Promise<void> {
    this.messages.push({ id: randomUUID(), sentAt: new Date().toISOString(), to: message.to, text: message.text });
    if (this.messages.length > this.capacity) this.messages.splice(0, this.messages.length - this.capacity);
  }

  list(limit = this.capacity): OutboxMessage[] {
    return this.messages.slice(Math.max(0, this.messages.length - limit)).reverse();
  }
}
