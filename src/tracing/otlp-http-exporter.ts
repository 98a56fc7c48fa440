/**
 * Sends finished spans to an OTLP/HTTP collector as JSON (`POST <endpoint>/v1/traces`), with the
 * OpenTelemetry project's own serializer. A small transport of our own rather than the
 * project's exporter, which loads `http` with a dynamic import() on its first send: that works
 * under Node but not in every loader (Jest's, for one), and a tracer that silently never sends
 * is worse than none.
 *
 * Reads nothing; one HTTP request per batch, bounded by `timeoutMs`, over a keep-alive agent.
 */
import http from 'node:http';
import https from 'node:https';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

export class OtlpHttpJsonExporter implements SpanExporter {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    endpoint: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (!body) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('spans could not be serialised') });
      return;
    }
    const send = this.url.protocol === 'https:' ? https.request : http.request;
    const sent = new Promise<void>((resolve) => {
      const request = send(
        this.url,
        { method: 'POST', agent: this.agent, timeout: this.timeoutMs, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (response) => {
          response.resume();
          response.once('end', () => {
            const ok = (response.statusCode ?? 0) < 300;
            resultCallback(
              ok ? { code: ExportResultCode.SUCCESS } : { code: ExportResultCode.FAILED, error: new Error(`collector answered ${response.statusCode}`) },
            );
            resolve();
          });
        },
      );
      request.once('timeout', () => request.destroy(new Error('collector did not answer in time')));
      request.once('error', (error) => {
        resultCallback({ code: ExportResultCode.FAILED, error });
        resolve();
      });
      request.end(body);
    });
    this.pending.add(sent);
    void sent.then(() => this.pending.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.agent.destroy();
  }
}
