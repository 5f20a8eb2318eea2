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
import { finishRun } from "../store/runs.ts";
import { pauseRun as pauseRunRow } from "../store/runs.ts";
import { appendUsageEvent } from "../store/usage.ts";
import { recordTrace, type SealScope } from "./seal_scope.ts";
import { costEvent, decisionScope, messageEvent, type TraceScope } from "./trace_records.ts";
import type { TurnContext } from "./turn_context.ts";

/** What the writes of a request need of its turn. */
export type TurnScope = Pick<TurnContext, "deps" | "session" | "runId" | "turnId" | "seal">;

export function baseScope(t: Pick<TurnContext, "deps" | "session" | "turnId">): TraceScope {
  return { sessionId: t.session.id, traceId: t.turnId, now: t.deps.now() };
}

/** Messages of earlier runs, oldest first, labelled by their sequence number. */
/** Reads only the store, the session, the run to leave out and the seal, so preview can call it. */
export async function loadHistory(
  t: Pick<TurnContext, "runId" | "seal"> & {
    deps: Pick<TurnContext["deps"], "db">;
    session: Pick<TurnContext["session"], "id">;
  },
): Promise<HistoryMessage[]> {
  const rows = await listHistory(t.deps.db, t.session.id);
  const textOf = (m: (typeof rows)[number]) =>
    t.seal === null ? m.content.plaintext : t.seal.plain[`message:${m.seq}`];
  return rows.flatMap((m) => {
    const content = m.run_id === t.runId ? undefined : textOf(m);
    return typeof content === "string"
      ? [{ label: m.seq, role: m.role, content, constrained: m.constrained }]
      : [];
  });
}

export async function loadMemory(t: TurnContext): Promise<MemoryEntry[]> {
  const { user, session } = await recallMemories(t.deps.db, t.session.user_id, t.session.id);
  // User memory is never sealed (decisions.md §9); sealed session memory was opened by the client.
  const entry =
    (scope: "user" | "session") =>
    (row: { id: string; key: string; value: Record<string, unknown> }) => {
      const value = row.value.plaintext ?? t.seal?.plain[`memory:${row.id}`];
      return typeof value === "string" ? [{ scope, key: row.key, value }] : [];
    };
  return [...user.flatMap(entry("user")), ...session.flatMap(entry("session"))];
}

export async function persistMessage(
  t: TurnScope,
  m: {
    role: string;
    text: string;
    model?: { provider: string; model: string };
    constrained?: boolean;
    interrupted?: boolean;
    /** Encrypted session: the client's own envelope of `text` (a sealed prompt). */
    sealed?: Record<string, unknown>;
  },
  scope: TraceScope = baseScope(t),
): Promise<number> {
  // An encrypted session's message keeps no content until the client seals it.
  const content = t.seal === null
    ? { plaintext: m.text }
    : m.sealed === undefined
    ? {}
    : { encrypted: m.sealed };
  const row = await appendMessage(t.deps.db, {
    id: t.deps.newId(),
    sessionId: t.session.id,
    runId: t.runId,
    role: m.role,
    content,
    provider: m.model?.provider ?? null,
    model: m.model?.model ?? null,
    constrained: m.constrained ?? false,
    interrupted: m.interrupted ?? false,
    now: t.deps.now(),
  });
  if (t.seal !== null && m.sealed === undefined) t.seal.toEncrypt[`message:${row.seq}`] = m.text;
  await recordTrace(t.deps.db, t.seal, [
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
  t.probe.usage(d, reported, cost, t.seal !== null);
  await recordTrace(t.deps.db, t.seal, [costEvent(scope, usage, cost)]);
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
    sealed: t.seal !== null,
    now: t.deps.now(),
  });
  return usage;
}

/**
 * running → awaiting_client with the pause and the run input; false when
 * superseded. An encrypted session keeps only its sealed state: the run input
 * goes to `to_encrypt` as the next checkpoint, and the pause lists everything
 * the answer must seal.
 */
export async function pauseTurn(t: TurnContext, pause: Pause): Promise<boolean> {
  if (t.seal === null) {
    return await writePause(t, pause, t.input as unknown as Record<string, unknown>);
  }
  const ref = `run_input:${t.turnId}`;
  t.seal.toEncrypt[ref] = JSON.stringify(t.input);
  t.seal.state.pending = { ref, skip: t.seal.state.additions.length };
  return await writePause(t, { ...pause, to_encrypt: Object.keys(t.seal.toEncrypt) }, {
    ...t.seal.state,
  });
}

/** Writes a pause and what the run keeps beside it. */
export async function writePause(
  t: Pick<TurnContext, "deps" | "runId" | "turnId">,
  pause: Pause,
  runInput: Record<string, unknown> | SealScope["state"],
): Promise<boolean> {
  const row = await pauseRunRow(t.deps.db, {
    runId: t.runId,
    turnId: t.turnId,
    now: t.deps.now(),
    pause: pause as unknown as Record<string, unknown>,
    runInput: runInput as unknown as Record<string, unknown>,
  });
  return row !== null;
}

export async function finishTurn(
  t: Pick<TurnContext, "deps" | "runId" | "turnId">,
  state: "idle" | "error",
): Promise<boolean> {
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
