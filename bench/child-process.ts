/**
 * Child-process plumbing the benchmarks share: the next IPC message a child sends (with a
 * deadline), and a stop that escalates to SIGKILL. Reads nothing; starts nothing itself.
 */
import type { ChildProcess } from 'node:child_process';

/** The next IPC message of `child`; rejects naming `what` when none comes within `timeoutMs`. */
export function nextMessage<T>(child: ChildProcess, what: string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
  });
}

/** SIGTERM, then SIGKILL if the child has not exited within `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
  child.kill('SIGTERM');
  await exited;
  clearTimeout(kill);
}
