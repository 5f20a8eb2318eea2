/**
 * The events of a streamed turn (interface.md "Turn stream events",
 * decisions.md §7): deltas, tool call progress, usage, and exactly one
 * `turn_end` carrying the envelope beside its type. http/sse.ts frames them.
 */
import type { ToolRequest } from "./tool_mediation.ts";
import type { TurnEnvelope, TurnUsage } from "./turn_envelope.ts";

export type TurnStreamEvent =
  | { type: "text_delta"; delta: string }
  | { type: "reasoning_delta"; delta: string }
  | { type: "tool_call_started"; call_id: string; name: string }
  | ({ type: "tool_call_requested" } & ToolRequest)
  | ({ type: "usage" } & TurnUsage)
  | ({ type: "turn_end" } & TurnEnvelope);

/**
 * The progress of a turn of one model call, as the compatible surfaces frame
 * it (OpenAI chunks, Anthropic events); never part of the native stream.
 * Text arrives as `text_delta`.
 */
export type ModelCallEvent =
  | { type: "call_started"; provider: string; model: string; input_tokens: number }
  | {
    type: "call_tool";
    /** The call's position among the reply's calls, from 0. */
    index: number;
    call_id: string;
    name: string;
    arguments: Record<string, unknown>;
  };

/** Every event a turn emits; each surface frames those its stream has a place for. */
export type TurnEvent = TurnStreamEvent | ModelCallEvent;

export const textDelta = (delta: string): Extract<TurnStreamEvent, { type: "text_delta" }> => ({
  type: "text_delta",
  delta,
});

export const reasoningDelta = (delta: string): TurnStreamEvent => ({
  type: "reasoning_delta",
  delta,
});

/** Sent as soon as the name is known; only for calls that will reach the client. */
export const toolCallStarted = (callId: string, name: string): TurnStreamEvent => ({
  type: "tool_call_started",
  call_id: callId,
  name,
});

export function toolCallRequested(request: ToolRequest): TurnStreamEvent {
  return {
    type: "tool_call_requested",
    call_id: request.call_id,
    name: request.name,
    arguments: request.arguments,
    requires_approval: request.requires_approval,
  };
}

export function usageEvent(usage: TurnUsage): TurnStreamEvent {
  return { type: "usage", ...usage };
}

export function turnEnd(envelope: TurnEnvelope): TurnStreamEvent {
  return {
    type: "turn_end",
    status: envelope.status,
    data: envelope.data,
    allowed_continuations: envelope.allowed_continuations,
  };
}

export interface BufferedReply {
  reasoning?: string;
  text: string;
  tool_requests: readonly ToolRequest[];
  usage?: TurnUsage;
}

/**
 * A model that cannot stream still answers over the stream: its complete
 * reply replayed as the same events, ending with `turn_end`.
 */
export function replayEvents(reply: BufferedReply, end: TurnEnvelope): TurnStreamEvent[] {
  const events: TurnStreamEvent[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== "") {
    events.push(reasoningDelta(reply.reasoning));
  }
  if (reply.text !== "") events.push(textDelta(reply.text));
  for (const r of reply.tool_requests) {
    events.push(toolCallStarted(r.call_id, r.name), toolCallRequested(r));
  }
  if (reply.usage !== undefined) events.push(usageEvent(reply.usage));
  events.push(turnEnd(end));
  return events;
}
