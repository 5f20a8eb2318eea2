/**
 * The one narrow interface the service reports through: the HTTP handler, the
 * engine, the store and the SSE writer each call it from a one-line hook.
 * Metrics (on by default) write to pre-resolved children; traces exist only
 * with an OTLP endpoint. `NO_TELEMETRY` is the no-op for tests and for an
 * operator who turned both off.
 */
import { type Span, SpanStatusCode } from "@opentelemetry/api";
import type { Db } from "../store/db.ts";
import { instrumentDb } from "./db_probe.ts";
import { type Instruments, instruments } from "./instruments.ts";
import { methodLabel, nameLabel } from "./label_cache.ts";
import { metricFamilies } from "./metrics.ts";
import { NO_TURN, type TurnProbe, turnProbe } from "./turn_probe.ts";
import type { Tracing, TracingOptions } from "./tracing.ts";

export interface RequestProbe {
  /** The matched route's template; unmatched paths share one label value. */
  route: string;
  /** The error code of an error response. */
  code: string | null;
  /** Runs the request's work under its span. */
  within<T>(fn: () => Promise<T>): Promise<T>;
  /** Records the answer; a traced stream's span ends with its body. */
  end(method: string, response: Response): Response;
}

export interface Telemetry {
  request(request: Request): RequestProbe;
  turn(traceId: string, streamed: boolean): TurnProbe;
  /** An SSE stream opened; call the result once when it closes. */
  streamOpened(): () => void;
  /**
   * A run was claimed for a turn by `operation` (`execute`, `continue`,
   * `break`, `inject`), `superseding` a paused or running turn or not.
   */
  runClaimed(operation: string, superseding: boolean): void;
  /** A rate limit refused a request; `limit` names the limit (lower-case, from code). */
  rateLimitRefused(limit: string): void;
  /** A budget refused a model call; `window` is `daily` or `monthly` (no per-user labels). */
  budgetRefused(window: string): void;
  instrumentDb(db: Db, poolMax: number): Db;
  /** The Prometheus text, or null with metrics off. */
  metricsText(): Promise<string> | null;
  /** Exports the spans still buffered. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const UNMATCHED_ROUTE = "unmatched";

class PlainRequest implements RequestProbe {
  route = UNMATCHED_ROUTE;
  code: string | null = null;
  readonly started = performance.now();
  constructor(readonly m: Instruments | null) {}
  within<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  end(method: string, response: Response): Response {
    if (this.m === null) return response;
    const http = this.m.http(this.route, methodLabel(method));
    http.duration.observe((performance.now() - this.started) / 1000);
    http.status(response.status).inc();
    if (this.code !== null) {
      this.m.httpError(this.code).inc();
      if (this.code === "run_in_flight") this.m.inFlight.inc();
    }
    return response;
  }
}

class TracedRequest extends PlainRequest {
  readonly span: Span;
  constructor(m: Instruments | null, readonly tracing: Tracing, request: Request) {
    super(m);
    this.span = tracing.startRequest(request, methodLabel(request.method));
  }
  override within<T>(fn: () => Promise<T>): Promise<T> {
    return this.tracing.within(this.span, fn);
  }
  override end(method: string, response: Response): Response {
    super.end(method, response);
    const span = this.span;
    span.updateName(`${method} ${this.route}`);
    span.setAttributes({
      "http.request.method": methodLabel(method),
      "http.route": this.route,
      "http.response.status_code": response.status,
      ...(this.code === null ? {} : { "switchyard.error_code": this.code }),
    });
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    const streamed = response.headers.get("content-type")?.startsWith("text/event-stream");
    if (!streamed || response.body === null) {
      span.end();
      return response;
    }
    // The request lasts as long as its stream: end the span with the body.
    const body = response.body.pipeThrough(
      new TransformStream({ flush: () => span.end() }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }
}

const NO_REQUEST = new PlainRequest(null);
const noop = () => {};

export const NO_TELEMETRY: Telemetry = {
  request: () => NO_REQUEST,
  turn: () => NO_TURN,
  streamOpened: () => noop,
  runClaimed: noop,
  rateLimitRefused: noop,
  budgetRefused: noop,
  instrumentDb: (db) => db,
  metricsText: () => null,
  flush: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

export interface TelemetryOptions {
  metrics: boolean;
  /** Absent: no tracing objects are created at all. */
  tracing?: TracingOptions;
}

/** The OpenTelemetry SDK and exporter are loaded only when tracing is configured. */
async function tracingFor(options: TracingOptions | undefined): Promise<Tracing | null> {
  if (options === undefined) return null;
  const { createTracing } = await import("./tracing.ts");
  return createTracing(options);
}

export async function createTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (!options.metrics && options.tracing === undefined) return NO_TELEMETRY;
  const m = options.metrics ? instruments(metricFamilies()) : null;
  const tracing = await tracingFor(options.tracing);
  return {
    request: (request) =>
      tracing === null ? new PlainRequest(m) : new TracedRequest(m, tracing, request),
    turn: (traceId, streamed) =>
      m === null && tracing === null ? NO_TURN : turnProbe(m, tracing, { traceId, streamed }),
    streamOpened() {
      if (m === null) return noop;
      m.streamsLive.inc();
      let open = true;
      return () => {
        if (open) m.streamsLive.dec();
        open = false;
      };
    },
    runClaimed(operation, superseding) {
      if (m === null) return;
      m.claim(nameLabel(operation)).inc();
      if (superseding) m.supersede(nameLabel(operation)).inc();
    },
    rateLimitRefused: (limit) => m?.rateLimited(nameLabel(limit)).inc(),
    budgetRefused: (window) => m?.budgetRefused(nameLabel(window)).inc(),
    instrumentDb: (db, poolMax) => m === null ? db : instrumentDb(db, m, poolMax),
    metricsText: () => m?.families.registry.metrics() ?? null,
    flush: async () => await tracing?.flush(),
    close: async () => await tracing?.shutdown(),
  };
}
