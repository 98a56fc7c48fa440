import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSmsProvider } from './create-provider';
import { HttpSmsProvider } from './http-provider';
import { OutboxSmsProvider } from './outbox';
import { SmsSendError, maskPhoneNumber, type SmsOutcome } from './provider';
import { smsSchema, type SmsHttpConfig } from './sms.schema';

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** A stand-in SMS provider on loopback; `answer` gets the 1-based attempt number. */
async function startProvider(answer: (attempt: number, res: http.ServerResponse) => void) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
      answer(received.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const TOKEN = 'provider-token-not-secret-42';
const MESSAGE = { to: '+447400123456', text: 'Your code is 123456.' };

function httpConfig(url: string, extra: Partial<SmsHttpConfig> = {}): SmsHttpConfig {
  return smsSchema.parse({ provider: 'http', http: { url, bearerToken: TOKEN, timeoutMs: 1000, retryBackoffMs: 20, ...extra } }).http;
}

const status = (code: number) => (_attempt: number, res: http.ServerResponse) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end('{}');
};

async function failure(pending: Promise<void>): Promise<SmsSendError> {
  const error = await pending.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(SmsSendError);
  const text = `${(error as Error).message} ${JSON.stringify(error)}`;
  for (const secret of ['7400123456', '123456', TOKEN, '127.0.0.1']) expect(text).not.toContain(secret);
  return error as SmsSendError;
}

describe('HTTP SMS provider', () => {
  it('POSTs the message as JSON with the bearer token and the sender id', async () => {
    const provider = await startProvider(status(202));
    try {
      await new HttpSmsProvider(httpConfig(provider.url, { sender: 'CreditUnion' })).send(MESSAGE);
      expect(provider.received).toHaveLength(1);
      const [request] = provider.received;
      expect(request?.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': expect.any(String) });
      expect(JSON.parse(request?.body ?? '')).toEqual({ to: '+447400123456', text: 'Your code is 123456.', from: 'CreditUnion' });
    } finally {
      await provider.close();
    }
  });

  it('retries a 5xx with the same idempotency key, then gives up as failed', async () => {
    const provider = await startProvider(status(500));
    try {
      const error = await failure(new HttpSmsProvider(httpConfig(provider.url, { maxRetries: 2 })).send(MESSAGE));
      expect(error.outcome).toBe('failed');
      expect(error.message).toBe('SMS provider failed 3 time(s); last: HTTP 500');
      expect(provider.received).toHaveLength(3);
      expect(new Set(provider.received.map((r) => r.headers['idempotency-key'])).size).toBe(1);
      const [first, second, third] = provider.received.map((r) => r.at) as [number, number, number];
      // Backoff 20 ms, then 40 ms: the gaps grow.
      expect(second - first).toBeGreaterThanOrEqual(15);
      expect(third - second).toBeGreaterThanOrEqual(35);
    } finally {
      await provider.close();
    }
  });

  it('succeeds when a retry gets through', async () => {
    const provider = await startProvider((attempt, res) => status(attempt === 1 ? 503 : 200)(attempt, res));
    try {
      await new HttpSmsProvider(httpConfig(provider.url)).send(MESSAGE);
      expect(provider.received).toHaveLength(2);
    } finally {
      await provider.close();
    }
  });

  it('does not retry a 4xx: the provider refused the message', async () => {
    const provider = await startProvider(status(422));
    try {
      const error = await failure(new HttpSmsProvider(httpConfig(provider.url)).send(MESSAGE));
      expect(error.outcome).toBe('rejected');
      expect(provider.received).toHaveLength(1);
    } finally {
      await provider.close();
    }
  });

  it('gives each attempt a deadline and retries a timeout', async () => {
    const provider = await startProvider(() => undefined);
    try {
      const started = performance.now();
      const error = await failure(new HttpSmsProvider(httpConfig(provider.url, { timeoutMs: 200, maxRetries: 1 })).send(MESSAGE));
      const elapsed = performance.now() - started;
      expect(error.message).toBe('SMS provider failed 2 time(s); last: no answer within 200 ms');
      expect(provider.received).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(400);
      expect(elapsed).toBeLessThan(3000);
    } finally {
      await provider.close();
    }
  });

  it('retries when the provider cannot be reached', async () => {
    const provider = await startProvider(status(200));
    await provider.close();
    const error = await failure(new HttpSmsProvider(httpConfig(provider.url, { maxRetries: 1 })).send(MESSAGE));
    expect(error.message).toMatch(/^SMS provider failed 2 time\(s\); last: network error/);
  });
});

describe('outbox SMS provider', () => {
  it('keeps the newest messages, newest first, up to its capacity', async () => {
    const outbox = new OutboxSmsProvider(3);
    for (const n of [1, 2, 3, 4]) await outbox.send({ to: '+447400123456', text: `message ${n}` });
    expect(outbox.list().map((m) => m.text)).toEqual(['message 4', 'message 3', 'message 2']);
    expect(outbox.list(1).map((m) => m.text)).toEqual(['message 4']);
  });
});

describe('createSmsProvider', () => {
  it('builds the configured provider and counts every send by outcome', async () => {
    const outcomes: SmsOutcome[] = [];
    const sandbox = createSmsProvider(smsSchema.parse({}), { onSent: (o) => outcomes.push(o) });
    expect(sandbox.provider.kind).toBe('outbox');
    await sandbox.provider.send(MESSAGE);
    expect(sandbox.outbox?.list()).toHaveLength(1);

    const provider = await startProvider((attempt, res) => status(attempt === 1 ? 400 : 500)(attempt, res));
    try {
      const http = createSmsProvider(smsSchema.parse({ provider: 'http', http: { url: provider.url, bearerToken: TOKEN, maxRetries: 0 } }), {
        onSent: (o) => outcomes.push(o),
      });
      expect(http.provider.kind).toBe('http');
      expect(http.outbox).toBeNull();
      await expect(http.provider.send(MESSAGE)).rejects.toThrow(SmsSendError);
      await expect(http.provider.send(MESSAGE)).rejects.toThrow(SmsSendError);
    } finally {
      await provider.close();
    }
    expect(outcomes).toEqual(['sent', 'rejected', 'failed']);
  });

  it('needs a URL and a bearer token for the http provider', () => {
    const result = smsSchema.safeParse({ provider: 'http' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['http.url', 'http.bearerToken']);
  });
});

describe('maskPhoneNumber', () => {
  it.each([
    ['+447400123456', '+*********456'],
    ['07400 123456', '***** ***456'],
  ])('masks %s as %s', (number, masked) => {
    expect(maskPhoneNumber(number)).toBe(masked);
  });
});
