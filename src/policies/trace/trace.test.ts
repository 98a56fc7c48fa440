/**
 * The trace step as a unit, over real HTTP: an Express app of a seeded request context, the step,
 * and a handler that plays the later steps (sets the route, the vendor, the core's time, the
 * status). Tracing is the gateway's own (createTracing), exporting to an OTLP/HTTP receiver
 * started here; a thin watch around it tells when the step ends the request's trace.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Attributes } from '@opentelemetry/api';
import express, { type Request, type Response } from 'express';
import { ROUTES, type Route } from '../../catalogue/api-catalogue';
import { createLogger } from '../../logging/logger';
import { context, newContext, setContext } from '../../request/context';
import { createTracing, type Tracing } from '../../tracing/tracing';
import { listenOnLoopback, type Listening } from '../../../test/support/listen';
import { within } from '../../../test/support/within';
import { traceRequest } from './trace';

const ACCOUNT = ROUTES.find((r) => r.apiId === 'GETaccounts/{accountId}') as Route;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly status?: { code?: number };
  readonly attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

function attribute(span: ExportedSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

/** An OTLP/HTTP (JSON) receiver: every span posted to /v1/traces. */
async function startReceiver(): Promise<{ endpoint: string; spans: ExportedSpan[]; close: () => Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }> };
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The gateway's tracing, with a record of every request trace ended (by its request id) as it happens. */
function watched(tracing: Tracing): { tracing: Tracing; ended: Map<string, Attributes[]> } {
  const ended = new Map<string, Attributes[]>();
  return {
    ended,
    tracing: {
      startRequest(headers, name) {
        const trace = tracing.startRequest(headers, name);
        return {
          traceId: trace.traceId,
          child: (childName, attributes) => trace.child(childName, attributes),
          end(attributes, failed) {
            const id = String(attributes['cbg.request_id']);
            ended.set(id, [...(ended.get(id) ?? []), attributes]);
            trace.end(attributes, failed);
          },
        };
      },
      shutdown: () => tracing.shutdown(),
    },
  };
}

/** What the handler (the later steps) does, from the query. */
interface Plan {
  status?: number;
  api?: boolean;
  vendor?: string;
  /** How long the handler takes before answering. */
  waitMs?: number;
  /** What the core is said to have taken. */
  upstreamSeconds?: number;
  /** Answers only once the test releases it. */
  held?: boolean;
}

function gatewayApp(tracing: Tracing | null, held: Map<string, { reached: () => void; release: Promise<void> }>): express.Express {
  const app = express();
  // What the request-context step leaves: the context, its id from the test.
  app.use((req, res, next) => {
    setContext(res, newContext(String(req.headers['x-request-id'])));
    next();
  });
  app.use(traceRequest(tracing));
  app.get('/step', async (req: Request, res: Response) => {
    const ctx = context(res);
    const plan = JSON.parse(String(req.query.plan ?? '{}')) as Plan;
    if (plan.api) ctx.route = ACCOUNT;
    if (plan.vendor !== undefined) ctx.principal = { vendorId: plan.vendor, vendorName: plan.vendor, keyId: 'k1', userId: 'u1', certificateThumbprints: [] };
    if (plan.upstreamSeconds !== undefined) ctx.upstreamSeconds = plan.upstreamSeconds;
    if (plan.waitMs !== undefined) await new Promise((resolve) => setTimeout(resolve, plan.waitMs));
    const hold = held.get(ctx.requestId);
    if (plan.held && hold) {
      hold.reached();
      await hold.release;
    }
    res.status(plan.status ?? 200).json({ traced: ctx.trace !== null, traceId: ctx.trace?.traceId ?? null });
  });
  return app;
}

interface Answer {
  readonly status: number;
  readonly body: { traced: boolean; traceId: string | null };
  readonly headers: http.IncomingHttpHeaders;
}

function callStep(url: string, requestId: string, plan: Plan = {}, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/step?plan=${encodeURIComponent(JSON.stringify(plan))}`,
      { headers: { 'x-request-id': requestId, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) as Answer['body'] }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('trace step without tracing', () => {
  let server: Listening;
  beforeAll(async () => {
    server = await listenOnLoopback(gatewayApp(null, new Map()));
  });
  afterAll(() => server.close());

  it('lets the request through and adds nothing: no trace on the context, no header on the answer', async () => {
    const answer = await callStep(server.url, 'untraced-1', {}, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ traced: false, traceId: null });
    expect(Object.keys(answer.headers).filter((name) => /trace/i.test(name))).toEqual([]);
  });
});

describe('trace step with tracing', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let tracing: ReturnType<typeof watched>;
  let server: Listening;
  const held = new Map<string, { reached: () => void; release: Promise<void> }>();

  beforeAll(async () => {
    receiver = await startReceiver();
    const real = createTracing({ endpoint: receiver.endpoint, serviceName: 'trace-step-test', exportDelayMs: 10, sampleRatio: 1 }, createLogger('silent'));
    if (real === null) throw new Error('tracing with an endpoint is on');
    tracing = watched(real);
    server = await listenOnLoopback(gatewayApp(tracing.tracing, held));
  });
  afterAll(async () => {
    await server.close();
    await tracing.tracing.shutdown();
    await receiver.close();
  });

  /** The exported server span of the request with this id, once it arrived. */
  async function exportedSpan(requestId: string): Promise<ExportedSpan> {
    const find = (): ExportedSpan | undefined => receiver.spans.find((span) => attribute(span, 'cbg.request_id') === requestId);
    await within(5000, () => find() !== undefined);
    return find() as ExportedSpan;
  }

  it("continues the caller's traceparent: a server span of the caller's trace, under the caller's span, named by the method", async () => {
    const answer = await callStep(server.url, 'continued-1', {}, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(answer.body).toEqual({ traced: true, traceId: CALLER_TRACE });
    const span = await exportedSpan('continued-1');
    expect(span).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, name: 'GET gateway', kind: 2 });
  });

  it.each([
    ['no traceparent', {}],
    ['a malformed traceparent', { traceparent: 'not-a-trace' }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` }],
  ])('starts a trace of its own when the caller sent %s', async (_label, headers) => {
    const requestId = `fresh-${Object.keys(headers).length}-${String(Object.values(headers)[0] ?? '').slice(0, 6)}`;
    const answer = await callStep(server.url, requestId, {}, headers);
    const span = await exportedSpan(requestId);
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toBe('0'.repeat(32));
    expect(span.parentSpanId ?? '').toBe('');
    expect(answer.body.traceId).toBe(span.traceId);
  });

  it('carries the method, the status, the request id, and the API id and vendor that later steps found; a 4xx is no failure', async () => {
    await callStep(server.url, 'carried-1', { api: true, vendor: 'vendor-7', status: 404 });
    const span = await exportedSpan('carried-1');
    expect(attribute(span, 'http.request.method')).toBe('GET');
    expect(attribute(span, 'http.response.status_code')).toBe(404);
    expect(attribute(span, 'cbg.api_id')).toBe('GETaccounts/{accountId}');
    expect(attribute(span, 'cbg.vendor')).toBe('vendor-7');
    expect(span.status?.code ?? 0).not.toBe(2);
  });

  it('names the API unmatched and the vendor anonymous when no later step found them', async () => {
    await callStep(server.url, 'unnamed-1');
    const span = await exportedSpan('unnamed-1');
    expect(attribute(span, 'cbg.api_id')).toBe('unmatched');
    expect(attribute(span, 'cbg.vendor')).toBe('anonymous');
  });

  it.each([500, 503])('marks the span failed on a %s answer', async (status) => {
    await callStep(server.url, `failed-${status}`, { status });
    const span = await exportedSpan(`failed-${status}`);
    expect(span.status?.code).toBe(2);
    expect(attribute(span, 'http.response.status_code')).toBe(status);
  });

  it("counts the gateway's own time: all of it when the core took none", async () => {
    await callStep(server.url, 'own-time-1', { waitMs: 60 });
    await within(2000, () => tracing.ended.has('own-time-1'));
    const [attributes] = tracing.ended.get('own-time-1') ?? [];
    expect(attributes?.['cbg.gateway_ms']).toBeGreaterThanOrEqual(60);
  });

  it("counts the gateway's own time: the whole minus the core's", async () => {
    await callStep(server.url, 'own-time-2', { waitMs: 120, upstreamSeconds: 0.12 });
    await within(2000, () => tracing.ended.has('own-time-2'));
    const [attributes] = tracing.ended.get('own-time-2') ?? [];
    expect(attributes?.['cbg.gateway_ms']).toBeGreaterThanOrEqual(0);
    expect(attributes?.['cbg.gateway_ms']).toBeLessThan(100);
  });

  it("counts the gateway's own time as zero, never below, when the core's exceeds the whole", async () => {
    await callStep(server.url, 'own-time-3', { upstreamSeconds: 30 });
    await within(2000, () => tracing.ended.has('own-time-3'));
    expect(tracing.ended.get('own-time-3')?.[0]?.['cbg.gateway_ms']).toBe(0);
  });

  it('ends the server span when the response ends, not before, and once', async () => {
    let reached!: () => void;
    const handlerReached = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    held.set('held-1', { reached, release: new Promise<void>((resolve) => (release = resolve)) });
    const answering = callStep(server.url, 'held-1', { held: true, status: 201 });
    await handlerReached;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const endedWhileHeld = tracing.ended.has('held-1');
    release();
    await answering;
    expect(endedWhileHeld).toBe(false);
    await within(2000, () => tracing.ended.has('held-1'));
    const span = await exportedSpan('held-1');
    expect(attribute(span, 'http.response.status_code')).toBe(201);
    expect(tracing.ended.get('held-1')).toHaveLength(1);
  });

  it('ends the server span when the client goes away before the answer, saying so and naming no status it never got', async () => {
    let reached!: () => void;
    const handlerReached = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    held.set('gone-1', { reached, release: new Promise<void>((resolve) => (release = resolve)) });
    const req = http.request(`${server.url}/step?plan=${encodeURIComponent(JSON.stringify({ held: true }))}`, {
      headers: { 'x-request-id': 'gone-1' },
      agent: false,
    });
    req.on('error', () => undefined);
    req.end();
    await handlerReached;
    req.destroy();
    try {
      await within(2000, () => tracing.ended.has('gone-1'));
      const span = await exportedSpan('gone-1');
      expect(attribute(span, 'error.type')).toBe('client_closed');
      expect(attribute(span, 'http.response.status_code')).toBeUndefined();
    } finally {
      release();
    }
  });
});
