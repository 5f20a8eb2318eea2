/**
 * What a plaintext run keeps across pauses in `runs.run_input` (interface.md
 * "Run lifecycle": the pending data of each pause survives a restart): the
 * validated turn request, the run's own conversation with the model (assistant
 * replies with their tool calls, tool results, injected messages), and the
 * approvals that hold for the rest of the run. Plain JSON, read back as is.
 */
import type { ToolExchange } from "../core/run_items.ts";
import type { TurnRequest } from "../core/turn_request_types.ts";
import type { ChatMessage, ToolCall } from "../providers/types.ts";

export interface RunInput {
  request: TurnRequest;
  /** The user's own text of the latest step: the prompt, or the joined injected texts. */
  text: string;
  plan_mode: boolean;
  /** Workspace paths the user approved for disclosure in this run. */
  approved_paths: string[];
  cost_limit_approved: boolean;
  /** The run's messages after the prompt, in order; tool call ids are the service's. */
  conversation: ChatMessage[];
  /** Call ids whose `path` is constrained: their results are constrained content. */
  constrained_calls: string[];
}

export function newRunInput(request: TurnRequest): RunInput {
  return {
    request,
    text: request.input.text,
    plan_mode: request.input.command === "plan",
    approved_paths: [],
    cost_limit_approved: false,
    conversation: [],
    constrained_calls: [],
  };
}

/** Reads a stored run input; a row written by an older or foreign writer is a bug. */
export function readRunInput(stored: Record<string, unknown>): RunInput {
  if (typeof stored.request !== "object" || !Array.isArray(stored.conversation)) {
    throw new Error("run input is missing its request or conversation");
  }
  return stored as unknown as RunInput;
}

function callsOf(message: ChatMessage): readonly ToolCall[] {
  return message.role === "assistant" ? message.toolCalls ?? [] : [];
}

/** The run's tool calls with their results so far, for the core's context and routing. */
export function toolExchanges(input: RunInput): ToolExchange[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const m of input.conversation) if (m.role === "tool") results.set(m.callId, m);
  return input.conversation.flatMap(callsOf).map((call) => {
    const result = results.get(call.callId);
    return {
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
      ...(result === undefined ? {} : { result: result.content, is_error: result.isError }),
    };
  });
}

/** Calls of the run that have no result yet (pending at a pause, or cut by a supersede). */
export function unansweredCalls(input: RunInput): ToolCall[] {
  const answered = new Set(
    input.conversation.flatMap((m) => m.role === "tool" ? [m.callId] : []),
  );
  return input.conversation.flatMap(callsOf).filter((c) => !answered.has(c.callId));
}

export const CANCELLED_RESULT = "cancelled: the user superseded this call";

/**
 * Answers every unanswered call as cancelled, so the conversation stays one
 * a provider accepts (each call followed by its result).
 */
export function cancelUnanswered(input: RunInput): ToolCall[] {
  const pending = unansweredCalls(input);
  for (const call of pending) {
    input.conversation.push({
      role: "tool",
      callId: call.callId,
      content: CANCELLED_RESULT,
      isError: true,
    });
  }
  return pending;
}
