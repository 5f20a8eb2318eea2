/**
 * `switchyard trace` for a person: one row per event (its place, time, kind,
 * model and the few fields that say what happened), grouped under the model
 * call that recorded it and the turn (the prompt) that call answered. Pure:
 * events in, text out.
 */
import { toolCallLabel } from "../tool_label.ts";
import type { Turn } from "../turns.ts";
import type { TraceEvent } from "../types.ts";

type Fields = Record<string, unknown>;

const str = (v: unknown) =>
  typeof v === "string" ? v : v === null || v === undefined ? "" : String(v);

/**
 * The cached part of a call's input, as the reports give it (counts shown
 * only when non-zero): ` (4200 read from cache, 1840 written to cache)`, or nothing.
 */
export function cacheText(
  c: { cache_read_tokens?: unknown; cache_write_tokens?: unknown },
): string {
  const parts = [
    typeof c.cache_read_tokens === "number" ? `${c.cache_read_tokens} read from cache` : "",
    typeof c.cache_write_tokens === "number" ? `${c.cache_write_tokens} written to cache` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** What the row says about an event: the fields a reader looks for first, per kind. */
export function eventSummary(e: TraceEvent): string {
  if ("encrypted" in e.payload) {
    return `(sealed with key ${e.payload.encrypted.key_id})`;
  }
  const p = e.payload.plaintext as Fields;
  switch (e.event_type) {
    case "message":
      return `${str(p.role)} message ${str(p.seq)}`.trim();
    case "classification": {
      const how = [p.source, p.confidence && `${p.confidence} confidence`]
        .filter(Boolean);
      return `${str(p.intent)}${how.length ? ` (${how.join(", ")})` : ""}: ${str(p.reason)}`;
    }
    case "routing_decision": {
      const effort = typeof p.effort === "string" ? ` [effort ${p.effort}]` : "";
      return `${str(p.reason)}${effort}`;
    }
    case "context_selection":
      return `${p.included === true ? "+" : "-"} ${str(p.kind)} ${str(p.label)}: ${str(p.reason)}`;
    case "cost": {
      const cost = typeof p.cost === "string" ? `, ${p.cost} USD` : ", no price";
      const input = `${str(p.input_tokens) || "?"} in${cacheText(p)}`;
      return `${input}, ${str(p.output_tokens) || "?"} out${cost}`;
    }
    case "tool_call": {
      const args = p.arguments;
      const known = typeof args === "object" && args !== null && !Array.isArray(args)
        ? args as Fields
        : null;
      return `${toolCallLabel(str(p.tool_name) || "tool", known)} ${str(p.status)}`;
    }
    case "approval": {
      const reason = typeof p.reason === "string" ? `: ${p.reason}` : "";
      return `${str(p.target_type)} ${str(p.decision)}${reason}`;
    }
    default: {
      const { type: _, ...rest } = p;
      return JSON.stringify(rest);
    }
  }
}

const HEADINGS = ["#", "time", "kind", "model", "what"] as const;

/** `turn 2 · model call 1 of 2 · trace <id>` for each trace id of `turns`. */
function headings(turns: readonly Turn[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const turn of turns) {
    let call = 0;
    for (const id of turn.traceIds) {
      const chose = turn.calls.some((c) => c.traceId === id);
      if (chose) call++;
      const what = chose ? `model call ${call} of ${turn.calls.length}` : "continued";
      named.set(id, `turn ${turn.number} · ${what} · trace ${id}`);
    }
  }
  return named;
}

/**
 * The table; `first` numbers the rows from where the page starts (1 for the first event).
 * With the session's `turns` (read from its whole trace), each group of rows is headed by the
 * turn and model call it belongs to; without, by its trace id alone.
 */
export function traceTable(
  events: readonly TraceEvent[],
  first = 1,
  turns: readonly Turn[] = [],
): string {
  const named = headings(turns);
  if (events.length === 0) return "no trace events\n";
  const rows = events.map((e, i) => [
    String(first + i),
    // The time of day in UTC to the millisecond: a turn's events are milliseconds apart.
    e.created_at.slice(11, 23),
    e.event_type,
    e.provider === null ? "-" : `${e.provider}/${e.model ?? "?"}`,
    eventSummary(e),
  ]);
  const widths = HEADINGS.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => c === cells.length - 1 ? cell : cell.padEnd(widths[c])).join("  ")
      .trimEnd();
  const out = [line(HEADINGS)];
  let turn: string | undefined;
  events.forEach((e, i) => {
    const id = e.trace_id ?? "";
    if (id !== turn) {
      out.push(
        `-- ${named.get(id) ?? `trace ${id || "(no id)"}`} · ${e.created_at.slice(0, 10)}`,
      );
      turn = id;
    }
    out.push(line(rows[i]));
  });
  return `${out.join("\n")}\n`;
}
