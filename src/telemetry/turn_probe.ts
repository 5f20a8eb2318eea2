/**
 * What the engine reports of one turn: its routing decisions, model calls,
 * fallback hops, usage and end. Spans carry only readable metadata (the
 * columns an encrypted session keeps readable: task type, provider, model,
 * matched rule, token counts, error codes), never text, arguments or keys.
 */
import { type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { Outcome } from "../core/errors.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import type { Instruments } from "./instruments.ts";
import type { PhaseClock } from "./phase_clock.ts";
import type { Tracing } from "./tracing.ts";

export interface ModelRef {
  provider: string;
  model: string;
}

interface Tokens {
  inputTokens?: number;
  outputTokens?: number;
}

export interface CallProbe {
  /** The first delta of a streamed call arrived. */
  firstDelta(): void;
  end(reply: { usage: Tokens; stopReason: string | null; interrupted: boolean }): void;
  /** `category` is the provider failure's category, `code` its error code. */
  fail(category: string, code: string): void;
}

export interface TurnProbe {
  /** Call before deciding; `end` takes the decision. */
  routing(): { end(decided: Outcome<TurnDecision>): void };
  /** `sealed`: an encrypted session, whose token figures are not readable metadata. */
  call(model: ModelRef, streamed: boolean, sealed: boolean): CallProbe;
  fallback(model: ModelRef, category: string): void;
  /**
   * Counts tokens and cost (null for a model without prices); an encrypted
   * session's figures are sealed (decisions.md §8), so they are not counted.
   */
  usage(d: TurnDecision, reported: Tokens, costUsd: string | null, sealed: boolean): void;
  /** The request's phases as the turn ended; `store` is the store's driver (pglite, postgres). */
  phases(clock: PhaseClock, store: string): void;
  /** `outcome`: the envelope status, `failed` or `superseded`. */
  end(outcome: string): void;
}

const NO_CALL: CallProbe = { firstDelta() {}, end() {}, fail() {} };
const NO_ROUTING = { end() {} };
export const NO_TURN: TurnProbe = {
  routing: () => NO_ROUTING,
  call: () => NO_CALL,
  fallback() {},
  usage() {},
  phases() {},
  end() {},
};

/** OpenTelemetry GenAI names the Gemini API `gcp.gemini`; the others keep our ids. */
function genAiProvider(provider: string): string {
  return provider === "gemini" ? "gcp.gemini" : provider;
}

function ruleKind(d: TurnDecision): string {
  return d.routing.override_used ? "explicit" : d.routing.rule !== null ? "rule" : "default";
}

function failed(span: Span, code: string): void {
  span.setAttribute("error.type", code);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export function turnProbe(
  m: Instruments | null,
  tracing: Tracing | null,
  turn: { traceId: string; streamed: boolean },
): TurnProbe {
  const started = performance.now();
  m?.runsLive.inc();
  const span = tracing?.start("switchyard.turn", {
    "switchyard.trace_id": turn.traceId,
    "switchyard.streamed": turn.streamed,
  });
  let ended = false;
  return {
    routing() {
      const routeSpan = span && tracing!.start("switchyard.routing", {}, span);
      return {
        end(decided) {
          m?.routing(decided.ok ? ruleKind(decided.value) : "none").inc();
          if (routeSpan === undefined) return;
          if (!decided.ok) failed(routeSpan, decided.failure.code);
          else {
            const d = decided.value;
            const kind = ruleKind(d);
            const attributes = {
              "switchyard.task_type": d.classification.intent,
              "switchyard.rule_kind": kind,
              ...(d.routing.rule === null
                ? {}
                : { "switchyard.matched_rule": d.routing.rule.name }),
              "switchyard.fallback_used": d.routing.fallback_used,
              "gen_ai.provider.name": genAiProvider(d.routing.model.provider),
              "gen_ai.request.model": d.routing.model.model,
            };
            routeSpan.setAttributes(attributes);
            span!.setAttributes(attributes);
          }
          routeSpan.end();
        },
      };
    },
    call(model, streamed, sealed) {
      if (m === null && span === undefined) return NO_CALL;
      const callStarted = performance.now();
      const children = m?.call(model.provider, model.model);
      const callSpan = span && tracing!.start(
        `chat ${model.model}`,
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": genAiProvider(model.provider),
          "gen_ai.request.model": model.model,
          "switchyard.streamed": streamed,
        },
        span,
        SpanKind.CLIENT,
      );
      let first = streamed;
      const done = (outcome: string) => {
        children?.duration.observe((performance.now() - callStarted) / 1000);
        children?.outcome(outcome).inc();
        callSpan?.end();
      };
      return {
        firstDelta() {
          if (!first) return;
          first = false;
          children?.firstToken.observe((performance.now() - callStarted) / 1000);
        },
        end(reply) {
          callSpan?.setAttribute("gen_ai.response.model", model.model);
          if (reply.interrupted) callSpan?.setAttribute("switchyard.interrupted", true);
          if (!sealed) {
            callSpan?.setAttributes({
              "gen_ai.usage.input_tokens": reply.usage.inputTokens ?? 0,
              "gen_ai.usage.output_tokens": reply.usage.outputTokens ?? 0,
              ...(reply.stopReason === null
                ? {}
                : { "gen_ai.response.finish_reasons": [reply.stopReason] }),
            });
          }
          done(reply.interrupted ? "interrupted" : "ok");
        },
        fail(category, code) {
          if (callSpan !== undefined) failed(callSpan, code);
          done(category);
        },
      };
    },
    fallback(model, category) {
      m?.hop(category).inc();
      span?.addEvent("switchyard.fallback", {
        "gen_ai.provider.name": genAiProvider(model.provider),
        "gen_ai.request.model": model.model,
        "switchyard.reason": category,
      });
    },
    usage(d, reported, costUsd, sealed) {
      if (m === null || sealed) return;
      const u = m.usage(d.routing.model.provider, d.routing.model.model, d.classification.intent);
      u.input.inc(reported.inputTokens ?? 0);
      u.output.inc(reported.outputTokens ?? 0);
      // The exact decimal becomes a float only here, at the exporter's edge.
      if (costUsd !== null) u.cost.inc(Number(costUsd));
    },
    phases(clock, store) {
      m?.families.turnPhases.observe(store, clock);
      if (span === undefined) return;
      clock.forEach((phase, seconds) => {
        span.setAttribute(`switchyard.phase.${phase}_ms`, seconds * 1000);
      });
    },
    end(outcome) {
      if (ended) return;
      ended = true;
      if (m !== null) {
        m.runsLive.dec();
        m.turn(outcome).inc();
        m.turnDuration.observe((performance.now() - started) / 1000);
      }
      if (span === undefined) return;
      span.setAttribute("switchyard.outcome", outcome);
      if (outcome === "failed") span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
