/**
 * The Gemini request (`POST {base}/v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse`): contents of parts, `systemInstruction`,
 * function declarations with JSON Schema, effort as a thinking budget.
 */
import { ProviderError } from "./errors.ts";
import { wireImages } from "./image_parts.ts";
import type {
  ChatMessage,
  CompletionRequest,
  Effort,
  SamplingOptions,
  ToolChoice,
  UserMessage,
} from "./types.ts";
import { wireCallIds } from "./wire_call_ids.ts";

/** Budgets within every 2.5 model's accepted range (flash tops out at 24576). */
const THINKING_BUDGET: Record<Effort, number> = {
  low: 1024,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
};

export function geminiPath(request: CompletionRequest): string {
  const model = encodeURIComponent(request.model);
  return request.stream
    ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
    : `/v1beta/models/${model}:generateContent`;
}

/** Function responses are matched by name, so each result needs its call's name. */
function callNames(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) names.set(call.callId, call.name);
  }
  return names;
}

/**
 * Gemini matches a function response to its call by name and order; when it
 * gave the call an id, the id goes back in `functionCall.id` and
 * `functionResponse.id` as well. A call it gave none carries none.
 */
function geminiIds(messages: readonly ChatMessage[], provider: string) {
  const idOf = wireCallIds(messages, provider);
  return (callId: string) => {
    const id = idOf(callId);
    return id === callId ? {} : { id };
  };
}

/** Text then inline images; a URL image is refused before (request_support.ts). */
function userParts(message: UserMessage): Record<string, unknown>[] {
  const images = wireImages(message.images);
  if (images.length === 0) return [{ text: message.content }];
  const parts: Record<string, unknown>[] = [];
  if (message.content !== "") parts.push({ text: message.content });
  for (const image of images) {
    if (image.kind !== "inline") continue;
    parts.push({ inlineData: { mimeType: image.image.mediaType, data: image.image.data } });
  }
  return parts;
}

function functionCallingConfig(choice: ToolChoice): Record<string, unknown> {
  if (typeof choice !== "string") return { mode: "ANY", allowedFunctionNames: [choice.name] };
  return { mode: choice === "required" ? "ANY" : choice === "none" ? "NONE" : "AUTO" };
}

/**
 * Sampling into generationConfig. A JSON schema goes as `responseJsonSchema`
 * (plain JSON Schema, as tools' `parametersJsonSchema`), not `responseSchema`,
 * whose OpenAPI subset would reject much of what clients write.
 */
function addSampling(config: Record<string, unknown>, sampling: SamplingOptions): void {
  if (sampling.temperature !== undefined) config.temperature = sampling.temperature;
  if (sampling.topP !== undefined) config.topP = sampling.topP;
  if (sampling.stop && sampling.stop.length > 0) config.stopSequences = sampling.stop;
  if (sampling.seed !== undefined) config.seed = sampling.seed;
  const format = sampling.responseFormat;
  if (format === undefined || format.type === "text") return;
  config.responseMimeType = "application/json";
  if (format.type === "json_schema") config.responseJsonSchema = format.schema;
}

function wireContents(provider: string, messages: readonly ChatMessage[]): unknown[] {
  const names = callNames(messages);
  const idOf = geminiIds(messages, provider);
  const out: Record<string, unknown>[] = [];
  let results: unknown[] | undefined;
  for (const message of messages) {
    if (message.role === "tool") {
      const name = names.get(message.callId);
      if (name === undefined) {
        throw new ProviderError(
          "invalid_request",
          `tool result "${message.callId}" answers no tool call in the history`,
          provider,
        );
      }
      // "output" and "error" are the keys the API reference names for a function's result.
      const response = message.isError ? { error: message.content } : { output: message.content };
      if (results === undefined) {
        results = [];
        out.push({ role: "user", parts: results });
      }
      results.push({ functionResponse: { ...idOf(message.callId), name, response } });
      // A result's images follow its function response in the same turn, as inline data.
      if ((message.images?.length ?? 0) > 0) {
        results.push(...userParts({ role: "user", content: "", images: message.images }));
      }
      continue;
    }
    results = undefined;
    if (message.role === "user") {
      out.push({ role: "user", parts: userParts(message) });
      continue;
    }
    const parts: Record<string, unknown>[] = [];
    if (message.content !== "") parts.push({ text: message.content });
    for (const call of message.toolCalls ?? []) {
      const part: Record<string, unknown> = {
        functionCall: { ...idOf(call.callId), name: call.name, args: call.arguments },
      };
      if (call.signature !== undefined) part.thoughtSignature = call.signature;
      parts.push(part);
    }
    out.push({ role: "model", parts });
  }
  return out;
}

export function geminiBody(provider: string, request: CompletionRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { contents: wireContents(provider, request.messages) };
  if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools && request.tools.length > 0) {
    body.tools = [{
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: tool.parameters,
      })),
    }];
    if (request.toolChoice !== undefined) {
      body.toolConfig = { functionCallingConfig: functionCallingConfig(request.toolChoice) };
    }
  }
  const config: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.effort) {
    config.thinkingConfig = {
      thinkingBudget: THINKING_BUDGET[request.effort],
      includeThoughts: true,
    };
  }
  if (request.sampling) addSampling(config, request.sampling);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

export function geminiHeaders(apiKey?: string): Record<string, string> {
  // The key goes in its header, never in the `?key=` query the API also accepts.
  return apiKey ? { "x-goog-api-key": apiKey } : {};
}
