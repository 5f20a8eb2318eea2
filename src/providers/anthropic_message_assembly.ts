/**
 * The state of one Anthropic Messages answer, fed one stream event at a time
 * (or a whole buffered message, replayed as the same blocks). Text, thinking
 * and tool_use blocks become `ProviderEvent`s; tool input is parsed at its
 * block's stop; usage merges message_start and message_delta.
 */
import { ProviderError, type ProviderErrorCategory } from "./errors.ts";
import { type ErrorDetail, streamedError } from "./error_summary.ts";
import type { ProviderEvent, StopReason, TokenUsage } from "./types.ts";
import { definedOnly, isRecord, optionalCount, toolArguments } from "./wire_json.ts";

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "max_tokens",
  refusal: "refused",
};

const ERROR_TYPES: Record<string, ProviderErrorCategory> = {
  invalid_request_error: "invalid_request",
  authentication_error: "invalid_credentials",
  permission_error: "authentication",
  not_found_error: "model_not_found",
  rate_limit_error: "rate_limit",
  api_error: "provider_unavailable",
  overloaded_error: "provider_unavailable",
  timeout_error: "timeout",
};

export function anthropicErrorDetail(body: unknown): ErrorDetail {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (!error) return {};
  const type = typeof error.type === "string" ? error.type : undefined;
  const message = typeof error.message === "string" ? error.message : undefined;
  const tooLong = message !== undefined && message.startsWith("prompt is too long");
  return { code: type, message, category: tooLong ? "context_length" : undefined };
}

/** Usage counts merge across message_start and message_delta; later reports win. */
function usageOf(raw: Record<string, unknown>): TokenUsage {
  const input = optionalCount(raw.input_tokens);
  const cacheRead = optionalCount(raw.cache_read_input_tokens);
  const cacheWrite = optionalCount(raw.cache_creation_input_tokens);
  return definedOnly({
    // input_tokens excludes cache reads and writes; ours counts every prompt token.
    inputTokens: input === undefined ? undefined : input + (cacheRead ?? 0) + (cacheWrite ?? 0),
    outputTokens: optionalCount(raw.output_tokens),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
}

interface OpenBlock {
  kind: "text" | "thinking" | "tool_use" | "other";
  id?: string;
  name?: string;
  json: string;
  toolIndex?: number;
}

/** The state of one answer, fed one Anthropic stream event at a time. */
export class MessageAssembly {
  readonly #provider: string;
  readonly #blocks = new Map<number, OpenBlock>();
  #usage: Record<string, unknown> = {};
  #stop?: string;
  #tools = 0;

  constructor(provider: string) {
    this.#provider = provider;
  }

  *handle(event: Record<string, unknown>, apiKey?: string): Generator<ProviderEvent, boolean> {
    switch (event.type) {
      case "message_start": {
        const message = isRecord(event.message) ? event.message : {};
        if (isRecord(message.usage)) this.#usage = { ...this.#usage, ...message.usage };
        return false;
      }
      case "content_block_start":
        yield* this.#start(
          Number(event.index),
          isRecord(event.content_block) ? event.content_block : {},
        );
        return false;
      case "content_block_delta":
        yield* this.#delta(Number(event.index), isRecord(event.delta) ? event.delta : {});
        return false;
      case "content_block_stop":
        yield* this.#stopBlock(Number(event.index));
        return false;
      case "message_delta": {
        const delta = isRecord(event.delta) ? event.delta : {};
        if (typeof delta.stop_reason === "string") this.#stop = delta.stop_reason;
        if (isRecord(event.usage)) this.#usage = { ...this.#usage, ...event.usage };
        return false;
      }
      case "message_stop":
        yield* this.finish();
        return true;
      case "error": {
        const detail = anthropicErrorDetail(event);
        const category = detail.code === undefined ? undefined : ERROR_TYPES[detail.code];
        throw streamedError(this.#provider, { ...detail, category }, "unknown", apiKey);
      }
      default:
        return false; // ping, and event types added later, carry nothing for us
    }
  }

  /** The buffered message replayed as the same blocks a stream would carry. */
  *replay(message: Record<string, unknown>): Generator<ProviderEvent> {
    if (isRecord(message.usage)) this.#usage = message.usage;
    if (typeof message.stop_reason === "string") this.#stop = message.stop_reason;
    const content = Array.isArray(message.content) ? message.content : [];
    for (const [index, block] of content.entries()) {
      if (!isRecord(block)) continue;
      yield* this.#start(index, { ...block, text: "", thinking: "", signature: undefined });
      if (typeof block.thinking === "string") {
        yield* this.#delta(index, { type: "thinking_delta", thinking: block.thinking });
      }
      if (typeof block.signature === "string") {
        yield* this.#delta(index, { type: "signature_delta", signature: block.signature });
      }
      if (typeof block.text === "string" && block.type === "text") {
        yield* this.#delta(index, { type: "text_delta", text: block.text });
      }
      if (block.type === "tool_use") {
        const input = JSON.stringify(isRecord(block.input) ? block.input : {});
        yield* this.#delta(index, { type: "input_json_delta", partial_json: input });
      }
      yield* this.#stopBlock(index);
    }
    yield* this.finish();
  }

  *finish(): Generator<ProviderEvent> {
    const usage = usageOf(this.#usage);
    if (Object.keys(usage).length > 0) yield { type: "usage", usage };
    yield this.#stop === undefined ? { type: "end", stopReason: "other" } : {
      type: "end",
      stopReason: STOP_REASONS[this.#stop] ?? "other",
      providerReason: this.#stop,
    };
  }

  *#start(index: number, block: Record<string, unknown>): Generator<ProviderEvent> {
    const kind = block.type === "text" || block.type === "thinking" || block.type === "tool_use"
      ? block.type
      : "other";
    const open: OpenBlock = { kind, json: "" };
    this.#blocks.set(index, open);
    if (kind === "text" && typeof block.text === "string" && block.text !== "") {
      yield { type: "text_delta", delta: block.text };
    }
    if (kind !== "tool_use") return;
    if (typeof block.id === "string" && block.id !== "") open.id = block.id;
    open.name = String(block.name ?? "");
    open.toolIndex = this.#tools++;
    const id = open.id === undefined ? {} : { callId: open.id };
    yield { type: "tool_call_started", ...id, name: open.name, index: open.toolIndex };
  }

  *#delta(index: number, delta: Record<string, unknown>): Generator<ProviderEvent> {
    const open = this.#blocks.get(index);
    if (!open) throw this.#malformed(`a delta for unknown block ${index}`);
    if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
      yield { type: "text_delta", delta: delta.text };
    } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
      if (delta.thinking !== "") yield { type: "reasoning_delta", delta: delta.thinking };
    } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
      yield { type: "reasoning_signature", signature: delta.signature };
    } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
      open.json += delta.partial_json;
    }
  }

  *#stopBlock(index: number): Generator<ProviderEvent> {
    const open = this.#blocks.get(index);
    if (!open) throw this.#malformed(`a stop for unknown block ${index}`);
    this.#blocks.delete(index);
    if (open.kind !== "tool_use") return;
    const args = toolArguments(this.#provider, open.name!, open.json);
    yield {
      type: "tool_call_complete",
      ...(open.id === undefined ? {} : { callId: open.id }),
      name: open.name!,
      index: open.toolIndex!,
      arguments: args,
    };
  }

  #malformed(what: string): ProviderError {
    return new ProviderError("unknown", `${this.#provider} sent ${what}`, this.#provider);
  }
}
