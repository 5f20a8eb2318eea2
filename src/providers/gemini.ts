/**
 * Gemini adapter: `GenerateContentResponse` chunks over SSE (or one buffered
 * response) to `ProviderEvent`s. Function calls arrive whole in one part;
 * thought parts are reasoning; the chunk carrying `finishReason` is the only
 * clean end, and `usageMetadata` is cumulative, so the last one counts.
 */
import { ProviderError } from "./errors.ts";
import { type ErrorDetail, streamedError } from "./error_summary.ts";
import { ProviderCall } from "./http_call.ts";
import { refuseUnsupported } from "./request_support.ts";
import { geminiBody, geminiHeaders, geminiPath } from "./gemini_request.ts";
import type {
  CompletionRequest,
  ProviderAdapter,
  ProviderEvent,
  ProviderTarget,
  StopReason,
  TokenUsage,
} from "./types.ts";
import { definedOnly, isRecord, optionalCount, parseChunk, toolArguments } from "./wire_json.ts";

const REFUSALS = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]);

export function geminiErrorDetail(body: unknown): ErrorDetail {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (!error) return {};
  const message = typeof error.message === "string" ? error.message : undefined;
  const details = Array.isArray(error.details) ? error.details : [];
  // An invalid key is answered 400 INVALID_ARGUMENT; only the reason tells it apart.
  const badKey = details.some((d) => isRecord(d) && d.reason === "API_KEY_INVALID");
  const tooLong = message !== undefined && /exceeds the maximum number of tokens/.test(message);
  return {
    code: typeof error.status === "string" ? error.status : undefined,
    message,
    category: badKey ? "invalid_credentials" : tooLong ? "context_length" : undefined,
  };
}

function usageOf(raw: Record<string, unknown>): TokenUsage {
  const candidates = optionalCount(raw.candidatesTokenCount);
  const thoughts = optionalCount(raw.thoughtsTokenCount);
  return definedOnly({
    inputTokens: optionalCount(raw.promptTokenCount),
    // candidatesTokenCount leaves thoughts out; ours counts every generated token.
    outputTokens: candidates === undefined && thoughts === undefined
      ? undefined
      : (candidates ?? 0) + (thoughts ?? 0),
    cachedInputTokens: optionalCount(raw.cachedContentTokenCount),
    reasoningTokens: thoughts,
  });
}

/** The state of one answer, fed one `GenerateContentResponse` at a time. */
class ResponseAssembly {
  readonly #provider: string;
  #usage?: Record<string, unknown>;
  #calls = 0;

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** Yields the chunk's events; returns true once the answer is complete. */
  *handle(chunk: Record<string, unknown>, apiKey?: string): Generator<ProviderEvent, boolean> {
    if (isRecord(chunk.error)) {
      throw streamedError(this.#provider, geminiErrorDetail(chunk), "unknown", apiKey);
    }
    if (isRecord(chunk.usageMetadata)) this.#usage = chunk.usageMetadata;
    const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    if (!isRecord(candidate)) {
      const feedback = isRecord(chunk.promptFeedback) ? chunk.promptFeedback : {};
      if (typeof feedback.blockReason !== "string") return false;
      yield* this.#finish("refused", feedback.blockReason);
      return true;
    }
    const content = isRecord(candidate.content) ? candidate.content : {};
    const parts = Array.isArray(content.parts) ? content.parts : [];
    for (const part of parts) if (isRecord(part)) yield* this.#part(part);
    const reason = candidate.finishReason;
    if (typeof reason !== "string") return false;
    yield* this.#finish(this.#stopReason(reason), reason);
    return true;
  }

  *#part(part: Record<string, unknown>): Generator<ProviderEvent> {
    if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      const index = this.#calls++;
      const name = String(call.name ?? "");
      // Gemini gives a call an id only sometimes; calls are matched by name and order.
      const id = typeof call.id === "string" && call.id !== "" ? { callId: call.id } : {};
      const args = toolArguments(this.#provider, name, call.args);
      yield { type: "tool_call_started", ...id, name, index };
      const signature = typeof part.thoughtSignature === "string"
        ? { signature: part.thoughtSignature }
        : {};
      yield { type: "tool_call_complete", ...id, name, index, arguments: args, ...signature };
      return;
    }
    if (typeof part.text !== "string" || part.text === "") return;
    yield part.thought === true
      ? { type: "reasoning_delta", delta: part.text }
      : { type: "text_delta", delta: part.text };
  }

  #stopReason(reason: string): StopReason {
    if (reason === "STOP") return this.#calls > 0 ? "tool_calls" : "stop";
    if (reason === "MAX_TOKENS") return "max_tokens";
    return REFUSALS.has(reason) ? "refused" : "other";
  }

  *#finish(stopReason: StopReason, providerReason: string): Generator<ProviderEvent> {
    if (this.#usage) {
      const usage = usageOf(this.#usage);
      if (Object.keys(usage).length > 0) yield { type: "usage", usage };
    }
    yield { type: "end", stopReason, providerReason };
  }
}

function malformed(provider: string): ProviderError {
  return new ProviderError("unknown", `${provider} sent a malformed response chunk`, provider);
}

async function* streamEvents(call: ProviderCall, response: Response, apiKey?: string) {
  const assembly = new ResponseAssembly(call.provider);
  for await (const event of call.sse(response)) {
    const chunk = parseChunk(call.provider, event.data, "stream chunk");
    if (!isRecord(chunk)) throw malformed(call.provider);
    if (yield* assembly.handle(chunk, apiKey)) return;
  }
  throw new ProviderError(
    "provider_unavailable",
    `${call.provider} stream ended before a finishReason: connection closed mid-answer`,
    call.provider,
  );
}

async function* invoke(
  target: ProviderTarget,
  request: CompletionRequest,
): AsyncGenerator<ProviderEvent> {
  refuseUnsupported("gemini", request, target.provider);
  const call = new ProviderCall(target, request.signal);
  try {
    const body = geminiBody(target.provider, request);
    const headers = geminiHeaders(target.apiKey);
    const response = await call.post(geminiPath(request), headers, body, geminiErrorDetail);
    if (request.stream) {
      yield* streamEvents(call, response, target.apiKey);
      return;
    }
    const chunk = parseChunk(target.provider, await call.readText(response), "response body");
    if (!isRecord(chunk)) throw malformed(target.provider);
    const assembly = new ResponseAssembly(target.provider);
    if (!(yield* assembly.handle(chunk, target.apiKey))) throw malformed(target.provider);
  } finally {
    call.close();
  }
}

export const geminiAdapter: ProviderAdapter = { protocol: "gemini", invoke };
