/**
 * The idempotency store in this process's memory: sandbox mode (no Redis), one instance.
 *
 * Reads the clock; holds one record per key in a Map kept in order of last write, so expired
 * records are swept from its front on each claim and memory stays bounded by the traffic of
 * one retention period. Every operation completes synchronously, hence atomically.
 */
import type { ClaimOutcome, IdempotencyStore, IdempotencyTimings, StoredResponse } from './idempotency-store';

interface MemoryRecord {
  state: 'in_flight' | 'completed' | 'unknown';
  fingerprint: Buffer;
  token: string;
  /** When an in-flight claim counts as unknown (epoch ms). */
  deadline: number;
  expiresAt: number;
  response: StoredResponse | null;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, MemoryRecord>();

  constructor(
    private readonly timings: IdempotencyTimings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records held, expired ones not yet swept included. */
  get size(): number {
    return this.records.size;
  }

  async claim(key: string, fingerprint: Buffer, token: string): Promise<ClaimOutcome> {
    const now = this.now();
    this.sweep(now);
    const record = this.live(key, now);
    if (!record) {
      const { inFlightMs, retentionMs } = this.timings;
      this.write(key, { state: 'in_flight', fingerprint, token, deadline: now + inFlightMs, expiresAt: now + inFlightMs + retentionMs, response: null });
      return { kind: 'claimed' };
    }
    if (!record.fingerprint.equals(fingerprint)) return { kind: 'mismatch' };
    if (record.state === 'completed' && record.response) return { kind: 'completed', response: record.response };
    if (record.state === 'in_flight' && now < record.deadline) return { kind: 'in_flight' };
    if (record.state === 'in_flight') this.write(key, { ...record, state: 'unknown', expiresAt: now + this.timings.retentionMs });
    return { kind: 'unknown' };
  }

  async complete(key: string, fingerprint: Buffer, token: string, response: StoredResponse): Promise<void> {
    const now = this.now();
    const record = this.live(key, now);
    if (record && record.token !== token) return;
    // A copy: the caller's buffer may be reused after it is sent.
    const stored: StoredResponse = { ...response, body: Buffer.from(response.body) };
    this.write(key, { state: 'completed', fingerprint, token, deadline: 0, expiresAt: now + this.timings.retentionMs, response: stored });
  }

  async release(key: string, token: string): Promise<void> {
    const record = this.live(key, this.now());
    if (record?.token === token && record.state !== 'completed') this.records.delete(key);
  }

  async markUnknown(key: string, fingerprint: Buffer, token: string): Promise<void> {
    const now = this.now();
    const record = this.live(key, now);
    if (record && (record.token !== token || record.state === 'completed')) return;
    this.write(key, { state: 'unknown', fingerprint, token, deadline: 0, expiresAt: now + this.timings.retentionMs, response: null });
  }

  private live(key: string, now: number): MemoryRecord | undefined {
    const record = this.records.get(key);
    if (record && record.expiresAt <= now) {
      this.records.delete(key);
      return undefined;
    }
    return record;
  }

  /** Deletes first, so the Map's order stays the order of last write. */
  private write(key: string, record: MemoryRecord): void {
    this.records.delete(key);
    this.records.set(key, record);
  }

  /** Records expire in about the order they were last written: drop expired ones from the front. */
  private sweep(now: number): void {
    for (const [key, record] of this.records) {
      if (record.expiresAt > now) return;
      this.records.delete(key);
    }
  }
}
