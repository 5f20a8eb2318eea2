/**
 * OpenTelemetry traces over OTLP/HTTP (JSON), created only when an endpoint is
 * configured: without one nothing here is constructed and the hooks take their
 * no-op path. Nothing is registered globally (no global tracer provider or
 * context manager), so several services in one process keep their own spans;
 * the request span travels to the engine in an AsyncLocalStorage of ours.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { VERSION } from "../version.ts";

export interface TracingOptions {
  /** The OTLP/HTTP base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  /** How long spans wait to be batched (the exporter's default is 5 s). */
  batchDelayMs?: number;
}

export interface Tracing {
  /** The request's span, a child of the incoming `traceparent` when one is valid. */
  startRequest(request: Request, name: string): Span;
  /** Runs `fn` with `span` as the parent of the spans it starts. */
  within<T>(span: Span, fn: () => T): T;
  /** A span under `parent`, else under the request the caller runs in. */
  start(name: string, attributes: Attributes, parent?: Span, kind?: SpanKind): Span;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const headerGetter = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

/** `<endpoint>/v1/traces`, as OTEL_EXPORTER_OTLP_ENDPOINT is read by the specification. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

export function createTracing(options: TracingOptions): Tracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": options.serviceName,
      "service.version": VERSION,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: tracesUrl(options.endpoint) }),
        scheduledDelayMillis: options.batchDelayMs ?? 5000,
      }),
    ],
  });
  const tracer: Tracer = provider.getTracer("switchyard", VERSION);
  const propagator = new W3CTraceContextPropagator();
  const current = new AsyncLocalStorage<Context>();
  return {
    startRequest(request, name) {
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
      return tracer.startSpan(name, { kind: SpanKind.SERVER }, parent);
    },
    within: (span, fn) => current.run(trace.setSpan(ROOT_CONTEXT, span), fn),
    start(name, attributes, parent, kind = SpanKind.INTERNAL) {
      const context = parent === undefined
        ? current.getStore() ?? ROOT_CONTEXT
        : trace.setSpan(ROOT_CONTEXT, parent);
      return tracer.startSpan(name, { kind, attributes }, context);
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
