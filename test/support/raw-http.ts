/**
 * HTTP/1.1 over a bare socket, for tests that must send what no well-behaved client would
 * (conflicting framing, obfuscated headers, bytes after the body): writes the bytes as given
 * and reads back every response the server sends on that connection.
 */
import net from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RawExchange {
  /** Every response on the connection, in order. */
  readonly responses: readonly RawResponse[];
  /** True when the server closed the connection. */
  readonly closed: boolean;
}

/** Splits a byte stream into the responses it holds (Content-Length or chunked bodies). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return responses;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        if (lineEnd < 0) return [...responses, { status, headers, body }];
        const size = parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (size === 0) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    // An interim 100 Continue is not the answer.
    if (status !== 100) responses.push({ status, headers, body });
  }
}

/**
 * Sends `bytes` on a new connection and collects responses until the server closes it, or
 * `settleMs` after the last byte arrived once at least one response is in, or `timeoutMs`.
 */
export function rawExchange(port: number, bytes: string | Buffer, options: { settleMs?: number; timeoutMs?: number } = {}): Promise<RawExchange> {
  const settleMs = options.settleMs ?? 150;
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settleTimer: NodeJS.Timeout | undefined;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const finish = (closed: boolean): void => {
      clearTimeout(settleTimer);
      clearTimeout(overall);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(chunks).toString('latin1')), closed });
    };
    const overall = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(settleTimer);
      if (parseResponses(Buffer.concat(chunks).toString('latin1')).length > 0) settleTimer = setTimeout(() => finish(false), settleMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

/** A request as raw text: the lines joined with CRLF, then an empty line, then the body. */
export function rawRequest(lines: readonly string[], body = ''): string {
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
