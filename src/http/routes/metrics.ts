/**
 * `GET /metrics`: the Prometheus text format, outside `/api/v1` and without a
 * session token. An operator closes it with `router.telemetry.metrics_token`
 * (a bearer token compared in constant time) or moves it to its own address
 * with `router.telemetry.metrics_listen`, where the API's listener no longer
 * serves it.
 */
import { timingSafeEqual } from "node:crypto";
import { ServiceError } from "../../core/errors.ts";
import type { Endpoint, RequestContext } from "../context.ts";

const encoder = new TextEncoder();

function tokenMatches(header: string | null, token: string): boolean {
  const sent = encoder.encode(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = encoder.encode(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** The metrics answer; `listener` says whether this is the metrics-only address. */
export async function metricsResponse(ctx: RequestContext, listener: boolean): Promise<Response> {
  const { config, telemetry } = ctx.deps;
  const text = telemetry?.metricsText() ?? null;
  if (text === null || (config.telemetry.metricsListen !== undefined && !listener)) {
    throw ServiceError.of("not_found", `no such endpoint: ${ctx.url.pathname}`);
  }
  const token = config.telemetry.metricsToken;
  if (token !== undefined) {
    const header = ctx.request.headers.get("authorization");
    if (header === null) {
      throw ServiceError.of("missing_credentials", "missing credentials: send the metrics token");
    }
    if (!tokenMatches(header, token)) {
      throw ServiceError.of("invalid_token", "invalid token: not the metrics token");
    }
  }
  return new Response(await text, {
    headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
  });
}

export const getMetrics: Endpoint = {
  auth: "none",
  handle: (ctx) => metricsResponse(ctx, false),
};

/** The route table of the metrics-only listener. */
export const getMetricsOnListener: Endpoint = {
  auth: "none",
  handle: (ctx) => metricsResponse(ctx, true),
};
