/**
 * A reply in the OpenAI Chat Completions wire format: one `chat.completion`
 * object, or the `chat.completion.chunk` events of a stream ending with
 * `data: [DONE]` (a last chunk with `usage` and no choices when the request
 * asked for `stream_options.include_usage`). Pure: ids and time are passed in.
 */
import { type Reply, tokenCount } from "./answers.ts";

export interface Meta {
  id: string;
  /** The tool call's id, when the reply is one. */
  callId: string;
  /** Unix seconds. */
  created: number;
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function usageOf(promptText: string, reply: Reply): Meta["usage"] {
  const prompt = tokenCount(promptText);
  const completion = tokenCount(
    reply.kind === "text" ? reply.text : reply.name + JSON.stringify(reply.arguments),
  );
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** Characters of tool-call arguments per chunk: JSON arrives cut anywhere, as from a real model. */
const ARGUMENT_FRAGMENT = 12;

const finishReason = (reply: Reply) => (reply.kind === "text" ? reply.finish : "tool_calls");

function toolCall(reply: Reply & { kind: "tool_call" }, meta: Meta) {
  return {
    id: meta.callId,
    type: "function",
    function: { name: reply.name, arguments: JSON.stringify(reply.arguments) },
  };
}

export function completion(reply: Reply, meta: Meta): Record<string, unknown> {
  const message = reply.kind === "text"
    ? { role: "assistant", content: reply.text, refusal: null }
    : { role: "assistant", content: null, tool_calls: [toolCall(reply, meta)], refusal: null };
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: meta.usage,
  };
}

/** Text in pieces of a few words, spaces kept, so the stream shows the answer arriving. */
export function pieces(text: string, words = 3): string[] {
  const tokens = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += words) out.push(tokens.slice(i, i + words).join(""));
  return out;
}

/** The `data:` events of the streamed reply, `[DONE]` last. */
export function streamEvents(reply: Reply, meta: Meta, includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], usage: Meta["usage"] | null = null) =>
    `data: ${
      JSON.stringify({
        id: meta.id,
        object: "chat.completion.chunk",
        created: meta.created,
        model: meta.model,
        choices,
        ...(includeUsage ? { usage } : {}),
      })
    }\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  });
  const events: string[] = [];
  if (reply.kind === "text") {
    events.push(chunk([delta({ role: "assistant", content: "", refusal: null })]));
    for (const piece of pieces(reply.text)) events.push(chunk([delta({ content: piece })]));
  } else {
    // The id and name come first with empty arguments; the arguments follow in fragments.
    const call = toolCall(reply, meta);
    events.push(chunk([delta({
      role: "assistant",
      content: null,
      tool_calls: [{ index: 0, ...call, function: { name: reply.name, arguments: "" } }],
      refusal: null,
    })]));
    const args = call.function.arguments;
    for (let at = 0; at < args.length; at += ARGUMENT_FRAGMENT) {
      const piece = args.slice(at, at + ARGUMENT_FRAGMENT);
      events.push(chunk([delta({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]));
    }
  }
  events.push(chunk([delta({}, finishReason(reply))]));
  if (includeUsage) events.push(chunk([], meta.usage));
  events.push("data: [DONE]\n\n");
  return events;
}
