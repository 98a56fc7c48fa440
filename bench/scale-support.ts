/**
 * What `npm run bench:scale` needs beside its measurements: the generated access document of a
 * given size, and the child-process plumbing (the next IPC message, a stop that escalates to
 * SIGKILL). Reads nothing; starts nothing itself.
 */
import type { ChildProcess } from 'node:child_process';
import { generateApiKey, hashApiKey, apiKeyPrefix } from '../src/access/api-key';

export function nextMessage<T>(child: ChildProcess, what: string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
  child.kill('SIGTERM');
  await exited;
  clearTimeout(kill);
}

/** The vendor's config: `size` keys, each its own user with two permissions; the first `sampleKeys` secrets kept. */
export function accessDocument(size: number, sampleKeys: number): { json: string; secrets: string[]; keyIds: string[] } {
  const secrets: string[] = [];
  const keys = [];
  const users = [];
  for (let i = 0; i < size; i++) {
    const secret = generateApiKey();
    if (i < sampleKeys) secrets.push(secret);
    const id = `k${i}`;
    keys.push({ id, prefix: apiKeyPrefix(secret), hash: hashApiKey(secret), userId: `u${i}` });
    users.push({
      id: `u${i}`,
      permissions: [
        { id: 'read-accounts', api: 'GETaccounts*' },
        { id: 'read-customers', api: 'GETcustomers*' },
      ],
    });
  }
  const vendor = { id: 'bench', name: 'Bench', rateLimit: { points: 1_000_000, durationSeconds: 1 }, licences: [{ id: 'read', api: 'GET*' }], keys };
  return { json: JSON.stringify({ vendors: [vendor], users }), secrets, keyIds: keys.slice(0, sampleKeys).map((k) => k.id) };
}
