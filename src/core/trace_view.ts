/**
 * How a session's trace is shown (interface.md, Trace; decisions.md §7, §8):
 * `{ trace: { session_id, events } }`, events oldest first, each with the
 * `trace_id` of its turn. A plaintext payload carries `type` equal to the
 * event type (set here, so a recorder cannot get it wrong); an encrypted one is
 * `{ encrypted: <envelope> }` exactly as the client sealed it.
 */
import { fail, ok, type Outcome } from "./errors.ts";

export interface TraceEventRecord {
  trace_id: string;
  event_type: string;
  task_type: string | null;
  provider: string | null;
  model: string | null;
  /** undefined: the event has no `matched_rule`; null: no rule matched. */
  matched_rule?: string | number | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

export type TracePayload =
  | { plaintext: Record<string, unknown> }
  | { encrypted: Record<string, unknown> };

export interface TraceEvent {
  event_type: string;
  task_type: string | null;
  provider: string | null;
  model: string | null;
  matched_rule?: string | number | null;
  created_at: string;
  payload: TracePayload;
  trace_id: string;
}

export interface TraceView {
  trace: { session_id: string; events: TraceEvent[] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function tracePayload(
  eventType: string,
  stored: Record<string, unknown>,
): TracePayload {
  if (isObject(stored.encrypted)) return { encrypted: stored.encrypted };
  const plaintext = isObject(stored.plaintext) ? stored.plaintext : {};
  return { plaintext: { ...plaintext, type: eventType } };
}

export function traceEvent(e: TraceEventRecord): TraceEvent {
  return {
    event_type: e.event_type,
    task_type: e.task_type,
    provider: e.provider,
    model: e.model,
    ...(e.matched_rule === undefined ? {} : { matched_rule: e.matched_rule }),
    created_at: e.created_at.toISOString(),
    payload: tracePayload(e.event_type, e.payload),
    trace_id: e.trace_id,
  };
}

export function traceView(sessionId: string, events: readonly TraceEventRecord[]): TraceView {
  return { trace: { session_id: sessionId, events: events.map(traceEvent) } };
}

export interface TraceWindow {
  limit: number;
  offset: number;
}

export const DEFAULT_TRACE_LIMIT = 50;

/**
 * The most events one page holds, whatever `limit` asks: a trace grows without
 * end, and a page is read, built and sent whole.
 */
export const MAX_TRACE_LIMIT = 1000;

/**
 * `limit` (default 50) and `offset` (default 0) from the query: each must be
 * an integer ≥ 0 written in digits, else 400 `invalid_request` (decisions.md
 * §2). A valid `limit` above MAX_TRACE_LIMIT is clamped to it, not refused:
 * `limit` is the most events returned (interface.md), and decisions.md §2
 * refuses only what is not an integer ≥ 0. An offset beyond the trace's length
 * gives an empty page.
 */
export function traceWindow(
  query: { limit: string | null; offset: string | null },
): Outcome<TraceWindow> {
  const limit = count("limit", query.limit, DEFAULT_TRACE_LIMIT);
  if (!limit.ok) return limit;
  const offset = count("offset", query.offset, 0);
  if (!offset.ok) return offset;
  return ok({ limit: Math.min(limit.value, MAX_TRACE_LIMIT), offset: offset.value });
}

function count(name: string, raw: string | null, fallback: number): Outcome<number> {
  if (raw === null) return ok(fallback);
  if (!/^[0-9]+$/.test(raw)) {
    return fail(
      "invalid_request",
      `invalid ${name}: expected an integer >= 0, got "${raw}"`,
      { parameter: name },
    );
  }
  return ok(Math.min(Number(raw), Number.MAX_SAFE_INTEGER));
}
