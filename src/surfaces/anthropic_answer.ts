/**
 * A turn's answer in Anthropic's Messages shapes (decisions.md §12): the
 * buffered `message`, and the streamed events `message_start` (with the input
 * usage) … content blocks … `message_delta` (with the output usage) and
 * `message_stop`. The stream opens with the first content, so a fallback
 * before it shows nothing; a failure after it is an `error` event and the
 * stream ends without `message_stop`.
 */
import type { Failure } from "../core/errors.ts";
import type { TurnEvent } from "../core/turn_stream_events.ts";
import type { TurnSurface } from "../engine/respond.ts";
import type { ModelAnswer } from "../engine/turn_context.ts";
import { surfaceError } from "../http/error_response.ts";
import { SSE_HEADERS } from "../http/sse.ts";
import type { StopReason } from "../providers/types.ts";
import { answerOf, interruptedTurn, streamFailure } from "./request_fields.ts";

const STOP: Record<StopReason, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  max_tokens: "max_tokens",
  refused: "refusal",
  other: "end_turn",
};

function stopReason(answer: ModelAnswer): string {
  if (answer.toolCalls.length > 0) return "tool_use";
  return STOP[answer.stopReason ?? "stop"];
}

/**
 * Anthropic's usage: `input_tokens` is the uncached rest of the prompt, beside
 * what was read from and written to the cache (decisions.md §15).
 */
function usageOf(answer: ModelAnswer) {
  const read = answer.cacheReadTokens ?? 0;
  const write = answer.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (answer.inputTokens ?? 0) - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: answer.outputTokens ?? 0,
  };
}

function errorOf(failure: Failure) {
  return { type: surfaceError("anthropic", failure.code).type, message: failure.message };
}

/**
 * An error before any answer: Anthropic's error shape with the status
 * Anthropic would answer (error_response.ts), and the request's id in the
 * body as in its `request-id` header (which the handler adds).
 */
export function anthropicError(
  failure: Failure,
  _nativeStatus?: number,
  requestId?: string,
): Response {
  const body = {
    type: "error",
    error: errorOf(failure),
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
  return new Response(JSON.stringify(body), {
    status: surfaceError("anthropic", failure.code).status,
    headers: { "content-type": "application/json" },
  });
}

const encoder = new TextEncoder();
const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function routerHeaders(sessionId: string, turnId: string): Record<string, string> {
  return { "x-router-session-id": sessionId, "x-router-trace-id": turnId };
}

export function anthropicSurface(o: { sessionId: string }): TurnSurface {
  const interrupted = interruptedTurn(o.sessionId);
  return {
    answer(result, turnId) {
      const answer = answerOf(result, interrupted);
      const content = [
        ...(answer.text === "" && answer.toolCalls.length > 0
          ? []
          : [{ type: "text", text: answer.text }]),
        ...answer.toolCalls.map((c) => ({
          type: "tool_use",
          id: c.callId,
          name: c.name,
          input: c.arguments,
        })),
      ];
      return new Response(
        JSON.stringify({
          id: `msg_${turnId}`,
          type: "message",
          role: "assistant",
          model: `${answer.provider}/${answer.model}`,
          content,
          stop_reason: stopReason(answer),
          stop_sequence: null,
          usage: usageOf(answer),
        }),
        {
          status: 200,
          headers: { "content-type": "application/json", ...routerHeaders(o.sessionId, turnId) },
        },
      );
    },
    framing(turnId) {
      let model = "";
      let inputTokens = 0;
      let started = false;
      /** The open block: its index and kind; -1 before the first. */
      let index = -1;
      let open: "text" | "tool_use" | null = null;
      const opening = (): string => {
        if (started) return "";
        started = true;
        return event("message_start", {
          message: {
            id: `msg_${turnId}`,
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            // What the cache holds is known only when the call ends: message_delta says it.
            usage: {
              input_tokens: inputTokens,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              output_tokens: 0,
            },
          },
        });
      };
      const close = (): string => {
        if (open === null) return "";
        open = null;
        return event("content_block_stop", { index });
      };
      return {
        frame(e: TurnEvent) {
          switch (e.type) {
            case "call_started":
              model = `${e.provider}/${e.model}`;
              inputTokens = e.input_tokens;
              return null;
            case "text_delta": {
              let out = opening();
              if (open !== "text") {
                out += close();
                open = "text";
                index++;
                out += event("content_block_start", {
                  index,
                  content_block: { type: "text", text: "" },
                });
              }
              out += event("content_block_delta", {
                index,
                delta: { type: "text_delta", text: e.delta },
              });
              return encoder.encode(out);
            }
            case "call_tool": {
              let out = opening() + close();
              index++;
              open = "tool_use";
              out += event("content_block_start", {
                index,
                content_block: { type: "tool_use", id: e.call_id, name: e.name, input: {} },
              });
              out += event("content_block_delta", {
                index,
                delta: { type: "input_json_delta", partial_json: JSON.stringify(e.arguments) },
              });
              return encoder.encode(out);
            }
            default:
              return null;
          }
        },
        keepAlive: () => encoder.encode(": keep-alive\n\n"),
        last(result) {
          if (result.kind !== "answer") {
            const failure = streamFailure(result, interrupted);
            return encoder.encode(
              event("error", { error: errorOf(failure) }),
            );
          }
          const answer = result.answer;
          model ||= `${answer.provider}/${answer.model}`;
          return encoder.encode(
            opening() + close() +
              event("message_delta", {
                delta: { stop_reason: stopReason(answer), stop_sequence: null },
                usage: usageOf(answer),
              }) +
              event("message_stop", {}),
          );
        },
      };
    },
    streamHeaders: (turnId) => ({ ...SSE_HEADERS, ...routerHeaders(o.sessionId, turnId) }),
    opensWithContent: true,
    interrupted,
  };
}
