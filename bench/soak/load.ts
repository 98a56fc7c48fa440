/**
 * The soak's open-loop load: requests due at a fixed rate whatever the answers (a stall shows in
 * every request it delays, and the sender never slows down to suit the gateway), spread
 * round-robin over the instances a load balancer would use (those whose readiness said ready at
 * the last poll; all of them when none did). Mostly GETs of sandbox resources with the published
 * keys; the rest new keyed deposits (JSON or XML, each with its own Idempotency-Key and
 * externalRefNo), a few sent twice at once (twins), some sent again with the same key after
 * their 201 (replays), and every deposit whose answer left its outcome open (no answer, 5xx, 409
 * idempotency_in_progress) retried with the same key, as a careful vendor would.
 *
 * Reads the targets and the resource ids it is given; sends only to 127.0.0.1; reports every
 * answer to the recorder and every deposit attempt to the deposit book. Bounded: nothing is sent
 * after `endAt`, at most `maxInFlight` requests are open (one due beyond that is dropped and
 * counted), and each request gives up after 15 s.
 */
import http from 'node:http';
import { DEMO_KEY, READONLY_KEY } from './access';
import { CORE_DUPLICATE, type DepositBook, type DepositKey } from './deposits';
import type { SoakOptions } from './options';
import type { Recorder, RequestKind } from './recorder';

const REQUEST_TIMEOUT_MS = 15_000;
const DEPOSIT_PATH = '/api/transaction/savings/deposit';
/** A deposit is tried at most this often in all, its retries backing off about 2, 4, 8, 16, 16 s. */
const MAX_ATTEMPTS = 6;
const DRAIN_MS = 20_000;
/** Share of new deposits whose first attempt goes out twice at once (a double submit). */
const TWIN_SHARE = 0.02;

interface Target {
  readonly name: string;
  readonly port: number;
  /** True when a load balancer would send to it now. */
  readonly routable: () => boolean;
}

export interface SandboxResources {
  /** GET paths with ids that exist in the sandbox data. */
  readonly getPaths: readonly string[];
  /** Open share or savings accounts, which take deposits. */
  readonly depositAccounts: readonly number[];
}

/** mulberry32: a small seeded generator, so two runs with one seed send the same mix. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The problem `code` of an error answer, JSON or XML; a 409 the core wrote itself is its duplicate check. */
function problemCode(status: number, text: string): string | null {
  const code = /"code"\s*:\s*"([a-z_]+)"/.exec(text) ?? /<code>([a-z_]+)<\/code>/.exec(text);
  if (code) return code[1] as string;
  if (status === 409 && /already posted/i.test(text)) return CORE_DUPLICATE;
  return null;
}

interface RawAnswer {
  readonly status: number | null;
  readonly code: string | null;
  readonly error: string | null;
  readonly replayed: boolean;
  readonly retryAfterSeconds: number | null;
  readonly endedAt: number;
}

export class OpenLoopLoad {
  private readonly random: () => number;
  private readonly agents = new Map<string, http.Agent>();
  private inFlight = 0;
  private nextTarget = 0;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly targets: readonly Target[],
    private readonly resources: SandboxResources,
    private readonly options: SoakOptions,
    private readonly recorder: Recorder,
    private readonly book: DepositBook,
    private readonly endAt: number,
  ) {
    this.random = seededRandom(options.seed);
    for (const target of targets) this.agents.set(target.name, new http.Agent({ keepAlive: true, maxSockets: 256 }));
  }

  /** Issues requests on schedule until endAt, then waits (at most 20 s) for the last answers. */
  async run(): Promise<void> {
    const startedAt = Date.now();
    const intervalMs = 1000 / this.options.rate;
    let issued = 0;
    while (Date.now() < this.endAt) {
      const now = Date.now();
      // Every request due by now goes now; each keeps its own due time for its latency.
      while (startedAt + issued * intervalMs <= now) {
        this.issue(startedAt + issued * intervalMs);
        issued += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, startedAt + issued * intervalMs - Date.now())));
    }
    for (const timer of this.timers) clearTimeout(timer);
    const drainDeadline = Date.now() + DRAIN_MS;
    while (this.inFlight > 0 && Date.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const agent of this.agents.values()) agent.destroy();
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  private target(): Target {
    const routable = this.targets.filter((t) => t.routable());
    const pool = routable.length > 0 ? routable : this.targets;
    this.nextTarget = (this.nextTarget + 1) % pool.length;
    return pool[this.nextTarget] as Target;
  }

  private issue(dueAt: number): void {
    if (this.random() < this.options.depositShare) {
      const amount = (1 + Math.floor(this.random() * 99)) / 100;
      const key = this.book.create(this.pick(this.resources.depositAccounts), amount.toFixed(2), this.random() < this.options.xmlShare ? 'xml' : 'json');
      this.deposit(key, 'deposit', dueAt, 1);
      if (this.random() < TWIN_SHARE) this.deposit(key, 'twin', dueAt, 1);
      return;
    }
    const readonly = this.random() < 0.15;
    const path = this.pick(this.resources.getPaths);
    const target = this.target();
    this.send(
      target,
      'get',
      dueAt,
      { method: 'GET', path, headers: { 'x-vendor-token': readonly ? READONLY_KEY : DEMO_KEY, accept: 'application/json' } },
      () => undefined,
    );
  }

  private later(dueAt: number, action: () => void): void {
    // Nothing is due after the end: the run stops by itself.
    if (dueAt >= this.endAt) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, dueAt - Date.now());
    this.timers.add(timer);
  }

  private deposit(key: DepositKey, kind: RequestKind, dueAt: number, attempt: number): void {
    const body =
      key.format === 'xml'
        ? `<ReceiptPaymentDto><CUAccountID>${key.accountId}</CUAccountID><Amount>${key.amount}</Amount><Notes>soak</Notes><ExternalRefNo>${key.externalRefNo}</ExternalRefNo></ReceiptPaymentDto>`
        : `{"cuAccountID":${key.accountId},"amount":${key.amount},"notes":"soak","externalRefNo":"${key.externalRefNo}"}`;
    const mediaType = key.format === 'xml' ? 'application/xml' : 'application/json';
    const headers = { 'x-vendor-token': DEMO_KEY, 'content-type': mediaType, accept: mediaType, 'idempotency-key': key.idempotencyKey };
    const target = this.target();
    this.send(target, kind, dueAt, { method: 'POST', path: DEPOSIT_PATH, headers, body }, (answer, phase) => {
      key.attempts.push({
        kind,
        instance: target.name,
        phase,
        at: answer.endedAt,
        status: answer.status,
        code: answer.code,
        error: answer.error,
        replayed: answer.replayed,
      });
      // A replay follows a 201 only, so that its answer must be that 201 again, replayed.
      if (answer.status === 201 && kind !== 'replay' && this.random() < this.options.replayShare) {
        this.later(Date.now() + 50 + this.random() * 2950, () => this.deposit(key, 'replay', Date.now(), MAX_ATTEMPTS));
      }
      const open = answer.status === null || answer.status >= 500 || answer.code === 'idempotency_in_progress';
      if (open && attempt < MAX_ATTEMPTS) {
        // Jittered (0.5–1.5 ×): retries held back by an open breaker must not all land on the
        // core in the second it returns, as no fleet of real clients would.
        const backoffMs = Math.min(16_000, Math.max((answer.retryAfterSeconds ?? 0) * 1000, 1000 * 2 ** attempt)) * (0.5 + this.random());
        this.later(Date.now() + backoffMs, () => this.deposit(key, 'retry', Date.now(), attempt + 1));
      }
    });
  }

  private send(
    target: Target,
    kind: RequestKind,
    dueAt: number,
    request: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string },
    onAnswer: (answer: RawAnswer, phase: ReturnType<Recorder['sent']>) => void,
  ): void {
    if (this.inFlight >= this.options.maxInFlight) {
      this.recorder.dropped();
      return;
    }
    this.inFlight += 1;
    const phase = this.recorder.sent(kind, this.inFlight);
    let settled = false;
    const settle = (answer: RawAnswer): void => {
      if (settled) return;
      settled = true;
      this.inFlight -= 1;
      this.recorder.answered(phase, {
        instance: target.name,
        kind,
        dueAt,
        endedAt: answer.endedAt,
        status: answer.status,
        code: answer.code,
        error: answer.error,
        validKey: true,
      });
      onAnswer(answer, phase);
    };
    const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    const req = http.request(
      { host: '127.0.0.1', port: target.port, method: request.method, path: request.path, headers, agent: this.agents.get(target.name) },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        // Only error bodies are read (for their problem code); a 2xx body is drained unread.
        res.on('data', (chunk: Buffer) => {
          if (status >= 400) chunks.push(chunk);
        });
        res.on('end', () => {
          const retryAfter = Number(res.headers['retry-after']);
          settle({
            status,
            code: status >= 400 ? problemCode(status, Buffer.concat(chunks).toString('utf8')) : null,
            error: null,
            replayed: res.headers['idempotent-replayed'] === 'true',
            retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : null,
            endedAt: Date.now(),
          });
        });
        res.on('error', (err: NodeJS.ErrnoException) =>
          settle({ status: null, code: null, error: err.code ?? err.message, replayed: false, retryAfterSeconds: null, endedAt: Date.now() }),
        );
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('no answer within 15 s'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) =>
      settle({ status: null, code: null, error: err.code ?? err.message, replayed: false, retryAfterSeconds: null, endedAt: Date.now() }),
    );
    req.end(request.body);
  }
}
