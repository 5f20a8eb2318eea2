/**
 * A turn's answer in OpenAI's Chat Completions shapes (decisions.md §12): the
 * buffered `chat.completion`, the streamed `chat.completion.chunk`s (one `id`,
 * the role first, `finish_reason` only on the last choice chunk, tool-call
 * deltas indexed from 0, the usage chunk with `choices: []` when asked, then
 * `[DONE]`), and the error object. A failure after output began is a chunk
 * with `error` and the stream ends without `[DONE]`.
 */
import type { Failure } from "../core/errors.ts";
import type { TurnEvent } from "../core/turn_stream_events.ts";
import type { TurnSurface } from "../engine/respond.ts";
import type { ModelAnswer } from "../engine/turn_context.ts";
import { surfaceError } from "../http/error_response.ts";
import { SSE_HEADERS } from "../http/sse.ts";
import type { StopReason } from "../providers/types.ts";
import { answerOf, interruptedTurn, streamFailure } from "./request_fields.ts";

const FINISH: Record<StopReason, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  max_tokens: "length",
  refused: "content_filter",
  other: "stop",
};

function finishReason(answer: ModelAnswer): string {
  // Some servers say "stop" after tool calls; a client's loop looks for "tool_calls".
  if (answer.toolCalls.length > 0) return "tool_calls";
  return FINISH[answer.stopReason ?? "stop"];
}

function usageOf(answer: ModelAnswer) {
  const prompt = answer.inputTokens ?? 0;
  const completion = answer.outputTokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    // The part of prompt_tokens read from the provider's cache, as OpenAI reports it.
    prompt_tokens_details: { cached_tokens: answer.cacheReadTokens ?? 0 },
  };
}

function errorObject(failure: Failure) {
  const path = failure.details?.path;
  return {
    message: failure.message,
    type: surfaceError("openai", failure.code).type,
    param: typeof path === "string" ? path : null,
    code: failure.code,
  };
}

/**
 * An error before any answer: OpenAI's error object with the status OpenAI
 * would answer (error_response.ts); the handler adds the request id header.
 */
export function openAiError(failure: Failure, _nativeStatus?: number): Response {
  return new Response(JSON.stringify({ error: errorObject(failure) }), {
    status: surfaceError("openai", failure.code).status,
    headers: { "content-type": "application/json" },
  });
}

const encoder = new TextEncoder();
const frame = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
const DONE = "data: [DONE]\n\n";
const KEEP_ALIVE = ": keep-alive\n\n";

function routerHeaders(sessionId: string, turnId: string): Record<string, string> {
  return { "x-router-session-id": sessionId, "x-router-trace-id": turnId };
}

/** The OpenAI surface of one request: `created` is the request's second. */
export function openAiSurface(
  o: { sessionId: string; created: number; includeUsage: boolean },
): TurnSurface {
  const interrupted = interruptedTurn(o.sessionId);
  return {
    answer(result, turnId) {
      const answer = answerOf(result, interrupted);
      const message = {
        role: "assistant",
        content: answer.toolCalls.length > 0 && answer.text === "" ? null : answer.text,
        refusal: null,
        ...(answer.toolCalls.length === 0 ? {} : {
          tool_calls: answer.toolCalls.map((c) => ({
            id: c.callId,
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        }),
      };
      return new Response(
        JSON.stringify({
          id: `chatcmpl-${turnId}`,
          object: "chat.completion",
          created: o.created,
          model: `${answer.provider}/${answer.model}`,
          choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer) }],
          usage: usageOf(answer),
        }),
        {
          status: 200,
          headers: { "content-type": "application/json", ...routerHeaders(o.sessionId, turnId) },
        },
      );
    },
    framing(turnId) {
      const id = `chatcmpl-${turnId}`;
      let model = "";
      let roleSent = false;
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
        id,
        object: "chat.completion.chunk",
        created: o.created,
        model,
        choices,
        ...(o.includeUsage ? { usage: null } : {}),
        ...extra,
      });
      const delta = (d: Record<string, unknown>, finish: string | null = null) =>
        chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
      /** The role goes first, with the first content: a fallback before it shows nothing. */
      const opening = (): string => {
        if (roleSent) return "";
        roleSent = true;
        return `data: ${JSON.stringify(delta({ role: "assistant", content: "" }))}\n\n`;
      };
      return {
        frame(event: TurnEvent) {
          switch (event.type) {
            case "call_started":
              model = `${event.provider}/${event.model}`;
              return null;
            case "text_delta":
              return encoder.encode(
                opening() + `data: ${JSON.stringify(delta({ content: event.delta }))}\n\n`,
              );
            case "call_tool":
              return encoder.encode(
                opening() + `data: ${
                  JSON.stringify(delta({
                    tool_calls: [{
                      index: event.index,
                      id: event.call_id,
                      type: "function",
                      function: { name: event.name, arguments: JSON.stringify(event.arguments) },
                    }],
                  }))
                }\n\n`,
              );
            default:
              return null;
          }
        },
        keepAlive: () => encoder.encode(KEEP_ALIVE),
        last(result) {
          if (result.kind !== "answer") {
            const failure = streamFailure(result, interrupted);
            return frame({ error: errorObject(failure) });
          }
          const answer = result.answer;
          model ||= `${answer.provider}/${answer.model}`;
          const parts = [opening(), `data: ${JSON.stringify(delta({}, finishReason(answer)))}\n\n`];
          if (o.includeUsage) {
            parts.push(`data: ${JSON.stringify(chunk([], { usage: usageOf(answer) }))}\n\n`);
          }
          return encoder.encode(parts.join("") + DONE);
        },
      };
    },
    streamHeaders: (turnId) => ({ ...SSE_HEADERS, ...routerHeaders(o.sessionId, turnId) }),
    opensWithContent: true,
    interrupted,
  };
}
