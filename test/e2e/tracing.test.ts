/**
 * OpenTelemetry tracing against a real OTLP/HTTP receiver started here (it decodes the JSON the
 * SDK's exporter posts to /v1/traces): one vendor deposit gives the gateway's server span with
 * its rate-limit, body-translation and core-call children, the core receives a traceparent of
 * the same trace, and the access log names the trace.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';
import { testConfig } from '../support/config';
import { startEchoCore, type EchoCore } from '../support/echo-core';
import { SANDBOX_KEYS, checkedAgainstOpenApi } from '../support/gateway';
import { within } from '../support/within';

interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

function attribute(span: ExportedSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

describe('OpenTelemetry tracing', () => {
  let receiver: http.Server;
  let endpoint: string;
  const spans: ExportedSpan[] = [];
  let core: EchoCore;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
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
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    core = await startEchoCore((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(req.body.replace(/}$/, ',"receiptNo":1}'));
    });
  });
  afterAll(async () => {
    await core.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('traces a deposit: the server span, its rate-limit, body-translation and core-call children, and the core sees the same trace', async () => {
    const logLines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (logLines.push(chunk.toString()), done()) }));
    const config = testConfig({ core: { url: core.url }, tracing: { endpoint, exportDelayMs: 50 } });
    const gateway = await checkedAgainstOpenApi(await startGateway(config, logger), config);
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`http://127.0.0.1:${gateway.vendorPort}/api/transaction/savings/deposit`, {
      method: 'POST',
      headers: {
        'X-Vendor-Token': SANDBOX_KEYS.demo,
        'content-type': 'application/xml',
        'Idempotency-Key': 'traced-1',
        traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`,
      },
      body: '<ReceiptPaymentDto><CUAccountID>50001</CUAccountID><Amount>10.00</Amount></ReceiptPaymentDto>',
    });
    expect(res.status).toBe(201);
    await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    await within(5000, () => spans.some((span) => span.name === 'POST gateway'));

    const server = spans.find((span) => span.name === 'POST gateway') as ExportedSpan;
    expect(server.traceId).toBe(callerTrace);
    expect(server.parentSpanId).toBe('00f067aa0ba902b7');
    expect(attribute(server, 'cbg.api_id')).toBe('POSTapi/transaction/savings/deposit');
    expect(attribute(server, 'cbg.vendor')).toBe('demo-vendor');
    expect(Number(attribute(server, 'http.response.status_code'))).toBe(201);
    expect(typeof attribute(server, 'cbg.gateway_ms')).toBe('number');
    const children = spans
      .filter((span) => span.parentSpanId === server.spanId)
      .map((span) => span.name)
      .sort();
    expect(children).toEqual(['body translation', 'core call', 'rate limit']);

    const coreCall = spans.find((span) => span.name === 'core call') as ExportedSpan;
    expect(core.requests[0]?.headers.traceparent).toBe(`00-${callerTrace}-${coreCall.spanId}-01`);
    expect(logLines.join('')).toContain(`"traceId":"${callerTrace}"`);
  });

  it('costs nothing without an endpoint: no span, and the vendor traceparent still reaches the core', async () => {
    const before = spans.length;
    const gateway = await startGateway(testConfig({ core: { url: core.url } }), createLogger('silent'));
    core.requests.length = 0;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await fetch(`http://127.0.0.1:${gateway.vendorPort}/accounts/1`, { headers: { 'X-Vendor-Token': SANDBOX_KEYS.demo, traceparent } });
    await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 1000 });
    expect(core.requests[0]?.headers.traceparent).toBe(traceparent);
    expect(spans.length).toBe(before);
  });
});
