/**
 * `switchyard why` for a person: one turn (a prompt and everything that answered it, read by
 * `../turns.ts`, the replay the console shows), as labelled lines: each model call in order with
 * how it was classified and routed, the fallbacks and why, the context sent and left out and its
 * tokens and cost; the tool calls between them; the turn's total. Pure: data in, text out.
 */
import {
  type Choice,
  type ContextLine,
  fallbacksTaken,
  type ToolCall,
  type TurnDecision,
} from "../decision.ts";
import type { Turn } from "../turns.ts";

const LABEL = 11;
const field = (label: string, first: string, more: string[] = []) => [
  `${`${label}:`.padEnd(LABEL)} ${first}`,
  ...more.map((line) => `${" ".repeat(LABEL)} ${line}`),
];

function classification(c: Choice): string[] {
  const how = [
    c.source,
    c.confidence && `${c.confidence} confidence`,
    c.classificationRule !== null &&
    `classification rule ${c.classificationRule}`,
  ].filter(Boolean);
  return field(
    "intent",
    `${c.intent ?? "?"}${how.length ? ` (${how.join(", ")})` : ""}`,
    c.reason ? [c.reason] : [],
  );
}

function routing(c: Choice): string[] {
  const by = c.overrideUsed
    ? "model override"
    : c.routingRule !== null
    ? `rule '${c.routingRule}'`
    : "default route";
  const parts = [
    by,
    c.fallbackUsed && "fallback",
    c.effort && `effort ${c.effort}`,
  ].filter(
    Boolean,
  );
  return [
    ...field("model", `${c.provider ?? "?"}/${c.model ?? "?"}`),
    ...field(
      "routing",
      parts.join(", "),
      c.routingReason ? [c.routingReason] : [],
    ),
  ];
}

const contextLine = (mark: string, l: ContextLine) =>
  `${mark} ${l.kind} ${l.label}${l.reason ? ` (${l.reason})` : ""}`;

function context(c: Choice): string[] {
  const lines = [
    ...c.included.map((l) => contextLine("+", l)),
    ...c.excluded.map((l) => contextLine("-", l)),
  ];
  return lines.length === 0 ? field("context", "(nothing selected)") : field(
    "context",
    lines[0],
    lines.slice(1),
  );
}

function spend(call: TurnDecision): string[] {
  if (call.spends.length === 0) return field("tokens", "(no usage recorded)");
  const lines = call.spends.map((s) =>
    `${count(s.inputTokens)} in, ${count(s.outputTokens)} out, ${
      s.cost === null ? "no price" : `${s.cost} USD`
    } (${s.provider ?? "?"}/${s.model ?? "?"})`
  );
  return field("tokens", lines[0], lines.slice(1));
}

const count = (n: number | null) => n === null ? "?" : String(n);
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** One model call: how it was classified and routed, its fallbacks, context and tokens. */
function modelCall(call: TurnDecision, place: number, of: number): string[] {
  const chosen = call.choices.at(-1)!;
  const fallbacks = fallbacksTaken(call).map((f) => `${f.model}: ${f.why}`);
  return [
    `model call ${place} of ${of} · trace ${call.traceId}`,
    ...classification(chosen),
    ...routing(chosen),
    ...field("fallbacks", fallbacks[0] ?? "none", fallbacks.slice(1)),
    ...context(chosen),
    ...spend(call),
  ];
}

const toolLine = (t: ToolCall) => `${t.label}${t.status ? ` (${t.status})` : ""}`;

/** What the whole turn cost: every call's tokens and the exact sum of their prices. */
function totals(turn: Turn): string[] {
  const cost = turn.cost === null
    ? turn.unpriced > 0 ? "no price" : "nothing spent"
    : `${turn.cost} USD${
      turn.unpriced > 0 ? ` + ${plural(turn.unpriced, "call")} not priced` : ""
    }`;
  return field(
    "total",
    `${count(turn.inputTokens)} in, ${count(turn.outputTokens)} out, ${cost} (${
      plural(turn.calls.length, "model call")
    })`,
  );
}

/**
 * The turn as it was lived: the prompt's model calls in order, each with its decision, the tool
 * calls between them with their arguments, and the turn's total.
 */
export function whyText(turn: Turn, total: number): string {
  const lines = [
    `turn ${turn.number} of ${total} · ${
      plural(turn.calls.length, "model call")
    } · ${turn.startedAt}`,
  ];
  if (turn.calls.length === 0) lines.push("no model was chosen in this turn");
  for (const step of turn.steps) {
    lines.push("");
    if (step.kind === "model_call") {
      lines.push(...modelCall(step.call, step.place, turn.calls.length));
    } else lines.push(...field("tool call", toolLine(step.tool)));
  }
  lines.push("", ...totals(turn));
  if (turn.approvals.length > 0) {
    const approvals = turn.approvals.map((a) =>
      `${a.target}: ${a.decision}${a.reason ? ` (${a.reason})` : ""}`
    );
    lines.push(...field("approvals", approvals[0], approvals.slice(1)));
  }
  if (turn.sealed > 0) {
    lines.push(
      ...field(
        "sealed",
        `${turn.sealed} events are sealed; give the session's key file (--key-file) to read them`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `--json`: the turn with its place, each model call's fallbacks spelled out. */
export function whyData(turn: Turn, total: number) {
  return {
    turn: turn.number,
    of: total,
    startedAt: turn.startedAt,
    traceIds: turn.traceIds,
    cost: turn.cost,
    unpriced: turn.unpriced,
    inputTokens: turn.inputTokens,
    outputTokens: turn.outputTokens,
    steps: turn.steps.map((s) =>
      s.kind === "model_call"
        ? { kind: s.kind, place: s.place, traceId: s.call.traceId }
        : { kind: s.kind, callId: s.tool.callId, label: s.tool.label }
    ),
    calls: turn.calls.map((c) => ({ ...c, fallbacks: fallbacksTaken(c) })),
    tools: turn.tools,
    approvals: turn.approvals,
    sealed: turn.sealed,
  };
}
