/**
 * The trace events a turn records (interface.md "Trace"), each with the turn's
 * `trace_id`. Payloads name references (paths, kinds, call ids, sequence
 * numbers), never bodies: no prompt, file, diff or result text. The one
 * exception is a plaintext session's tool call, whose `tool_call` event keeps
 * the arguments the model gave, cut short (core/tool_call_label.ts).
 */
import type { ClassificationResult } from "../core/classification.ts";
import type { ContextSelection } from "../core/context_fill.ts";
import type { ContextItem } from "../core/context_items.ts";
import { classificationBody } from "../core/preview.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import type { TurnUsage } from "../core/turn_envelope.ts";
import type { NewTraceEvent, TraceEventType } from "../store/traces.ts";

export interface TraceScope {
  sessionId: string;
  traceId: string;
  now: Date;
  taskType?: string | null;
  provider?: string | null;
  model?: string | null;
}

export function traceEvent(
  scope: TraceScope,
  eventType: TraceEventType,
  payload: Record<string, unknown>,
  matchedRule?: string | number | null,
): NewTraceEvent {
  return eventOf(scope, eventType, { type: eventType, ...payload }, matchedRule);
}

/**
 * The event of a plaintext payload given whole (its `type` first). Built as
 * one literal: a deep turn traces hundreds of context items, and spreading
 * each one's payload cost more than the rest of its trace.
 */
function eventOf(
  scope: TraceScope,
  eventType: TraceEventType,
  plaintext: Record<string, unknown>,
  matchedRule?: string | number | null,
): NewTraceEvent {
  return {
    sessionId: scope.sessionId,
    traceId: scope.traceId,
    eventType,
    taskType: scope.taskType ?? null,
    provider: scope.provider ?? null,
    model: scope.model ?? null,
    matchedRule,
    payload: { plaintext },
    now: scope.now,
  };
}

export function decisionScope(base: TraceScope, d: TurnDecision): TraceScope {
  return {
    ...base,
    taskType: d.classification.intent,
    provider: d.routing.model.provider,
    model: d.routing.model.model,
  };
}

function classificationEvent(scope: TraceScope, c: ClassificationResult): NewTraceEvent {
  return traceEvent(scope, "classification", { ...classificationBody(c) }, c.matched_rule);
}

function contextPath(item: ContextItem): string | null {
  return item.paths.length === 1 ? item.paths[0] : item.kind === "file" ? item.label : null;
}

function contextEvents(scope: TraceScope, selection: ContextSelection): NewTraceEvent[] {
  const event = (item: ContextItem, included: boolean, reason: string) =>
    eventOf(scope, "context_selection", {
      type: "context_selection",
      path: contextPath(item),
      kind: item.kind,
      label: item.label,
      included,
      reason,
    });
  return [
    ...selection.included.map((i) => event(i, true, i.required ? "required" : "within budget")),
    ...selection.excluded.map(({ item, reason }) => event(item, false, reason)),
  ];
}

/** classification, routing_decision and one context_selection per candidate item. */
export function decisionEvents(base: TraceScope, d: TurnDecision): NewTraceEvent[] {
  const scope = decisionScope(base, d);
  const rule = d.routing.rule?.name ?? null;
  return [
    classificationEvent(scope, d.classification),
    traceEvent(scope, "routing_decision", {
      provider: d.routing.model.provider,
      model: d.routing.model.model,
      fallback_used: d.routing.fallback_used,
      override_used: d.routing.override_used,
      reason: d.routing.reason,
      effort: d.routing.effort,
    }, rule),
    ...contextEvents(scope, d.context),
  ];
}

/** A model call that failed and was left for the next candidate (decisions.md §7). */
export function fallbackHopEvent(
  scope: TraceScope,
  hop: { provider: string; model: string; code: string; reason: string },
): NewTraceEvent {
  return traceEvent(scope, "routing_decision", {
    provider: hop.provider,
    model: hop.model,
    fallback_used: true,
    override_used: false,
    reason: `invocation of '${hop.provider}/${hop.model}' failed (${hop.code}): ${hop.reason}`,
  });
}

export function costEvent(scope: TraceScope, usage: TurnUsage, cost: string | null) {
  return traceEvent(scope, "cost", {
    provider: scope.provider,
    model: scope.model,
    ...(usage.input_tokens === undefined ? {} : { input_tokens: usage.input_tokens }),
    ...(usage.output_tokens === undefined ? {} : { output_tokens: usage.output_tokens }),
    // turnUsage keeps a cache count only when it is non-zero.
    ...(usage.cache_read_tokens === undefined
      ? {}
      : { cache_read_tokens: usage.cache_read_tokens }),
    ...(usage.cache_write_tokens === undefined
      ? {}
      : { cache_write_tokens: usage.cache_write_tokens }),
    cost,
  });
}

/** A message persisted: its role and place in the session, never its text. */
export function messageEvent(
  scope: TraceScope,
  m: { role: string; seq: number; interrupted?: boolean },
): NewTraceEvent {
  return traceEvent(scope, "message", {
    role: m.role,
    seq: m.seq,
    ...(m.interrupted ? { interrupted: true } : {}),
  });
}
