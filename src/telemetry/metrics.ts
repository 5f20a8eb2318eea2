/**
 * The Prometheus metric families of one instance, on a registry of their own
 * (never prom-client's global one, so two services in one process count
 * apart). Label values are closed sets or operator configuration (route
 * templates, providers, catalog models, error codes, intents): never an id, a
 * prompt, a path or a secret, so cardinality stays bounded whatever clients send.
 * The process's memory comes first, under prom-client's usual names.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { registerProcessMetrics } from "./process_metrics.ts";
import { phaseHistogram } from "./phase_histogram.ts";

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const MODEL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 180];
const FIRST_TOKEN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
const DB_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export type MetricFamilies = ReturnType<typeof metricFamilies>;

export function metricFamilies() {
  const registry = new Registry();
  registerProcessMetrics(registry);
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ) => new Histogram<L>({ name, help, labelNames, buckets, registers });
  return {
    registry,
    httpRequests: counter(
      "switchyard_http_requests_total",
      "HTTP requests answered, by route template, method and status.",
      ["route", "method", "status"],
    ),
    httpDuration: histogram(
      "switchyard_http_request_duration_seconds",
      "Time to the response headers (a stream's length is in the turn duration).",
      ["route", "method"],
      HTTP_BUCKETS,
    ),
    httpErrors: counter(
      "switchyard_http_errors_total",
      "Error responses by error code (429 rate_limited and 409 run_in_flight included).",
      ["code"],
    ),
    turns: counter("switchyard_turns_total", "Turns ended, by outcome.", ["outcome"]),
    turnDuration: histogram(
      "switchyard_turn_duration_seconds",
      "Claimed turns from start to end, streams included.",
      [],
      MODEL_BUCKETS,
    ),
    turnPhases: phaseHistogram(registry),
    runsLive: gauge("switchyard_runs_live", "Turns running on this instance.", []),
    streamsLive: gauge("switchyard_sse_streams_live", "Open SSE streams of this instance.", []),
    runClaims: counter(
      "switchyard_run_claims_total",
      "Runs claimed for a turn, by the request that claimed them.",
      ["operation"],
    ),
    runSupersedes: counter(
      "switchyard_run_supersedes_total",
      "Runs taken over from a paused or running turn, by the request that took them.",
      ["operation"],
    ),
    runInFlight: counter(
      "switchyard_run_in_flight_refusals_total",
      "Requests refused with 409 run_in_flight.",
      [],
    ),
    routingDecisions: counter(
      "switchyard_routing_decisions_total",
      "Routing decisions by what chose the model: explicit, rule, default, or none (no route).",
      ["rule_kind"],
    ),
    fallbackHops: counter(
      "switchyard_fallback_hops_total",
      "Provider failures that moved the turn to the next candidate, by failure category.",
      ["reason"],
    ),
    providerCalls: counter(
      "switchyard_provider_calls_total",
      "Model invocations by provider, model and outcome (ok, interrupted or failure category).",
      ["provider", "model", "outcome"],
    ),
    providerDuration: histogram(
      "switchyard_provider_call_duration_seconds",
      "Model invocations from request to the last byte.",
      ["provider", "model"],
      MODEL_BUCKETS,
    ),
    firstToken: histogram(
      "switchyard_provider_time_to_first_token_seconds",
      "Streamed model invocations from request to the first delta.",
      ["provider", "model"],
      FIRST_TOKEN_BUCKETS,
    ),
    tokens: counter(
      "switchyard_tokens_total",
      "Tokens reported by providers, by provider, model, task type and token type.",
      ["provider", "model", "task_type", "token_type"],
    ),
    cost: counter(
      "switchyard_cost_usd_total",
      "Estimated cost in USD (exact decimals, converted to a float only here).",
      ["provider", "model", "task_type"],
    ),
    rateLimited: counter(
      "switchyard_rate_limit_refusals_total",
      "Requests refused by a rate limit, by limit.",
      ["limit"],
    ),
    budgetRefusals: counter(
      "switchyard_budget_refusals_total",
      "Model calls refused with 429 budget_exceeded, by the window refused (daily, monthly).",
      ["window"],
    ),
    dbDuration: histogram(
      "switchyard_db_query_duration_seconds",
      "Store statements and transactions, by driver and statement kind.",
      ["driver", "kind"],
      DB_BUCKETS,
    ),
    dbInUse: gauge(
      "switchyard_db_connections_in_use",
      "Connections held by running statements and transactions.",
      ["driver"],
    ),
    dbPoolMax: gauge("switchyard_db_pool_max", "Connections the store may open.", ["driver"]),
  };
}
