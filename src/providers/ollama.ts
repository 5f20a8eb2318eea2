/**
 * Ollama adapter: NDJSON chat records (or one buffered record) to
 * `ProviderEvent`s. Tool calls arrive whole with object arguments; the record
 * with `done: true` carries the counts and is the only clean end.
 */
import { ProviderError } from "./errors.ts";
import { type ErrorDetail, streamedError } from "./error_summary.ts";
import { ProviderCall } from "./http_call.ts";
import { refuseUnsupported } from "./request_support.ts";
import { ollamaBody } from "./ollama_request.ts";
import type {
  CompletionRequest,
  ProviderAdapter,
  ProviderEvent,
  ProviderTarget,
  StopReason,
} from "./types.ts";
import { definedOnly, isRecord, optionalCount, parseChunk, toolArguments } from "./wire_json.ts";

export function ollamaErrorDetail(body: unknown): ErrorDetail {
  if (!isRecord(body) || typeof body.error !== "string") return {};
  const message = body.error;
  const unsupported = /does not support (tools|thinking)/.test(message);
  return { message, category: unsupported ? "unsupported_capability" : undefined };
}

/** The state of one answer, fed one chat record at a time. */
class ChatAssembly {
  readonly #provider: string;
  #calls = 0;

  constructor(provider: string) {
    this.#provider = provider;
  }

  *handle(record: Record<string, unknown>): Generator<ProviderEvent, boolean> {
    if (typeof record.error === "string") {
      throw streamedError(this.#provider, ollamaErrorDetail(record), "unknown");
    }
    const message = isRecord(record.message) ? record.message : {};
    if (typeof message.thinking === "string" && message.thinking !== "") {
      yield { type: "reasoning_delta", delta: message.thinking };
    }
    if (typeof message.content === "string" && message.content !== "") {
      yield { type: "text_delta", delta: message.content };
    }
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
    for (const call of calls) if (isRecord(call)) yield* this.#toolCall(call);
    if (record.done !== true) return false;
    // A prompt served wholly from Ollama's cache comes back without prompt_eval_count.
    const usage = definedOnly({
      inputTokens: optionalCount(record.prompt_eval_count),
      outputTokens: optionalCount(record.eval_count),
    });
    if (Object.keys(usage).length > 0) yield { type: "usage", usage };
    const reason = typeof record.done_reason === "string" ? record.done_reason : undefined;
    yield reason === undefined
      ? { type: "end", stopReason: this.#stop(undefined) }
      : { type: "end", stopReason: this.#stop(reason), providerReason: reason };
    return true;
  }

  *#toolCall(call: Record<string, unknown>): Generator<ProviderEvent> {
    const fn = isRecord(call.function) ? call.function : {};
    const index = this.#calls++;
    const name = String(fn.name ?? "");
    const id = typeof call.id === "string" && call.id !== "" ? { callId: call.id } : {};
    const args = toolArguments(this.#provider, name, fn.arguments);
    yield { type: "tool_call_started", ...id, name, index };
    yield { type: "tool_call_complete", ...id, name, index, arguments: args };
  }

  #stop(reason: string | undefined): StopReason {
    if (reason === "length") return "max_tokens";
    if (this.#calls > 0) return "tool_calls";
    return reason === "stop" ? "stop" : "other";
  }
}

async function* invoke(
  target: ProviderTarget,
  request: CompletionRequest,
): AsyncGenerator<ProviderEvent> {
  refuseUnsupported("ollama", request, target.provider);
  const call = new ProviderCall(target, request.signal);
  const provider = target.provider;
  try {
    // Ollama is keyless: no credential is ever sent, even if one was configured.
    const response = await call.post("/api/chat", {}, ollamaBody(request), ollamaErrorDetail);
    const assembly = new ChatAssembly(provider);
    if (!request.stream) {
      const record = parseChunk(provider, await call.readText(response), "response body");
      if (!isRecord(record) || !(yield* assembly.handle(record))) throw malformed(provider);
      return;
    }
    for await (const line of call.ndjson(response)) {
      const record = parseChunk(provider, line, "stream record");
      if (!isRecord(record)) throw malformed(provider);
      if (yield* assembly.handle(record)) return;
    }
    throw new ProviderError(
      "provider_unavailable",
      `${provider} stream ended before done: connection closed mid-answer`,
      provider,
    );
  } finally {
    call.close();
  }
}

function malformed(provider: string): ProviderError {
  return new ProviderError("unknown", `${provider} sent a malformed chat record`, provider);
}

export const ollamaAdapter: ProviderAdapter = { protocol: "ollama", invoke };
