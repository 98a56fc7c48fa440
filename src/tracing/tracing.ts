/**
 * Distributed tracing with OpenTelemetry: one server span per vendor request (continuing the
 * caller's W3C `traceparent`/`tracestate`, or starting a trace), child spans for the steps that
 * wait or work (rate-limit round trip, body translation, each core call), and the core call's
 * own `traceparent` sent to the core, so a trace shows the gateway's share beside the core's.
 * Spans are exported by OTLP/HTTP (JSON) in batches to `tracing.endpoint`
 * (OTEL_EXPORTER_OTLP_ENDPOINT); without one there is no tracer at all, and every hook is a
 * null check.
 *
 * Contexts are passed by hand (no async-hooks context manager): each child names its parent,
 * which keeps the cost off requests that are not traced and the parentage explicit.
 *
 * Reads the tracing config; exports spans over HTTP.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../logging/logger';
import { OtlpHttpJsonExporter } from './otlp-http-exporter';
import type { TracingConfig } from './tracing.schema';

/** A span under way. */
export interface TraceSpan {
  /** The W3C traceparent naming this span, for the request it makes. */
  readonly traceparent: string;
  end(attributes?: Attributes, failed?: boolean): void;
}

/** The trace of one vendor request. */
export interface RequestTrace {
  readonly traceId: string;
  /** A child span of the request's server span. */
  child(name: string, attributes?: Attributes): TraceSpan;
  end(attributes: Attributes, failed: boolean): void;
}

export interface Tracing {
  startRequest(headers: IncomingHttpHeaders, name: string): RequestTrace;
  /** Sends what is still batched, then stops. */
  shutdown(): Promise<void>;
}

const propagator = new W3CTraceContextPropagator();

function traceparentOf(spanContext: Context): string {
  const carrier: Record<string, string> = {};
  propagator.inject(spanContext, carrier, defaultTextMapSetter);
  return carrier.traceparent ?? '';
}

function wrap(span: Span, parent: Context): TraceSpan {
  let ended = false;
  return {
    traceparent: traceparentOf(trace.setSpan(parent, span)),
    end(attributes, failed) {
      // A call's outcome may be told twice (a refusal, then the error it becomes): the first counts.
      if (ended) return;
      ended = true;
      if (attributes) span.setAttributes(attributes);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

function requestTrace(tracer: Tracer, headers: IncomingHttpHeaders, name: string): RequestTrace {
  const incoming = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const server = tracer.startSpan(name, { kind: SpanKind.SERVER }, incoming);
  const parent = trace.setSpan(incoming, server);
  return {
    traceId: server.spanContext().traceId,
    child: (childName, attributes) =>
      wrap(tracer.startSpan(childName, { kind: childName === 'core call' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, parent), parent),
    end(attributes, failed) {
      server.setAttributes(attributes);
      if (failed) server.setStatus({ code: SpanStatusCode.ERROR });
      server.end();
    },
  };
}

/** Null without an endpoint: nothing is traced and nothing costs. */
export function createTracing(config: TracingConfig, logger: Logger): Tracing | null {
  if (config.endpoint === null) return null;
  const exporter = new OtlpHttpJsonExporter(config.endpoint);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: config.exportDelayMs })],
    // A sampled-out trace costs almost nothing: its spans do not record, and are never sent.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
  });
  const tracer = provider.getTracer('core-banking-gateway');
  logger.info({ endpoint: config.endpoint, serviceName: config.serviceName }, 'tracing: spans exported by OTLP/HTTP');
  return {
    startRequest: (headers, name) => requestTrace(tracer, headers, name),
    shutdown: () => provider.shutdown(),
  };
}
