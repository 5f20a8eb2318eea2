/**
 * A turn's answer in OpenAI's Responses API shapes (decisions.md §14): the
 * response object (buffered, stored, and closing a stream), and the stream of
 * semantic events, `sequence_number` from 0: `response.created` and
 * `response.in_progress` with the first content, each output item between
 * `response.output_item.added` and `.done` (the complete item), then
 * `response.completed` or `response.incomplete` with the whole response. A
 * failure after the stream began is `response.failed`, never a clean end.
 * Ids derive from the turn's id, so the stored response, the buffered answer
 * and the stream name the same items.
 */
import type { Failure } from "../core/errors.ts";
import type { TurnEvent } from "../core/turn_stream_events.ts";
import type { TurnSurface } from "../engine/respond.ts";
import type { ModelAnswer, TurnResult } from "../engine/turn_context.ts";
import { SSE_HEADERS } from "../http/sse.ts";
import type { TurnRecords } from "../store/turn_writes.ts";
import { openAiError } from "./openai_answer.ts";
import { answerOf, interruptedTurn, streamFailure } from "./request_fields.ts";
import type { ResponseEcho } from "./responses_request.ts";

type Item = Record<string, unknown>;

/** An error before any answer: OpenAI's error object; invalid input is 400 on this API. */
export function responsesError(failure: Failure, status: number): Response {
  return openAiError(failure, status === 422 ? 400 : status);
}

/** What one request's response repeats and how its items are named. */
export interface ResponseMeta {
  echo: ResponseEcho;
  created: number;
  customTools: ReadonlySet<string>;
  inputItems: readonly Item[];
}

const hexOf = (turnId: string) => turnId.replaceAll("-", "");
export const responseId = (turnId: string) => `resp_${hexOf(turnId)}`;

function usageOf(answer: ModelAnswer) {
  const input = answer.inputTokens ?? 0;
  const output = answer.outputTokens ?? 0;
  return {
    input_tokens: input,
    // The parts of input_tokens read from and written to the provider's cache (decisions.md §15).
    input_tokens_details: {
      cached_tokens: answer.cacheReadTokens ?? 0,
      cache_write_tokens: answer.cacheWriteTokens ?? 0,
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

function messageItem(id: string, text: string, status: string): Item {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress"
      ? []
      : [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

function callItem(
  meta: ResponseMeta,
  turnId: string,
  index: number,
  call: { callId: string; name: string; arguments: Record<string, unknown> },
  status: string,
): Item {
  if (meta.customTools.has(call.name)) {
    const input = typeof call.arguments.input === "string"
      ? call.arguments.input
      : JSON.stringify(call.arguments);
    return {
      id: `ctc_${hexOf(turnId)}_${index}`,
      type: "custom_tool_call",
      status,
      call_id: call.callId,
      name: call.name,
      input: status === "in_progress" ? "" : input,
    };
  }
  return {
    id: `fc_${hexOf(turnId)}_${index}`,
    type: "function_call",
    status,
    call_id: call.callId,
    name: call.name,
    arguments: status === "in_progress" ? "" : JSON.stringify(call.arguments),
  };
}

/** The answer's calls the client takes: with `parallel_tool_calls: false`, the first alone. */
function callsOf(
  meta: ResponseMeta,
  answer: ModelAnswer,
): ModelAnswer["toolCalls"] {
  return meta.echo.parallel_tool_calls ? answer.toolCalls : answer.toolCalls.slice(0, 1);
}

/** The answer's output items: its text (or an empty message when it has nothing else), then its calls. */
export function outputItems(
  meta: ResponseMeta,
  turnId: string,
  answer: ModelAnswer,
): Item[] {
  const text = answer.text !== "" || answer.toolCalls.length === 0
    ? [messageItem(`msg_${hexOf(turnId)}`, answer.text, "completed")]
    : [];
  return [
    ...text,
    ...callsOf(meta, answer).map((c, i) => callItem(meta, turnId, i, c, "completed")),
  ];
}

function outputText(output: readonly Item[]): string {
  return output.flatMap((item) =>
    item.type === "message"
      ? (item.content as Item[]).flatMap((p) => p.type === "output_text" ? [p.text] : [])
      : []
  ).join("");
}

/** The response object, in OpenAI's field order. */
function responseObject(
  meta: ResponseMeta,
  turnId: string,
  state: {
    status: "in_progress" | "completed" | "incomplete" | "failed";
    model: string;
    output: readonly Item[];
    answer?: ModelAnswer;
    error?: { code: string; message: string };
  },
): Item {
  const reason = state.answer?.stopReason === "max_tokens"
    ? "max_output_tokens"
    : state.answer?.stopReason === "refused"
    ? "content_filter"
    : null;
  const e = meta.echo;
  return {
    id: responseId(turnId),
    object: "response",
    created_at: meta.created,
    status: state.status,
    background: false,
    completed_at: state.status === "completed" ? meta.created : null,
    error: state.error ?? null,
    incomplete_details: state.status === "incomplete" && reason !== null ? { reason } : null,
    instructions: e.instructions,
    max_output_tokens: e.max_output_tokens,
    model: state.model,
    output: state.output,
    output_text: outputText(state.output),
    parallel_tool_calls: e.parallel_tool_calls,
    previous_response_id: e.previous_response_id,
    prompt_cache_key: e.prompt_cache_key,
    reasoning: e.reasoning,
    service_tier: e.service_tier,
    store: e.store,
    temperature: e.temperature,
    text: e.text,
    tool_choice: e.tool_choice,
    tools: e.tools,
    top_p: e.top_p,
    truncation: e.truncation,
    ...(state.answer === undefined ? {} : { usage: usageOf(state.answer) }),
    ...(e.user === null ? {} : { user: e.user }),
    metadata: e.metadata,
  };
}

function statusOf(answer: ModelAnswer): "completed" | "incomplete" {
  return answer.stopReason === "max_tokens" ||
      (answer.stopReason === "refused" && answer.toolCalls.length === 0)
    ? "incomplete"
    : "completed";
}

/** The whole response of an answered turn. */
export function answeredResponse(
  meta: ResponseMeta,
  turnId: string,
  answer: ModelAnswer,
  output = outputItems(meta, turnId, answer),
): Item {
  return responseObject(meta, turnId, {
    status: statusOf(answer),
    model: `${answer.provider}/${answer.model}`,
    output,
    answer,
  });
}

/** The input items as stored: each with an id of its own, in order. */
function identified(items: readonly Item[], turnId: string): Item[] {
  const prefix: Record<string, string> = {
    message: "msg",
    function_call: "fc",
    function_call_output: "fco",
    custom_tool_call: "ctc",
    custom_tool_call_output: "ctco",
  };
  return items.map((item, i) =>
    typeof item.id === "string" ? item : {
      id: `${prefix[String(item.type)] ?? "item"}_${hexOf(turnId)}_in${i}`,
      ...item,
    }
  );
}

/**
 * Records a `store: true` response with the turn's answer, in the turn's own
 * write; `store: false` records the turn alone (decisions.md §14).
 */
export function responseRecorder(meta: ResponseMeta) {
  return (
    answer: ModelAnswer,
    at: { turnId: string; sessionId: string; userId: string; now: Date },
    records: TurnRecords,
  ): void => {
    if (!meta.echo.store) return;
    const output = outputItems(meta, at.turnId, answer);
    const input = identified(meta.inputItems, at.turnId);
    (records.responses ??= []).push({
      id: responseId(at.turnId),
      userId: at.userId,
      sessionId: at.sessionId,
      response: answeredResponse(meta, at.turnId, answer, output),
      inputItems: input,
      previousId: meta.echo.previous_response_id,
      now: at.now,
    });
  };
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

function routerHeaders(
  sessionId: string,
  turnId: string,
): Record<string, string> {
  return { "x-router-session-id": sessionId, "x-router-trace-id": turnId };
}

/** The `error.code` values OpenAI's response object allows: the native code goes in the message. */
function failedError(failure: Failure): { code: string; message: string } {
  const code = failure.code === "rate_limited" || failure.code === "budget_exceeded"
    ? "rate_limit_exceeded"
    : "server_error";
  return { code, message: `${failure.code}: ${failure.message}` };
}

/** The Responses surface of one request. */
export function responsesSurface(
  meta: ResponseMeta,
  sessionId: string,
): TurnSurface {
  const interrupted = interruptedTurn(sessionId);
  return {
    answer(result, turnId) {
      const body = answeredResponse(meta, turnId, answerOf(result, interrupted));
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: {
          "content-type": "application/json",
          ...routerHeaders(sessionId, turnId),
        },
      });
    },
    framing(turnId) {
      let seq = 0;
      let model = "";
      let opened = false;
      const output: Item[] = [];
      let message: { index: number; text: string } | null = null;
      const event = (type: string, fields: Item) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...fields })}\n\n`;
      const inProgress = () =>
        responseObject(meta, turnId, {
          status: "in_progress",
          model,
          output: [],
        });
      /** `response.created` and `.in_progress` go with the first content, so a fallback shows nothing. */
      const open = (): string => {
        if (opened) return "";
        opened = true;
        return event("response.created", { response: inProgress() }) +
          event("response.in_progress", { response: inProgress() });
      };
      const msgId = `msg_${hexOf(turnId)}`;
      const startMessage = (): string => {
        if (message !== null) return "";
        message = { index: output.length, text: "" };
        output.push(messageItem(msgId, "", "in_progress"));
        return event("response.output_item.added", {
          output_index: message.index,
          item: messageItem(msgId, "", "in_progress"),
        }) + event("response.content_part.added", {
          item_id: msgId,
          output_index: message.index,
          content_index: 0,
          part: {
            type: "output_text",
            text: "",
            annotations: [],
            logprobs: [],
          },
        });
      };
      const endMessage = (): string => {
        if (message === null) return "";
        const { index, text } = message;
        message = null;
        const done = messageItem(msgId, text, "completed");
        output[index] = done;
        return event("response.output_text.done", {
          item_id: msgId,
          output_index: index,
          content_index: 0,
          text,
          logprobs: [],
        }) + event("response.content_part.done", {
          item_id: msgId,
          output_index: index,
          content_index: 0,
          part: { type: "output_text", text, annotations: [], logprobs: [] },
        }) +
          event("response.output_item.done", {
            output_index: index,
            item: done,
          });
      };
      let calls = 0;
      const call = (
        c: { callId: string; name: string; arguments: Record<string, unknown> },
      ): string => {
        const index = output.length;
        const done = callItem(meta, turnId, calls++, c, "completed");
        output.push(done);
        const id = done.id as string;
        const custom = done.type === "custom_tool_call";
        const added = event("response.output_item.added", {
          output_index: index,
          item: {
            ...done,
            status: "in_progress",
            ...(custom ? { input: "" } : { arguments: "" }),
          },
        });
        const body = custom
          ? event("response.custom_tool_call_input.delta", {
            item_id: id,
            output_index: index,
            delta: done.input,
          }) + event("response.custom_tool_call_input.done", {
            item_id: id,
            output_index: index,
            input: done.input,
          })
          : event("response.function_call_arguments.delta", {
            item_id: id,
            output_index: index,
            delta: done.arguments,
          }) + event("response.function_call_arguments.done", {
            item_id: id,
            output_index: index,
            name: done.name,
            arguments: done.arguments,
          });
        return added + body +
          event("response.output_item.done", {
            output_index: index,
            item: done,
          });
      };
      return {
        frame(e: TurnEvent) {
          switch (e.type) {
            case "call_started":
              model = `${e.provider}/${e.model}`;
              return null;
            case "text_delta": {
              const head = open() + startMessage();
              message!.text += e.delta;
              return encoder.encode(
                head + event("response.output_text.delta", {
                  item_id: msgId,
                  output_index: message!.index,
                  content_index: 0,
                  delta: e.delta,
                  logprobs: [],
                }),
              );
            }
            case "call_tool":
              if (!meta.echo.parallel_tool_calls && calls > 0) return null;
              return encoder.encode(
                open() + endMessage() +
                  call({
                    callId: e.call_id,
                    name: e.name,
                    arguments: e.arguments,
                  }),
              );
            default:
              return null;
          }
        },
        keepAlive: () => KEEP_ALIVE,
        last(result: TurnResult) {
          if (result.kind !== "answer") {
            const failure = streamFailure(result, interrupted);
            const head = open() + endMessage();
            return encoder.encode(
              head + event("response.failed", {
                response: responseObject(meta, turnId, {
                  status: "failed",
                  model,
                  output,
                  error: failedError(failure),
                }),
              }),
            );
          }
          const answer = result.answer;
          model ||= `${answer.provider}/${answer.model}`;
          let head = open();
          // What no event carried (a model called without streaming) is sent whole here.
          if (
            calls === 0 && (answer.text !== "" || answer.toolCalls.length === 0)
          ) {
            if (message === null && output.length === 0) {
              head += startMessage();
              if (answer.text !== "") {
                message!.text = answer.text;
                head += event("response.output_text.delta", {
                  item_id: msgId,
                  output_index: message!.index,
                  content_index: 0,
                  delta: answer.text,
                  logprobs: [],
                });
              }
            }
          }
          head += endMessage();
          for (const c of callsOf(meta, answer).slice(calls)) head += call(c);
          const response = answeredResponse(meta, turnId, answer, output);
          const type = response.status === "incomplete"
            ? "response.incomplete"
            : "response.completed";
          return encoder.encode(head + event(type, { response }));
        },
      };
    },
    streamHeaders: (turnId) => ({
      ...SSE_HEADERS,
      ...routerHeaders(sessionId, turnId),
    }),
    // `response.created` waits for the first content: a turn that fails before it is an HTTP error.
    opensWithContent: true,
    interrupted,
  };
}
