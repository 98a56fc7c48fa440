/**
 * Reads the sandbox SMS outbox through the admin API (`GET /v1/sandbox/sms`), playing the
 * customer's phone: tests and scripts use it to fetch the code the gateway sent before they
 * add a bank account.
 *
 * Reads the admin API over HTTP with the admin token; sets nothing (each read is audited there).
 */
import { normaliseUkMobileNumber } from '../contracts/bank-accounts';
import type { OutboxMessage } from './outbox';

export async function readSmsOutbox(adminUrl: string, adminToken: string): Promise<OutboxMessage[]> {
  const response = await fetch(new URL('/v1/sandbox/sms', adminUrl), { headers: { authorization: `Bearer ${adminToken}` } });
  if (response.status !== 200) throw new Error(`GET /v1/sandbox/sms answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as OutboxMessage[];
}

/** The 6-digit code in the newest message to `mobileNumber` (any accepted UK spelling). */
export async function latestCodeSentTo(adminUrl: string, adminToken: string, mobileNumber: string): Promise<string> {
  const number = normaliseUkMobileNumber(mobileNumber);
  if (!number.ok) throw new Error(`not a UK mobile number: ${number.message}`);
  const message = (await readSmsOutbox(adminUrl, adminToken)).find((m) => m.to === number.e164);
  const code = message && /\b(\d{6})\b/.exec(message.text)?.[1];
  if (!code) throw new Error('the outbox holds no code for that number');
  return code;
}
