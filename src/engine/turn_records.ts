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
import { type MemoryRow, recallMemories } from "../store/memories.ts";
import { appendMessage, listHistory, type StoredMessage } from "../store/messages.ts";
import { readTurn, type TurnReading } from "../store/run_admission.ts";
import type { NewTraceEvent } from "../store/traces.ts";
import { noRecords, type TurnRecords } from "../store/turn_writes.ts";
import { appendUsageEvent } from "../store/usage.ts";
import { recordTrace, type SealScope } from "./seal_scope.ts";
import { costEvent, decisionScope, messageEvent, type TraceScope } from "./trace_records.ts";
import type { TurnBase, TurnContext } from "./turn_context.ts";

/**
 * What the writes of a request need of its turn. With `records` (a claimed
 * turn of a plaintext session) messages, trace events and usage are gathered
 * there and written with the turn's transition; without them, or in an
 * encrypted session (whose `to_encrypt` names each record by its seq), they
 * are written at once.
 */
export type TurnScope =
  & Pick<TurnContext, "deps" | "session" | "runId" | "turnId" | "seal">
  & Partial<Pick<TurnContext, "records">>;

function gathering(t: TurnScope): TurnRecords | null {
  return t.seal === null && t.records !== undefined ? t.records : null;
}

/** Records trace events with the turn's other writes (see TurnScope). */
export async function noteTrace(t: TurnScope, events: readonly NewTraceEvent[]): Promise<void> {
  const records = gathering(t);
  if (records === null) return await recordTrace(t.deps.db, t.seal, events);
  records.trace.push(...events);
}

/** Takes what was gathered, leaving the turn's records empty. */
export function takeRecords(t: Partial<Pick<TurnContext, "records">>): TurnRecords {
  if (t.records === undefined) return noRecords();
  const taken = { ...t.records };
  Object.assign(t.records, noRecords());
  return taken;
}

export function baseScope(t: Pick<TurnContext, "deps" | "session" | "turnId">): TraceScope {
  return { sessionId: t.session.id, traceId: t.turnId, now: t.deps.now() };
}

type HistoryScope = Pick<TurnContext, "runId" | "seal">;

/** Messages of earlier runs, oldest first, labelled by their sequence number. */
export function historyFrom(
  t: HistoryScope,
  rows: readonly Pick<StoredMessage, "seq" | "run_id" | "role" | "content" | "constrained">[],
): HistoryMessage[] {
  // A loop, not flatMap: this runs over the whole history on every turn, and an array per
  // message cost more than the rest of a deep turn's history work.
  const history: HistoryMessage[] = [];
  for (const m of rows) {
    if (m.run_id === t.runId) continue;
    const content = t.seal === null ? m.content.plaintext : t.seal.plain[`message:${m.seq}`];
    if (typeof content === "string") {
      history.push({ label: m.seq, role: m.role, content, constrained: m.constrained });
    }
  }
  return history;
}

/** An encrypted session's history: its messages of other runs, opened by the seal. */
async function loadHistory(
  t: HistoryScope & {
    deps: Pick<TurnContext["deps"], "db">;
    session: Pick<TurnContext["session"], "id">;
  },
): Promise<HistoryMessage[]> {
  return historyFrom(t, await listHistory(t.deps.db, t.session.id));
}

/** The recalled memory entries, user store first (decisions.md §9). */
export function memoryFrom(
  t: Pick<TurnContext, "seal">,
  rows: readonly Pick<MemoryRow, "id" | "session_id" | "key" | "value">[],
): MemoryEntry[] {
  // User memory is never sealed (decisions.md §9); sealed session memory was opened by the client.
  return rows.flatMap((row) => {
    const value = row.value.plaintext ?? t.seal?.plain[`memory:${row.id}`];
    const scope = row.session_id === null ? "user" as const : "session" as const;
    return typeof value === "string" ? [{ scope, key: row.key, value }] : [];
  });
}

/** The memory a continued turn recalls (user memory first), sealed values opened by the seal. */
export async function loadMemory(
  t: Pick<TurnContext, "seal"> & {
    deps: Pick<TurnContext["deps"], "db">;
    session: Pick<TurnContext["session"], "id" | "user_id">;
  },
): Promise<MemoryEntry[]> {
  const { user, session } = await recallMemories(t.deps.db, t.session.user_id, t.session.id);
  return memoryFrom(t, [...user, ...session]);
}

/**
 * What a turn whose claim read nothing (an inject, an encrypted session's
 * turn) reads before its first model call: for a plaintext session one
 * statement, its history past what this instance holds and its memory; for an
 * encrypted one the whole history and the memory, opened by the seal.
 */
export async function readSession(
  t: Pick<TurnContext, "deps" | "session" | "runId" | "seal">,
): Promise<NonNullable<TurnBase["reading"]>> {
  if (t.seal !== null) return { history: await loadHistory(t), memory: await loadMemory(t) };
  return opened(t, await readTurn(t.deps.db, t.session, t.deps.historyCache));
}

/** What a claim read for its turn (TurnBase.reading), opened as the first model call weighs it. */
export function readingFrom(t: HistoryScope, read: TurnReading | undefined): TurnBase["reading"] {
  return read === undefined ? undefined : opened(t, read);
}

function opened(t: HistoryScope, read: TurnReading): NonNullable<TurnBase["reading"]> {
  return { history: historyFrom(t, read.history), memory: memoryFrom(t, read.memory) };
}

export async function persistMessage(
  t: TurnScope,
  m: {
    role: string;
    text: string;
    model?: { provider: string; model: string };
    constrained?: boolean;
    interrupted?: boolean;
    /** A reply written with the turn's transition: interrupted when that transition fails. */
    interruptedUnlessMoved?: boolean;
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
  const message = {
    id: t.deps.newId(),
    sessionId: t.session.id,
    runId: t.runId,
    role: m.role,
    content,
    provider: m.model?.provider ?? null,
    model: m.model?.model ?? null,
    constrained: m.constrained ?? false,
    interrupted: m.interrupted ?? false,
    interruptedUnlessMoved: m.interruptedUnlessMoved ?? false,
    now: t.deps.now(),
  };
  const event = messageEvent(scope, { role: m.role, seq: 0, interrupted: m.interrupted });
  const records = gathering(t);
  if (records !== null) {
    // The seq is the store's to give: the event takes it when both are written.
    records.trace.push({ ...event, messageIndex: records.messages.length });
    records.messages.push(message);
    return 0;
  }
  const row = await appendMessage(t.deps.db, message);
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
    cache_read_tokens: reported.cachedInputTokens,
    cache_write_tokens: reported.cacheWriteTokens,
  });
  const cost = usageCost(model, reported.inputTokens ?? 0, reported.outputTokens ?? 0, {
    read: reported.cachedInputTokens,
    write: reported.cacheWriteTokens,
  });
  const scope = decisionScope(baseScope(t), d);
  t.probe.usage(d, reported, cost, t.seal !== null);
  await noteTrace(t, [costEvent(scope, usage, cost)]);
  const event = {
    sessionId: t.session.id,
    traceId: t.turnId,
    provider: model.provider,
    model: model.model,
    taskType: d.classification.intent,
    inputTokens: reported.inputTokens ?? null,
    outputTokens: reported.outputTokens ?? null,
    cachedTokens: reported.cachedInputTokens ?? null,
    cacheWriteTokens: reported.cacheWriteTokens ?? null,
    reasoningTokens: reported.reasoningTokens ?? null,
    cost,
    sealed: t.seal !== null,
    now: t.deps.now(),
  };
  const records = gathering(t);
  if (records === null) await appendUsageEvent(t.deps.db, event);
  else records.usage.push(event);
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

/** Writes a pause and what the run keeps beside it, with the turn's records. */
export async function writePause(
  t: Pick<TurnContext, "deps" | "runId" | "turnId"> & Partial<Pick<TurnContext, "records">>,
  pause: Pause,
  runInput: Record<string, unknown> | SealScope["state"],
): Promise<boolean> {
  const written = await t.deps.turns.write({
    runId: t.runId,
    turnId: t.turnId,
    now: t.deps.now(),
    state: "awaiting_client",
    pause: pause as unknown as Record<string, unknown>,
    runInput: runInput as unknown as Record<string, unknown>,
  }, takeRecords(t));
  return written.moved;
}

/** Ends the turn (running → idle or error) with its records; false when superseded. */
export async function finishTurn(
  t: Pick<TurnContext, "deps" | "runId" | "turnId"> & Partial<Pick<TurnContext, "records">>,
  state: "idle" | "error",
): Promise<boolean> {
  const written = await t.deps.turns.write({
    runId: t.runId,
    turnId: t.turnId,
    now: t.deps.now(),
    state,
  }, takeRecords(t));
  return written.moved;
}

/** A terminal failure: the run goes to `error` (the session stays usable). */
export async function failTurn(
  t: TurnContext,
  failure: Failure,
): Promise<{ kind: "failure"; failure: Failure } | { kind: "superseded" }> {
  return (await finishTurn(t, "error")) ? { kind: "failure", failure } : { kind: "superseded" };
}
