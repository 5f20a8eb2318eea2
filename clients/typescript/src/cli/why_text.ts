/**
 * `switchyard why` for a person: the decision of one turn, replayed from its
 * trace (`../decision.ts`, the replay the console shows), as labelled lines:
 * how the prompt was classified, how the model was routed, the fallbacks and
 * why, the context sent and left out, tokens and cost. Pure: data in, text out.
 */
import { type Choice, type ContextLine, fallbacksTaken, type TurnDecision } from "../decision.ts";

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

function spend(turn: TurnDecision): string[] {
  if (turn.spends.length === 0) return field("tokens", "(no usage recorded)");
  const count = (n: number | null) => n === null ? "?" : String(n);
  const lines = turn.spends.map((s) =>
    `${count(s.inputTokens)} in, ${count(s.outputTokens)} out, ${
      s.cost === null ? "no price" : `${s.cost} USD`
    } (${s.provider ?? "?"}/${s.model ?? "?"})`
  );
  return field("tokens", lines[0], lines.slice(1));
}

/** The turn's decision; `place` is its 1-based number among `total` turns. */
export function whyText(
  turn: TurnDecision,
  place: number,
  total: number,
): string {
  const chosen = turn.choices.at(-1);
  const lines = [
    `turn ${place} of ${total} · trace ${turn.traceId} · ${turn.startedAt}`,
  ];
  if (chosen === undefined) {
    lines.push("no model was chosen in this turn");
  } else {
    lines.push(...classification(chosen), ...routing(chosen));
    const fallbacks = fallbacksTaken(turn).map((f) => `${f.model}: ${f.why}`);
    lines.push(
      ...field("fallbacks", fallbacks[0] ?? "none", fallbacks.slice(1)),
    );
    lines.push(...context(chosen));
  }
  lines.push(...spend(turn));
  if (turn.toolCalls.length > 0) {
    const calls = turn.toolCalls.map((t) => `${t.name} ${t.status}`.trim());
    lines.push(...field("tools", calls[0], calls.slice(1)));
  }
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

/** `--json`: the replayed turn with its place and the fallbacks spelled out. */
export function whyData(turn: TurnDecision, place: number, total: number) {
  return { turn: place, of: total, ...turn, fallbacks: fallbacksTaken(turn) };
}
