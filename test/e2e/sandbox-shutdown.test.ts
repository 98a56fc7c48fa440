/**
 * The standalone sandbox core (`npm run sandbox`, src/sandbox/main.ts) as a real child process
 * gets SIGTERM while keep-alive clients keep sending: it stops accepting, closes an idle
 * keep-alive connection at once, answers the request in flight with `Connection: close` and
 * serves nothing more on that connection, lets the busy clients go, and exits 0 long before its
 * drain time; a request still in flight when the drain time is over is cut, and the process
 * exits then.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { within } from '../support/within';

const ROOT = path.resolve(__dirname, '../..');

interface Sandbox {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<number | null>;
  output(): string;
}

async function startSandbox(drainTimeoutMs: number): Promise<Sandbox> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
    cwd: ROOT,
    // Port 0: the OS picks a free one, and the sandbox logs it.
    env: { ...process.env, NODE_ENV: '', SANDBOX_PORT: '0', LOG_LEVEL: 'info', GATEWAY__shutdown__drainTimeoutMs: String(drainTimeoutMs) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let port = 0;
  await within(20_000, () => {
    if (child.exitCode !== null) throw new Error(`sandbox exited with ${child.exitCode}:\n${output}`);
    port = Number(/sandbox core listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1] ?? 0);
    return port > 0;
  });
  return { child, port, exited, output: () => output };
}

interface Answered {
  readonly status: number;
  readonly connection: string | undefined;
  readonly reusedSocket: boolean;
}

function answered(req: http.ClientRequest): Promise<Answered> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

/** A POST whose headers and the start of its body are sent now; `finish()` sends the rest. */
function slowUpload(port: number, agent: http.Agent): { answer: Promise<Answered>; finish(): void } {
  const body = JSON.stringify({ Name: 'Ada Lovelace' });
  const req = http.request({
    port,
    host: '127.0.0.1',
    method: 'POST',
    path: '/customers',
    agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const answer = answered(req);
  req.write(body.slice(0, 5));
  return { answer, finish: () => req.end(body.slice(5)) };
}

/** A keep-alive connection that has had one answer and now sits idle; `closedAt` resolves when the server closes it. */
async function idleKeepAlive(port: number): Promise<{ closedAt: Promise<number> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.write('GET /products HTTP/1.1\r\nHost: sandbox\r\n\r\n');
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').includes('\r\n\r\n')) resolve();
    });
  });
  return { closedAt: new Promise((resolve) => socket.once('close', () => resolve(performance.now()))) };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('SIGTERM to the standalone sandbox core', () => {
  let sandbox: Sandbox | undefined;
  afterEach(() => {
    if (sandbox && sandbox.child.exitCode === null) sandbox.child.kill('SIGKILL');
  });

  it('answers the request in flight with Connection: close, closes idle and busy keep-alive connections, and exits 0 long before the drain time', async () => {
    const DRAIN_MS = 5000;
    sandbox = await startSandbox(DRAIN_MS);
    const { port } = sandbox;
    const idle = await idleKeepAlive(port);

    // Keep-alive clients that keep sending, one request after another, as long as they may.
    const hammering = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const seen = { answers: 0, closeAsked: 0, refused: 0, resetReused: 0, other: [] as string[] };
    const one = (): Promise<boolean> =>
      answered(http.get({ port, host: '127.0.0.1', path: '/accounts/50001', agent: hammering })).then(
        (answer) => {
          seen.answers += 1;
          if (answer.connection === 'close') seen.closeAsked += 1;
          return true;
        },
        (err: NodeJS.ErrnoException) => {
          // After the stop no new connection is accepted: the client's cue to go elsewhere.
          if (err.code === 'ECONNREFUSED') seen.refused += 1;
          // A kept-alive connection closed as idle while the next request was on its way: the race
          // every keep-alive client has (RFC 9112, 9.3.1), retried on a new connection.
          else if (err.code === 'ECONNRESET' || err.message === 'socket hang up') seen.resetReused += 1;
          else seen.other.push(err.message);
          return err.code !== 'ECONNREFUSED';
        },
      );
    const busy = Array.from({ length: 4 }, async () => {
      while (await one());
    });

    // One keep-alive connection with a request in flight at the signal (headers and part of its body).
    const client = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await answered(http.get({ port, host: '127.0.0.1', path: '/accounts/50001', agent: client }))).connection).toBe('keep-alive');
    const upload = slowUpload(port, client);
    await sleep(200);

    const answersBefore = seen.answers;
    const signalledAt = performance.now();
    sandbox.child.kill('SIGTERM');
    await sleep(300);
    const finishedAt = performance.now();
    upload.finish();
    const answer = await upload.answer;
    // The same client keeps sending: the sandbox must not serve it on and on.
    const afterwards: string[] = [];
    for (;;) {
      const next = await answered(http.get({ port, host: '127.0.0.1', path: '/accounts/50001', agent: client })).then(
        (a) => `${a.status}${a.reusedSocket ? ' on the same connection' : ''}`,
        (err: NodeJS.ErrnoException) => err.code ?? err.message,
      );
      afterwards.push(next);
      if (next === 'ECONNREFUSED' || afterwards.length > 100) break;
      await sleep(20);
    }
    const code = await sandbox.exited;
    const exitMs = performance.now() - signalledAt;
    await Promise.all(busy);
    hammering.destroy();
    client.destroy();

    // The sandbox validated the half-sent customer: the answer, on the kept-alive connection, and the hint to close it.
    expect(answer).toEqual({ status: 400, connection: 'close', reusedSocket: true });
    expect(afterwards).toEqual(['ECONNREFUSED']);
    expect((await idle.closedAt) - signalledAt).toBeLessThan(finishedAt - signalledAt);
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(1500);
    expect(seen.refused).toBe(4);
    expect(seen.other).toEqual([]);
    expect(answersBefore).toBeGreaterThan(20);
    expect(sandbox.output()).toContain('sandbox core stopped');
    console.info(
      `sandbox SIGTERM: exit ${exitMs.toFixed(0)} ms after the signal (drain time ${DRAIN_MS} ms; the in-flight upload finished at 300 ms); ` +
        `hammering clients: ${seen.answers} answers, ${seen.closeAsked} with Connection: close, ${seen.resetReused} kept-alive connections closed under a new request`,
    );
  });

  it('cuts a request still in flight when the drain time is over, and exits then', async () => {
    const DRAIN_MS = 1000;
    sandbox = await startSandbox(DRAIN_MS);
    const upload = slowUpload(sandbox.port, new http.Agent({ keepAlive: true }));
    const outcome = upload.answer.then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await sleep(200);
    const signalledAt = performance.now();
    sandbox.child.kill('SIGTERM');
    const code = await sandbox.exited;
    const exitMs = performance.now() - signalledAt;

    expect(code).toBe(0);
    expect(exitMs).toBeGreaterThan(DRAIN_MS - 50);
    expect(exitMs).toBeLessThan(DRAIN_MS + 1000);
    expect(await outcome).toMatch(/socket hang up|ECONNRESET/);
    expect(sandbox.output()).toContain('drain time over');
  });
});
