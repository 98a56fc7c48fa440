/**
 * How a bench server process tells the runner it is listening: one IPC message with its port.
 *
 * Reads nothing; sends `{ port }` over the IPC channel the runner opened (process.send).
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export function announcePort(port: number): void {
  if (!process.send) throw new Error('bench servers are started by bench/run.ts, which opens an IPC channel');
  process.send({ port });
}

/** The TLS files of the bench's private CA, from argv after `--tls`: CA, certificate, key. */
export function tlsFilesArgument(): { ca: string; cert: string; key: string } | null {
  const at = process.argv.indexOf('--tls');
  if (at < 0) return null;
  const [ca, cert, key] = process.argv.slice(at + 1, at + 4);
  if (!ca || !cert || !key) throw new Error('usage: --tls <ca file> <certificate file> <key file>');
  return { ca, cert, key };
}

export function listenOnLoopback(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** The target a proxy forwards to, from argv (the runner passes the upstream's URL). */
export function upstreamUrlArgument(): string {
  const url = process.argv[2];
  if (!url || !/^https?:\/\/127\.0\.0\.1:/.test(url)) throw new Error('usage: <server> http(s)://127.0.0.1:<upstream port>');
  return url;
}
