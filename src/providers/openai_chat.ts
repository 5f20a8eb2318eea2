/**
 * OpenAI Chat Completions adapter: SSE chunks (or one buffered completion) to
 * `ProviderEvent`s. Tool-call arguments stream as fragments keyed by index and
 * are parsed once the choice finishes; usage arrives in a last chunk with no
 * choices, and `data: [DONE]` is the only clean end.
 */
import { ProviderError } from "./errors.ts";
import { type ErrorDetail, streamedError } from "./error_summary.ts";
import { ProviderCall } from "./http_call.ts";
import { refuseUnsupported } from "./request_support.ts";
import { openAiChatBody, openAiChatHeaders } from "./openai_chat_request.ts";
import type {
  CompletionRequest,
  ProviderAdapter,
  ProviderEvent,
  ProviderTarget,
  StopReason,
  TokenUsage,
} from "./types.ts";
import { definedOnly, isRecord, optionalCount, parseChunk, toolArguments } from "./wire_json.ts";

const STOP_REASONS: Record<string, StopReason> = {
  stop: "stop",
  length: "max_tokens",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  content_filter: "refused",
};

export function openAiErrorDetail(body: unknown): ErrorDetail {
  if (!isRecord(body)) return {};
  const error = body.error;
  if (typeof error === "string") return { message: error };
  if (!isRecord(error)) return {};
  const code = typeof error.code === "string" ? error.code : undefined;
  const type = typeof error.type === "string" ? error.type : undefined;
  return {
    code: code ?? type,
    message: typeof error.message === "string" ? error.message : undefined,
    category: code === "context_length_exceeded"
      ? "context_length"
      : type === "server_error"
      ? "provider_unavailable"
      : undefined,
  };
}

function usageOf(raw: unknown): TokenUsage | undefined {
  if (!isRecord(raw)) return undefined;
  const prompt = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completion = isRecord(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  return definedOnly({
    inputTokens: optionalCount(raw.prompt_tokens),
    outputTokens: optionalCount(raw.completion_tokens),
    cachedInputTokens: optionalCount(prompt.cached_tokens),
    reasoningTokens: optionalCount(completion.reasoning_tokens),
  });
}

interface PendingCall {
  id?: string;
  name?: string;
  args: string;
  started: boolean;
}

/** The provider's id for a call, when it sent one (compatible servers may omit it). */
const idOf = (call: PendingCall) => (call.id === undefined ? {} : { callId: call.id });

/** Collects tool-call fragments by index; compatible servers may omit ids. */
class ToolCallAssembly {
  readonly #calls = new Map<number, PendingCall>();
  /** How many calls the answer completed, across every finish. */
  completed = 0;

  *add(fragment: Record<string, unknown>): Generator<ProviderEvent> {
    const index = typeof fragment.index === "number" ? fragment.index : this.#calls.size;
    const call = this.#calls.get(index) ?? { args: "", started: false };
    this.#calls.set(index, call);
    if (typeof fragment.id === "string" && fragment.id !== "") call.id ??= fragment.id;
    const fn = isRecord(fragment.function) ? fragment.function : {};
    if (typeof fn.name === "string" && fn.name !== "") call.name ??= fn.name;
    if (typeof fn.arguments === "string") call.args += fn.arguments;
    else if (isRecord(fn.arguments)) call.args += JSON.stringify(fn.arguments);
    if (!call.started && call.name !== undefined) {
      call.started = true;
      yield { type: "tool_call_started", ...idOf(call), name: call.name, index };
    }
  }

  *complete(provider: string): Generator<ProviderEvent> {
    const indexes = [...this.#calls.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const call = this.#calls.get(index)!;
      if (call.name === undefined) {
        throw new ProviderError("unknown", `${provider} sent a tool call without a name`, provider);
      }
      const args = toolArguments(provider, call.name, call.args);
      yield { type: "tool_call_complete", ...idOf(call), name: call.name, index, arguments: args };
      this.completed++;
    }
    this.#calls.clear();
  }
}

async function* streamEvents(call: ProviderCall, response: Response, apiKey?: string) {
  const provider = call.provider;
  const tools = new ToolCallAssembly();
  let finish: string | undefined;
  let usage: TokenUsage | undefined;
  for await (const event of call.sse(response)) {
    if (event.data === "[DONE]") {
      yield* tools.complete(provider);
      if (usage) yield { type: "usage", usage } satisfies ProviderEvent;
      yield endEvent(finish, tools.completed);
      return;
    }
    const chunk = parseChunk(provider, event.data, "stream chunk");
    if (!isRecord(chunk)) throw malformed(provider);
    if (chunk.error !== undefined) {
      throw streamedError(provider, openAiErrorDetail(chunk), "unknown", apiKey);
    }
    usage = usageOf(chunk.usage) ?? usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) continue;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    // `reasoning_content` is how compatible servers (DeepSeek, vLLM) stream reasoning.
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
      yield { type: "reasoning_delta", delta: delta.reasoning_content } satisfies ProviderEvent;
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      yield { type: "text_delta", delta: delta.content } satisfies ProviderEvent;
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      yield { type: "text_delta", delta: delta.refusal } satisfies ProviderEvent;
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) if (isRecord(fragment)) yield* tools.add(fragment);
    }
    if (typeof choice.finish_reason === "string") {
      finish = choice.finish_reason;
      yield* tools.complete(provider);
    }
  }
  throw new ProviderError(
    "provider_unavailable",
    `${provider} stream ended before [DONE]: connection closed mid-answer`,
    provider,
  );
}

function* bufferedEvents(provider: string, text: string): Generator<ProviderEvent> {
  const body = parseChunk(provider, text, "response body");
  if (!isRecord(body) || !Array.isArray(body.choices) || !isRecord(body.choices[0])) {
    throw malformed(provider);
  }
  const choice = body.choices[0];
  const message = isRecord(choice.message) ? choice.message : {};
  if (typeof message.reasoning_content === "string" && message.reasoning_content !== "") {
    yield { type: "reasoning_delta", delta: message.reasoning_content };
  }
  if (typeof message.content === "string" && message.content !== "") {
    yield { type: "text_delta", delta: message.content };
  }
  if (typeof message.refusal === "string" && message.refusal !== "") {
    yield { type: "text_delta", delta: message.refusal };
  }
  const tools = new ToolCallAssembly();
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const [index, raw] of calls.entries()) {
    if (isRecord(raw)) yield* tools.add({ index, ...raw });
  }
  yield* tools.complete(provider);
  const usage = usageOf(body.usage);
  if (usage) yield { type: "usage", usage };
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : undefined;
  yield endEvent(finish, tools.completed);
}

/**
 * A call made means the client has tools to run, whatever the finish word:
 * OpenAI itself finishes a call forced by a named `tool_choice` with "stop",
 * as several compatible servers (vLLM, SGLang, older Ollama) finish any call;
 * the Gemini and Ollama adapters read their own "stop" the same way.
 */
function endEvent(finish: string | undefined, calls: number): ProviderEvent {
  if (finish === undefined) return { type: "end", stopReason: "other" };
  const stopReason = finish === "stop" && calls > 0 ? "tool_calls" : STOP_REASONS[finish];
  return { type: "end", stopReason: stopReason ?? "other", providerReason: finish };
}

function malformed(provider: string): ProviderError {
  return new ProviderError("unknown", `${provider} sent a malformed completion`, provider);
}

async function* invoke(
  target: ProviderTarget,
  request: CompletionRequest,
): AsyncGenerator<ProviderEvent> {
  refuseUnsupported("openai", request, target.provider);
  const call = new ProviderCall(target, request.signal);
  try {
    const headers = openAiChatHeaders(target.apiKey);
    const body = openAiChatBody(request, target.provider);
    const response = await call.post("/chat/completions", headers, body, openAiErrorDetail);
    if (request.stream) yield* streamEvents(call, response, target.apiKey);
    else yield* bufferedEvents(target.provider, await call.readText(response));
  } finally {
    call.close();
  }
}

export const openAiChatAdapter: ProviderAdapter = { protocol: "openai", invoke };
