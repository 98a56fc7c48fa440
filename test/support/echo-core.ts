/**
 * A real HTTP server standing in for the core where a test needs to see exactly what the
 * gateway sends: it records each request's method, URL, headers and body, and answers with
 * a JSON echo (or whatever the test's `respond` says).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface EchoCore {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

type Responder = (req: RecordedRequest, res: http.ServerResponse) => void;

const echo: Responder = (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: req.method, url: req.url }));
};

export async function startEchoCore(respond: Responder = echo): Promise<EchoCore> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      respond(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
