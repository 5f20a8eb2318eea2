/**
 * The writes of a turn: history, cost, and the run transitions that end it.
 * Every transition is fenced by the turn id; a false answer from the store
 * means another request superseded this turn.
 */
import { usageCost } from "../core/cost.ts";
import type { Failure } from "../core/errors.ts";
import type { HistoryMessage, MemoryEntry } from "../core/run_items.ts";
import type { Pause } from "../core/run_state.ts";
import type { TurnDecision } from "../core/turn_decision.ts";
import { type TurnUsage, turnUsage } from "../core/turn_envelope.ts";
import type { TokenUsage } from "../providers/types.ts";
import { recallMemories } from "../store/memories.ts";
import { appendMessage, listHistory } from "../store/messages.ts";
import { finishRun, pauseRun } from "../store/runs.ts";
import { appendTraceEvents } from "../store/traces.ts";
import { appendUsageEvent } from "../store/usage.ts";
import { costEvent, decisionScope, messageEvent, type TraceScope } from "./trace_records.ts";
import type { TurnContext } from "./turn_context.ts";

export function baseScope(t: TurnContext): TraceScope {
  return { sessionId: t.session.id, traceId: t.turnId, now: t.deps.now() };
}

/** Messages of earlier runs, oldest first, labelled by their sequence number. */
export async function loadHistory(t: TurnContext): Promise<HistoryMessage[]> {
  const rows = await listHistory(t.deps.db, t.session.id);
  return rows.flatMap((m) =>
    m.run_id !== t.runId && typeof m.content.plaintext === "string"
      ? [{ label: m.seq, role: m.role, content: m.content.plaintext, constrained: m.constrained }]
      : []
  );
}

export async function loadMemory(t: TurnContext): Promise<MemoryEntry[]> {
  const { user, session } = await recallMemories(t.deps.db, t.session.user_id, t.session.id);
  const entry =
    (scope: "user" | "session") => (row: { key: string; value: Record<string, unknown> }) =>
      typeof row.value.plaintext === "string"
        ? [{ scope, key: row.key, value: row.value.plaintext as string }]
        : [];
  return [...user.flatMap(entry("user")), ...session.flatMap(entry("session"))];
}

export async function persistMessage(
  t: TurnContext,
  m: {
    role: string;
    text: string;
    model?: { provider: string; model: string };
    constrained?: boolean;
    interrupted?: boolean;
  },
  scope: TraceScope = baseScope(t),
): Promise<number> {
  const row = await appendMessage(t.deps.db, {
    id: t.deps.newId(),
    sessionId: t.session.id,
    runId: t.runId,
    role: m.role,
    content: { plaintext: m.text },
    provider: m.model?.provider ?? null,
    model: m.model?.model ?? null,
    constrained: m.constrained ?? false,
    interrupted: m.interrupted ?? false,
    now: t.deps.now(),
  });
  await appendTraceEvents(t.deps.db, [
    messageEvent(scope, { role: m.role, seq: row.seq, interrupted: m.interrupted }),
  ]);
  return row.seq;
}

/** Prices the call exactly, records the cost event and usage row, and returns the turn usage. */
export async function recordCost(
  t: TurnContext,
  d: TurnDecision,
  reported: TokenUsage,
): Promise<TurnUsage> {
  const model = d.routing.model;
  const usage = turnUsage(model, {
    input_tokens: reported.inputTokens,
    output_tokens: reported.outputTokens,
  });
  const cost = usageCost(model, reported.inputTokens ?? 0, reported.outputTokens ?? 0);
  const scope = decisionScope(baseScope(t), d);
  await appendTraceEvents(t.deps.db, [costEvent(scope, usage, cost)]);
  await appendUsageEvent(t.deps.db, {
    sessionId: t.session.id,
    traceId: t.turnId,
    provider: model.provider,
    model: model.model,
    taskType: d.classification.intent,
    inputTokens: reported.inputTokens ?? null,
    outputTokens: reported.outputTokens ?? null,
    cachedTokens: reported.cachedInputTokens ?? null,
    reasoningTokens: reported.reasoningTokens ?? null,
    cost,
    now: t.deps.now(),
  });
  return usage;
}

/** running → awaiting_client with the pause and the run input; false when superseded. */
export async function pauseTurn(t: TurnContext, pause: Pause): Promise<boolean> {
  const row = await pauseRun(t.deps.db, {
    runId: t.runId,
    turnId: t.turnId,
    now: t.deps.now(),
    pause: pause as unknown as Record<string, unknown>,
    runInput: t.input as unknown as Record<string, unknown>,
  });
  return row !== null;
}

export async function finishTurn(t: TurnContext, state: "idle" | "error"): Promise<boolean> {
  return await finishRun(t.deps.db, {
    runId: t.runId,
    turnId: t.turnId,
    now: t.deps.now(),
    state,
  });
}

/** A terminal failure: the run goes to `error` (the session stays usable). */
export async function failTurn(
  t: TurnContext,
  failure: Failure,
): Promise<{ kind: "failure"; failure: Failure } | { kind: "superseded" }> {
  return (await finishTurn(t, "error")) ? { kind: "failure", failure } : { kind: "superseded" };
}
