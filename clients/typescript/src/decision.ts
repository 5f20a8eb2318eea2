/**
 * Replays the decision behind each model call from a session's trace events (interface.md
 * "Trace"): events are grouped by `trace_id`, the id of one model call (a native run's
 * `continue` makes a new one; `./turns.ts` gathers the calls that answered one prompt into a
 * turn); within a call every model choice starts with a
 * `classification` event, is followed by its `routing_decision` and one `context_selection` per
 * candidate item, and a later `routing_decision` before the next classification records an
 * invocation of that choice that failed, so the next choice is a fallback. Pure: plain data in,
 * plain data out. The console's decision cards and `switchyard why` both read turns through it.
 */
import { toolCallLabel } from "./tool_label.ts";
import type { TraceEvent } from "./types.ts";

type Fields = Record<string, unknown>;

export interface ContextLine {
  kind: string;
  label: string;
  reason: string;
}

export interface Choice {
  intent: string | null;
  /** `explicit` or `inferred`. */
  source: string | null;
  reason: string | null;
  confidence: string | null;
  classificationRule: number | null;
  provider: string | null;
  model: string | null;
  /** The routing rule's name; null when none matched. */
  routingRule: string | null;
  routingReason: string | null;
  effort: string | null;
  fallbackUsed: boolean;
  overrideUsed: boolean;
  included: ContextLine[];
  excluded: ContextLine[];
  /** Why the call to this choice failed, when it did and the turn moved on. */
  failure: string | null;
}

export interface Spend {
  provider: string | null;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Exact decimal string as recorded; null when the model declares no prices. */
  cost: string | null;
}

/** A tool call as the trace tells it: recorded when asked, again when answered or cancelled. */
export interface ToolCall {
  callId: string;
  name: string;
  /** The latest status recorded: `requested`, then `completed`, `failed`, `rejected`, ... */
  status: string;
  /** The arguments the model gave; null where the trace keeps none (an encrypted session). */
  arguments: Record<string, unknown> | null;
  /** `read_file README.md`: the name and what the call touches. */
  label: string;
}

/** One model call: the decision behind it, what it cost and the tool calls recorded with it. */
export interface TurnDecision {
  traceId: string;
  startedAt: string;
  /** Every model choice of the turn, in order: failed ones first, the one that answered last. */
  choices: Choice[];
  spends: Spend[];
  /** Events whose payload is sealed; their readable columns still count above. */
  sealed: number;
  toolCalls: ToolCall[];
  approvals: { target: string; decision: string; reason: string | null }[];
}

const str = (v: unknown): string | null => typeof v === "string" ? v : null;
const num = (v: unknown): number | null => typeof v === "number" ? v : null;

function plaintext(e: TraceEvent): Fields | null {
  return "plaintext" in e.payload ? e.payload.plaintext as Fields : null;
}

function emptyChoice(e: TraceEvent): Choice {
  return {
    intent: e.task_type,
    source: null,
    reason: null,
    confidence: null,
    classificationRule: null,
    provider: e.provider,
    model: e.model,
    routingRule: null,
    routingReason: null,
    effort: null,
    fallbackUsed: false,
    overrideUsed: false,
    included: [],
    excluded: [],
    failure: null,
  };
}

function emptyTurn(e: TraceEvent): TurnDecision {
  return {
    traceId: e.trace_id ?? "",
    startedAt: e.created_at,
    choices: [],
    spends: [],
    sealed: 0,
    toolCalls: [],
    approvals: [],
  };
}

function classify(choice: Choice, e: TraceEvent, p: Fields | null): void {
  choice.intent = str(p?.intent) ?? e.task_type;
  choice.source = str(p?.source);
  choice.reason = str(p?.reason);
  choice.confidence = str(p?.confidence);
  choice.classificationRule = num(p?.matched_rule ?? e.matched_rule);
}

function route(choice: Choice, e: TraceEvent, p: Fields | null): void {
  choice.provider = str(p?.provider) ?? e.provider;
  choice.model = str(p?.model) ?? e.model;
  choice.routingRule = typeof e.matched_rule === "string" ? e.matched_rule : null;
  choice.routingReason = str(p?.reason);
  choice.effort = str(p?.effort);
  choice.fallbackUsed = p?.fallback_used === true;
  choice.overrideUsed = p?.override_used === true;
}

function addContext(choice: Choice, p: Fields | null): void {
  if (p === null) return;
  const line = {
    kind: str(p.kind) ?? "item",
    label: str(p.label) ?? str(p.path) ?? "",
    reason: str(p.reason) ?? "",
  };
  (p.included === true ? choice.included : choice.excluded).push(line);
}

export function toolCallOf(p: Fields | null): ToolCall {
  const name = str(p?.tool_name) || "tool";
  const args = p?.arguments;
  const known = typeof args === "object" && args !== null && !Array.isArray(args)
    ? args as Record<string, unknown>
    : null;
  return {
    callId: str(p?.call_id) ?? "",
    name,
    status: str(p?.status) ?? "",
    arguments: known,
    label: toolCallLabel(name, known),
  };
}

/** The model calls of `events` (oldest first), each with its decisions replayed. */
export function replayTurns(events: readonly TraceEvent[]): TurnDecision[] {
  const turns = new Map<string, TurnDecision>();
  // Where the turn stands: after a choice's routing_decision, another one records its failure.
  const routed = new Map<string, boolean>();
  for (const e of events) {
    const id = e.trace_id ?? "";
    let turn = turns.get(id);
    if (!turn) turns.set(id, turn = emptyTurn(e));
    const p = plaintext(e);
    if (p === null) turn.sealed++;
    const current = turn.choices.at(-1);
    switch (e.event_type) {
      case "classification": {
        const choice = emptyChoice(e);
        classify(choice, e, p);
        turn.choices.push(choice);
        routed.set(id, false);
        break;
      }
      case "routing_decision": {
        if (current && routed.get(id)) {
          current.failure = str(p?.reason) ?? "the call failed";
        } else {
          const choice = current ?? emptyChoice(e);
          if (!current) turn.choices.push(choice);
          route(choice, e, p);
          routed.set(id, true);
        }
        break;
      }
      case "context_selection":
        if (current) addContext(current, p);
        break;
      case "cost":
        turn.spends.push({
          provider: str(p?.provider) ?? e.provider,
          model: str(p?.model) ?? e.model,
          inputTokens: num(p?.input_tokens),
          outputTokens: num(p?.output_tokens),
          cost: str(p?.cost),
        });
        break;
      case "tool_call":
        turn.toolCalls.push(toolCallOf(p));
        break;
      case "approval":
        turn.approvals.push({
          target: `${str(p?.target_type) ?? "approval"} ${str(p?.target_id) ?? ""}`.trim(),
          decision: str(p?.decision) ?? "",
          reason: str(p?.reason),
        });
        break;
    }
  }
  return [...turns.values()];
}

/** The fallbacks a turn took: each failed or skipped candidate and why. */
export function fallbacksTaken(turn: TurnDecision): { model: string; why: string }[] {
  const taken = turn.choices
    .filter((c) => c.failure !== null)
    .map((c) => ({ model: `${c.provider}/${c.model}`, why: c.failure! }));
  const last = turn.choices.at(-1);
  // The router's own reason names candidates it skipped: "(fallback 1: x unavailable: why)".
  const skipped = /\(fallback \d+: (\S+) unavailable: ([^)]*)\)/.exec(last?.routingReason ?? "");
  if (skipped && !taken.some((t) => t.model === skipped[1])) {
    taken.push({ model: skipped[1], why: `unavailable: ${skipped[2]}` });
  }
  return taken;
}

/**
 * The turn behind each assistant message, by the message's index: the turn whose `message` event
 * names the message's place (`seq`, 1 for the first); when those payloads are sealed, the
 * replies pair in order with the turns that chose a model.
 */
export function turnsByMessage(
  events: readonly TraceEvent[],
  turns: readonly TurnDecision[],
  roles: readonly string[],
): Map<number, TurnDecision> {
  const byId = new Map(turns.map((t) => [t.traceId, t]));
  const paired = new Map<number, TurnDecision>();
  for (const e of events) {
    const seq = plaintext(e)?.seq;
    const turn = byId.get(e.trace_id ?? "");
    if (e.event_type !== "message" || typeof seq !== "number" || !turn) continue;
    if (roles[seq - 1] === "assistant" && turn.choices.length > 0) paired.set(seq - 1, turn);
  }
  if (paired.size > 0) return paired;
  const deciding = turns.filter((t) => t.choices.length > 0);
  let next = 0;
  roles.forEach((role, i) => {
    if (role === "assistant" && next < deciding.length) paired.set(i, deciding[next++]);
  });
  return paired;
}
