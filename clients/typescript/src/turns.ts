/**
 * A session's turns as its user lived them: a turn is one prompt and everything that answered
 * it, every model call in order (each with its own routing, fallbacks, context and cost; a
 * native run's `continue` is a new model call with a new `trace_id`), the tool calls between
 * them, and the turn's total cost as an exact decimal. Read from the trace alone: the model
 * calls whose `trace_id`s follow one prompt (a `message` event of role `user`; sealed, a message
 * no model wrote) up to the next belong to its turn. A compatible-API request (OpenAI's Chat
 * Completions, Anthropic's Messages: a session with `metadata.surface`) is one model call and
 * one turn, its tool results included, so a conversation's requests read as consecutive turns.
 * Pure: plain data in, plain data out; the console and `switchyard why` both read turns here.
 */
import { sumDecimals } from "./decimal.ts";
import { replayTurns, type ToolCall, toolCallOf, type TurnDecision } from "./decision.ts";
import { toolCallLabel } from "./tool_label.ts";
import type { TraceEvent } from "./types.ts";

type Fields = Record<string, unknown>;

/** One thing that happened in a turn, in the order it happened. */
export type TurnStep =
  | {
    kind: "model_call";
    call: TurnDecision; /** 1-based among the turn's model calls. */
    place: number;
  }
  | { kind: "tool_call"; tool: ToolCall };

export interface Turn {
  /** 1-based place among the session's turns. */
  number: number;
  startedAt: string;
  /** The `trace_id`s of the turn, oldest first: one per model call, and one per continuation. */
  traceIds: string[];
  /** Whether the turn starts with the user's prompt (false for a compatible request of results). */
  prompted: boolean;
  /** Index of the prompt in the session's messages; null when the trace does not say. */
  prompt: number | null;
  /** Indexes of the replies recorded in the turn, in the session's messages. */
  replies: number[];
  /** Each model call that chose a model, in order. */
  calls: TurnDecision[];
  /** Each tool call, once, with its latest status. */
  tools: ToolCall[];
  steps: TurnStep[];
  /** Exact sum of the priced calls' costs (USD); null when no call was priced. */
  cost: string | null;
  /** Calls whose cost the trace does not give (a model without prices, or a sealed payload). */
  unpriced: number;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Events whose payload is sealed. */
  sealed: number;
  approvals: TurnDecision["approvals"];
}

export interface TurnOptions {
  /** Every model call is a turn of its own: a compatible-API session (see `callPerTurn`). */
  callPerTurn?: boolean;
}

/** Whether a session's turns are one model call each: it was made by a compatible surface. */
export function callPerTurn(
  session: { metadata?: Fields } | null | undefined,
): boolean {
  return typeof session?.metadata?.surface === "string";
}

const plaintext = (e: TraceEvent): Fields | null =>
  "plaintext" in e.payload ? e.payload.plaintext as Fields : null;

/** The user's prompt: a message of role `user`; sealed, a message no model wrote. */
function isPrompt(e: TraceEvent): boolean {
  if (e.event_type !== "message") return false;
  const p = plaintext(e);
  return p === null ? e.provider === null : p.role === "user";
}

interface Building extends Turn {
  byCall: Map<string, ToolCall>;
  spends: TurnDecision["spends"];
}

function newTurn(e: TraceEvent, prompted: boolean): Building {
  return {
    number: 0,
    startedAt: e.created_at,
    traceIds: [],
    prompted,
    prompt: null,
    replies: [],
    calls: [],
    tools: [],
    steps: [],
    cost: null,
    unpriced: 0,
    inputTokens: null,
    outputTokens: null,
    sealed: 0,
    approvals: [],
    byCall: new Map(),
    spends: [],
  };
}

function noteMessage(turn: Turn, e: TraceEvent): void {
  const p = plaintext(e);
  if (typeof p?.seq !== "number" || p.seq < 1) return;
  if (p.role === "user") turn.prompt ??= p.seq - 1;
  else if (p.role === "assistant") turn.replies.push(p.seq - 1);
}

/** A tool call event: a new step, or the next status of a call the turn already shows. */
function noteToolCall(
  turn: Building,
  e: TraceEvent,
  asked: Map<string, ToolCall>,
): void {
  const seen = toolCallOf(plaintext(e));
  const known = seen.callId === "" ? undefined : turn.byCall.get(seen.callId);
  if (known !== undefined) {
    if (seen.status !== "") known.status = seen.status;
    return;
  }
  // A result of a call asked in an earlier turn (a compatible request brings its client's results).
  const earlier = asked.get(seen.callId);
  const tool = earlier === undefined || seen.arguments !== null ? seen : {
    ...seen,
    name: seen.name === "tool" ? earlier.name : seen.name,
    arguments: earlier.arguments,
    label: toolCallLabel(
      seen.name === "tool" ? earlier.name : seen.name,
      earlier.arguments,
    ),
  };
  turn.tools.push(tool);
  turn.steps.push({ kind: "tool_call", tool });
  if (tool.callId !== "") {
    turn.byCall.set(tool.callId, tool);
    if (!asked.has(tool.callId)) asked.set(tool.callId, { ...tool });
  }
}

function total(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}

function finish(turn: Building, number: number): Turn {
  const { byCall: _, spends, ...done } = turn;
  const priced = spends.map((s) => s.cost).filter((c): c is string => c !== null);
  return {
    ...done,
    number,
    cost: priced.length === 0 ? null : sumDecimals(priced),
    unpriced: spends.length - priced.length,
    inputTokens: total(spends.map((s) => s.inputTokens)),
    outputTokens: total(spends.map((s) => s.outputTokens)),
  };
}

/** The turns of `events` (a session's whole trace, oldest first). */
export function sessionTurns(
  events: readonly TraceEvent[],
  options: TurnOptions = {},
): Turn[] {
  const calls = new Map(replayTurns(events).map((c) => [c.traceId, c]));
  const groups = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const id = e.trace_id ?? "";
    const group = groups.get(id);
    if (group === undefined) groups.set(id, [e]);
    else group.push(e);
  }
  const turns: Building[] = [];
  const asked = new Map<string, ToolCall>();
  let turn: Building | undefined;
  for (const [id, group] of groups) {
    const prompted = group.some(isPrompt);
    if (turn === undefined || prompted || options.callPerTurn === true) {
      turns.push(turn = newTurn(group[0], prompted));
    }
    const current = turn;
    const call = calls.get(id)!;
    current.traceIds.push(id);
    current.sealed += call.sealed;
    current.spends.push(...call.spends);
    current.approvals.push(...call.approvals);
    let placed = false;
    // The call's step goes where its decision begins: tool events before it answer earlier calls.
    const place = () => {
      if (placed || call.choices.length === 0) return;
      placed = true;
      current.calls.push(call);
      current.steps.push({
        kind: "model_call",
        call,
        place: current.calls.length,
      });
    };
    for (const e of group) {
      if (
        e.event_type === "classification" || e.event_type === "routing_decision"
      ) place();
      else if (e.event_type === "message") noteMessage(current, e);
      else if (e.event_type === "tool_call") noteToolCall(current, e, asked);
    }
    place();
  }
  return turns
    .filter((t) => t.prompted || t.calls.length > 0)
    .map((t, i) => finish(t, i + 1));
}

/**
 * Where each turn shows among the session's messages (`roles`, oldest first): at its last
 * message, the reply that ended it or, while it waits, its prompt. Without readable message
 * places (a sealed trace), prompts pair in order with the turns that began with one and each
 * takes the replies up to the next prompt. Turns placed nowhere are left out of the map.
 */
export function turnsAtMessages(
  turns: readonly Turn[],
  roles: readonly string[],
): Map<number, Turn> {
  const at = new Map<number, Turn>();
  const readable = turns.some((t) => t.prompt !== null || t.replies.length > 0);
  if (readable) {
    for (const t of turns) {
      const last = Math.max(t.prompt ?? -1, ...t.replies);
      if (last >= 0 && last < roles.length) at.set(last, t);
    }
    return at;
  }
  const prompted = turns.filter((t) => t.prompted);
  let next = 0;
  let anchor: { turn: Turn; index: number } | null = null;
  roles.forEach((role, i) => {
    if (role === "user") {
      if (anchor) at.set(anchor.index, anchor.turn);
      anchor = next < prompted.length ? { turn: prompted[next++], index: i } : null;
    } else if (anchor) anchor.index = i;
  });
  if (anchor !== null) {
    const last = anchor as { turn: Turn; index: number };
    at.set(last.index, last.turn);
  }
  return at;
}
