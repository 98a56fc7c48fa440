/**
 * Two whole gateways with approvals required, on one real Redis under a key prefix of their own
 * (the first seeds it from `document`, the second reads it), and the admin API call the
 * four-eyes suites make on either. Reads TEST_REDIS_URL; sets nothing else.
 */
import { randomUUID } from 'node:crypto';
import type { AccessDocument } from '../../src/access/model';
import { writeAccessFile } from './access-fixture';
import { startTestGateway, type TestGateway } from './gateway';

export interface AdminAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** `method` `/v1{path}` on an admin port, with `token` as a bearer (none: no credential). */
export async function adminCall(port: number, token: string | null, method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  const res = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export async function startApprovalPair(document: AccessDocument): Promise<[TestGateway, TestGateway]> {
  // A prefix no other pair ever had: suites running one after another in one worker share its pid.
  const redis = { url: process.env.TEST_REDIS_URL as string, keyPrefix: `pair:${randomUUID()}:` };
  const file = writeAccessFile(document);
  const a = await startTestGateway({ redis: { ...redis, seedAccessFile: 'always' }, access: { file }, admin: { approvals: 'required' } });
  const b = await startTestGateway({ redis: { ...redis, seedAccessFile: 'never' }, access: { file }, admin: { approvals: 'required' } });
  return [a, b];
}
