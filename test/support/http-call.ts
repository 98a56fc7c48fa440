/**
 * One HTTP call with node:http and no agent, so a test controls every header it sends (fetch
 * and supertest add their own) and reads the answer's headers exactly as they came.
 */
import http from 'node:http';

interface CallAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<CallAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
