/**
 * The native API as a turn surface (interface.md "Turn envelope", "Turn
 * stream events"): a buffered turn answers its envelope as JSON; a streamed
 * one sends its events as `data:` frames and ends with exactly one `turn_end`.
 */
import { errorEnvelope, idleEnvelope, type TurnEnvelope } from "../core/turn_envelope.ts";
import { turnEnd, type TurnEvent, type TurnStreamEvent } from "../core/turn_stream_events.ts";
import type { TurnSurface } from "../engine/respond.ts";
import type { TurnResult } from "../engine/turn_context.ts";
import { jsonResponse } from "./error_response.ts";
import { encodeEvent, keepAliveFrame, SSE_HEADERS } from "./sse.ts";

function envelopeOf(result: TurnResult, turnId: string): TurnEnvelope {
  if (result.kind === "envelope") return result.envelope;
  if (result.kind === "failure") return errorEnvelope(result.failure);
  // A native turn never ends with a bare model answer; superseded answers idle.
  return idleEnvelope(turnId);
}

const NATIVE_EVENTS: ReadonlySet<string> = new Set<TurnStreamEvent["type"]>([
  "text_delta",
  "reasoning_delta",
  "tool_call_started",
  "tool_call_requested",
  "usage",
]);

const NATIVE_FRAMING = {
  frame: (event: TurnEvent) =>
    NATIVE_EVENTS.has(event.type) ? encodeEvent(event as TurnStreamEvent) : null,
  keepAlive: keepAliveFrame,
  last: (result: TurnResult, turnId: string) => encodeEvent(turnEnd(envelopeOf(result, turnId))),
};

export const NATIVE_SURFACE: TurnSurface = {
  answer: (result, turnId) => jsonResponse(envelopeOf(result, turnId)),
  framing: () => NATIVE_FRAMING,
  streamHeaders: () => SSE_HEADERS,
};

/** The native API streams when the client accepts server-sent events. */
export function wantsStream(headers: Headers): boolean {
  return (headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}
