/**
 * The vendor listener's Node limits, on raw sockets: an oversized header block gets 431 as a
 * problem body; a slowloris client trickling its headers is dropped once headersTimeout is
 * over; a request that is not HTTP gets 400; an idle keep-alive connection closes after
 * keepAliveTimeout. The admin port: its shorter headers timeout, and an admin still answered
 * while reconnecting slow-header clients fill its connection cap.
 */
import net from 'node:net';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { TEST_ADMIN_TOKEN } from '../support/config';
import { SANDBOX_KEYS, startTestGateway, type TestGateway } from '../support/gateway';

const HEADERS_TIMEOUT_MS = 600;
const KEEP_ALIVE_TIMEOUT_MS = 400;

interface RawExchange {
  readonly text: string;
  /** When the gateway closed the connection, in ms after it was opened. */
  readonly closedAfterMs: number;
}

/** Opens a connection, lets `drive` write to it, and collects everything until the gateway closes it. */
function rawExchange(port: number, drive: (socket: net.Socket) => void, giveUpMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const opened = performance.now();
    const chunks: Buffer[] = [];
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the gateway kept the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedAfterMs: performance.now() - opened });
    });
    socket.on('connect', () => drive(socket));
  });
}

function bodyOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
}

describe('vendor listener limits', () => {
  let core: EchoCore;
  let gateway: TestGateway;

  beforeAll(async () => {
    core = await startEchoCore();
    gateway = await startTestGateway({
      core: { url: core.url },
      server: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: 5000, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS, maxHeaderSize: 8192 },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await core.close();
  });

  it('answers 431 request_header_fields_too_large as a problem body to an oversized header block, and counts it', async () => {
    const exchange = await rawExchange(gateway.vendorPort, (socket) => {
      socket.write(`GET /accounts/1 HTTP/1.1\r\nHost: gw\r\nX-Padding: ${'a'.repeat(10_000)}\r\n\r\n`);
    });
    expect(exchange.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(exchange.text).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
    const requestId = /\r\nX-Request-Id: ([0-9a-f-]{36})\r\n/.exec(exchange.text)?.[1];
    expect(bodyOf(exchange.text)).toEqual({
      type: 'https://errors.core-banking-gateway.dev/request_header_fields_too_large',
      title: 'Request header fields too large',
      status: 431,
      detail: 'The request headers are larger than this gateway accepts.',
      code: 'request_header_fields_too_large',
      requestId,
    });
    expect(core.requests).toHaveLength(0);
    const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{api="unmatched",status="431",vendor="anonymous"\} 1/);
  });

  it('drops a slowloris client that trickles its headers, once headersTimeout is over', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const exchange = await rawExchange(gateway.vendorPort, (socket) => {
      socket.write('GET /accounts/1 HTTP/1.1\r\nHost: gw\r\n');
      let n = 0;
      trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(`X-Slow-${(n += 1)}: a\r\n`);
      }, 100);
    });
    clearInterval(trickle);
    expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
    // Node checks its timeouts every headersTimeout / 10 (see gateway.ts): generous margin for a busy machine.
    expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS * 0.9);
    expect(exchange.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS * 1.1 + 300);
    expect(core.requests).toHaveLength(0);
  });

  it('answers 400 invalid_request to bytes that are not HTTP', async () => {
    const exchange = await rawExchange(gateway.vendorPort, (socket) => socket.write('HELLO THERE\r\n\r\n'));
    expect(exchange.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(exchange.text)).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('closes the connection after a 401: a caller without a key holds no keep-alive socket', async () => {
    const exchange = await rawExchange(gateway.vendorPort, (socket) => socket.write('GET /no/such/path HTTP/1.1\r\nHost: gw\r\n\r\n'));
    expect(exchange.text).toMatch(/^HTTP\/1\.1 401 /);
    expect(exchange.text).toMatch(/\r\nConnection: close\r\n/);
    expect(exchange.closedAfterMs).toBeLessThan(1000);
  });

  it('closes an idle keep-alive connection after keepAliveTimeout', async () => {
    const exchange = await rawExchange(gateway.vendorPort, (socket) =>
      socket.write(`GET /no/such/path HTTP/1.1\r\nHost: gw\r\nX-Vendor-Token: ${SANDBOX_KEYS.demo}\r\n\r\n`),
    );
    expect(exchange.text).toMatch(/^HTTP\/1\.1 404 /);
    expect(exchange.text).toMatch(/\r\nConnection: keep-alive\r\n/);
    // Node closes the socket up to 1 s after the advertised keep-alive time, so a client never reuses a closing one.
    expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS * 0.9);
    expect(exchange.closedAfterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 1000 + 500);
  });
});

/** Opens `count` connections to `port` (kept in `sockets`): for each, whether the server closed it within 500 ms. */
function connectAndWatch(port: number, count: number, sockets: net.Socket[]): Promise<boolean[]> {
  return Promise.all(
    Array.from({ length: count }, () => {
      const socket = net.connect(port, '127.0.0.1');
      sockets.push(socket);
      return new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        socket.once('error', () => undefined);
        setTimeout(() => resolve(false), 500);
      });
    }),
  );
}

/** Writes `request` on an open connection; the first chunk of its answer. */
function firstChunk(socket: net.Socket, request: string): Promise<string> {
  return new Promise<string>((resolve) => {
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    socket.write(request);
  });
}

describe('server.maxConnections', () => {
  it('closes connections past the limit at once and counts them, while the open ones keep working', async () => {
    const gateway = await startTestGateway({ server: { maxConnections: 3 } });
    const sockets: net.Socket[] = [];
    try {
      const closedEarly = await connectAndWatch(gateway.vendorPort, 5, sockets);
      expect(closedEarly.filter(Boolean)).toHaveLength(2);
      const metrics = await (await fetch(`${gateway.statusUrl}/metrics`)).text();
      expect(/^gateway_connections_dropped_total (\S+)$/m.exec(metrics)?.[1]).toBe('2');
      const open = sockets.find((socket) => !socket.destroyed) as net.Socket;
      const answer = await firstChunk(open, `GET /genders HTTP/1.1\r\nHost: gw\r\nX-Vendor-Token: ${SANDBOX_KEYS.demo}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.stop();
    }
  });
});

describe('server.adminMaxConnections', () => {
  it('keeps at most the limit of admin connections open (closing the oldest silent ones), while the open ones keep working', async () => {
    const gateway = await startTestGateway({ server: { adminMaxConnections: 3 } });
    const sockets: net.Socket[] = [];
    try {
      const closedEarly = await connectAndWatch(gateway.adminPort, 5, sockets);
      expect(closedEarly.filter(Boolean)).toHaveLength(2);
      const open = sockets.find((socket) => !socket.destroyed) as net.Socket;
      const answer = await firstChunk(open, 'GET /v1/me HTTP/1.1\r\nHost: gw\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.stop();
    }
  });
});

describe('the admin port under a slow-header flood', () => {
  it('still answers an admin who sends a whole request while reconnecting slow-header clients fill server.adminMaxConnections', async () => {
    const gateway = await startTestGateway({ server: { adminMaxConnections: 8 } });
    // 40 sockets trickle their headers a byte a second and come back 20 ms after being dropped.
    const flood = new Set<net.Socket>();
    let flooding = true;
    let floodOpened = 0;
    const open = (): void => {
      if (!flooding) return;
      const socket = net.connect(gateway.adminPort, '127.0.0.1', () => {
        floodOpened += 1;
        socket.write('GET /v1/me HTTP/1.1\r\nHost: gw\r\n');
      });
      flood.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        flood.delete(socket);
        setTimeout(open, 20);
      });
    };
    const drip = setInterval(() => {
      for (const socket of flood) if (socket.writable) socket.write('X');
    }, 1000);
    try {
      for (let i = 0; i < 40; i += 1) open();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const answers: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        answers.push(
          await fetch(`http://127.0.0.1:${gateway.adminPort}/v1/me`, {
            headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
            signal: AbortSignal.timeout(3000),
          }).then(
            async (response) => {
              await response.arrayBuffer();
              return String(response.status);
            },
            (err: unknown) => String((err as { cause?: { code?: string } }).cause?.code ?? err),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(floodOpened).toBeGreaterThan(8);
      expect(answers).toEqual(Array(6).fill('200'));
    } finally {
      flooding = false;
      clearInterval(drip);
      for (const socket of flood) socket.destroy();
      await gateway.stop();
    }
  });
});

describe('server.adminHeadersTimeoutMs', () => {
  it('drops a slow-header client on the admin port sooner than the vendor port would', async () => {
    const gateway = await startTestGateway({ server: { headersTimeoutMs: 5000, adminHeadersTimeoutMs: HEADERS_TIMEOUT_MS } });
    let trickle: NodeJS.Timeout | undefined;
    try {
      const exchange = await rawExchange(gateway.adminPort, (socket) => {
        socket.write('GET /v1/me HTTP/1.1\r\nHost: gw\r\n');
        trickle = setInterval(() => {
          if (!socket.destroyed) socket.write('X');
        }, 100);
      });
      expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(exchange.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS * 0.9);
      expect(exchange.closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS * 1.1 + 300);
    } finally {
      clearInterval(trickle);
      await gateway.stop();
    }
  });
});

describe('the admin port', () => {
  it('binds loopback by default even when the vendor port binds every address', async () => {
    const gateway = await startTestGateway({ server: { host: '0.0.0.0' } });
    try {
      expect(gateway.adminAddress).toBe('127.0.0.1');
    } finally {
      await gateway.stop();
    }
  });
});

describe('default server limits', () => {
  it('keeps idle vendor connections longer than a typical load balancer (60 s) and sets headersTimeout below requestTimeout', async () => {
    const gateway = await startTestGateway();
    try {
      const exchange = await new Promise<string>((resolve) => {
        const socket = net.connect(gateway.vendorPort, '127.0.0.1', () =>
          socket.write(`GET /accounts HTTP/1.1\r\nHost: gw\r\nX-Vendor-Token: ${SANDBOX_KEYS.demo}\r\n\r\n`),
        );
        socket.once('data', (c: Buffer) => {
          socket.destroy();
          resolve(c.toString('utf8'));
        });
      });
      const advertised = Number(/\r\nKeep-Alive: timeout=(\d+)/.exec(exchange)?.[1]);
      expect(advertised).toBeGreaterThan(60);
      expect(gateway.config.server.headersTimeoutMs).toBeLessThan(gateway.config.server.requestTimeoutMs);
    } finally {
      await gateway.stop();
    }
  });
});
